/**
 * `doctor`: the network the library is configured for (`LIGHTHOUSE_*` hosts, the production ones
 * by default) held against the contract, endpoint by endpoint, with the library's `Doctor.run`.
 * The authenticated reads are asked with the API key when there is one (`--api-key-file`,
 * `LIGHTHOUSE_API_KEY`, the saved one), else for their declared `401`. Exit 0 when every
 * endpoint answers as declared; otherwise the report, then `NetworkDiffers` (exit 1), whose
 * `--json` form carries the report.
 *
 * @since 0.1.0
 */
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { LighthouseConfig } from "lighthouse-effect"
import { Doctor } from "lighthouse-effect/contract"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"

/** Some endpoint answered unlike the contract, or not at all. */
export class NetworkDiffers extends Schema.TaggedError<NetworkDiffers>()("NetworkDiffers", {
  differing: Schema.Number,
  unreachable: Schema.Number,
  total: Schema.Number,
  report: Schema.Unknown
}) {
  override get message() {
    return `${this.differing} of ${this.total} endpoints differ from the contract, ${this.unreachable} unreachable`
  }
}

/** What `--json` adds to an error's `{ _tag, message }`: the doctor's whole report. */
export const jsonDetails = (error: unknown): Record<string, unknown> =>
  error instanceof NetworkDiffers ? { report: error.report } : {}

const count = (report: Doctor.DoctorReport, verdict: Doctor.Verdict) =>
  report.endpoints.filter((line) => line.verdict === verdict).length

export const doctor = Command.make(
  "doctor",
  {
    cid: Flag.String("cid").pipe(
      Flag.withDescription("A CID to ask about (default: one nobody stores, answered by each route's 'not found')"),
      Flag.optional
    ),
    timeout: Flag.Int("timeout-ms").pipe(
      Flag.withSchema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
      Flag.withDescription("How long one probe may take, in milliseconds (default 10000)"),
      Flag.optional
    )
  },
  ({ cid, timeout }) =>
    Effect.gen(function* () {
      const { hosts } = yield* LighthouseConfig.LighthouseConfig
      const apiKey = yield* Credentials.apiKey.pipe(
        Effect.map(Option.some),
        Effect.catchTag("UsageError", () => Effect.succeedNone)
      )
      const report = yield* Doctor.run({
        hosts,
        ...(Option.isSome(apiKey) ? { apiKey: apiKey.value } : {}),
        ...(Option.isSome(cid) ? { cid: cid.value } : {}),
        ...(Option.isSome(timeout) ? { timeoutMillis: timeout.value } : {})
      }).pipe(Effect.provide(FetchHttpClient.layer))
      if (report.healthy) return yield* Output.result(report, Doctor.describeReport(report))
      if (!(yield* Output.Json)) yield* Output.result(report, Doctor.describeReport(report))
      return yield* new NetworkDiffers({
        differing: count(report, "differs"),
        unreachable: count(report, "unreachable"),
        total: report.endpoints.length,
        report
      })
    })
).pipe(
  Command.withDescription(
    "Checks each endpoint a client can read without changing anything against the contract: as declared, differs (field and value) or unreachable"
  )
)
