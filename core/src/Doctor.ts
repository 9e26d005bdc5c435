/**
 * `doctor`: a network held against the contract. Each endpoint a client can ask without changing
 * anything is asked once (`contract/Probes.ts`), the authenticated reads with the caller's API key
 * or, without one, for their declared `401`; each answer is read with the contract's own decoders
 * (`contract/Check.ts`). The report says, per endpoint: unreachable (and why), as declared (a
 * success or a declared error answer), or differs (each field with the value it had, a status
 * or a media type the contract does not declare). The production hosts by default.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as UrlParams from "effect/http/UrlParams"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { GroupHosts } from "./contract/Api.ts"
import { compare, type Difference } from "./contract/Check.ts"
import { type Probe, probes, requestOf } from "./contract/Probes.ts"
import { type HostName, HostNames, ProductionHosts } from "./contract/Shapes.ts"
import { Credential } from "./schema/Credential.ts"

export type { Difference } from "./contract/Check.ts"

/** A CID nobody stores: asked about, every endpoint answers its declared "not found". */
export const UnknownCid = "bafkreihlbkipkfiic4rojzozq6jcldrhp2zu2v37fcbr45zdymszvwgbey"

/**
 * What `run` takes: the hosts (production ones for those not given), an API key for the
 * authenticated reads, a CID to ask about, and how long one probe may take (default 10 s).
 *
 * @category schemas
 */
export const DoctorOptions = Schema.Struct({
  hosts: Schema.optional(
    Schema.Struct({
      api: Schema.optional(Schema.String),
      node: Schema.optional(Schema.String),
      gateway: Schema.optional(Schema.String),
      encryption: Schema.optional(Schema.String)
    })
  ),
  apiKey: Schema.optional(Credential),
  cid: Schema.optional(Schema.String),
  timeoutMillis: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})
/** @category models */
export type DoctorOptions = typeof DoctorOptions.Type

/** What became of one probe. */
export type Verdict = "as-declared" | "differs" | "unreachable"

/** One endpoint's line of the report. */
export interface EndpointReport {
  /** `group.endpoint`, as the contract names it (`files.fileInfo`). */
  readonly endpoint: string
  readonly host: HostName
  readonly method: string
  readonly url: string
  readonly verdict: Verdict
  /** The answer's status, when one came. */
  readonly status?: number
  /** Whether the answer was one of the endpoint's declared error answers. */
  readonly declaredError?: boolean
  /** Where the answer departs from the contract (empty unless `differs`). */
  readonly differences: ReadonlyArray<Difference>
  /** Why no answer came (`unreachable`). */
  readonly reason?: string
}

/** The whole report: the hosts asked, every endpoint's line, and whether all are as declared. */
export interface DoctorReport {
  readonly hosts: Readonly<Record<HostName, string>>
  readonly authenticated: boolean
  readonly endpoints: ReadonlyArray<EndpointReport>
  readonly healthy: boolean
}

const urlOf = (request: HttpClientRequest.HttpClientRequest): string => {
  const query = UrlParams.toString(request.urlParams)
  return query === "" ? request.url : `${request.url}?${query}`
}

const reasonOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "TimeoutError")
    return "no answer in time"
  const message = error instanceof Error ? error.message : String(error)
  return message.split("\n")[0] ?? message
}

/** Asks one probe and compares its answer with the contract. */
const probeOne = Effect.fnUntraced(function* (
  client: HttpClient.HttpClient,
  probe: Probe,
  hosts: Readonly<Record<HostName, string>>,
  apiKey: string | undefined,
  timeout: Duration.Duration
) {
  const host = GroupHosts.get(probe.group)!
  const request = requestOf(probe, hosts[host], apiKey)
  const line = { endpoint: `${probe.group}.${probe.endpoint}`, host, method: request.method, url: urlOf(request) }
  const answered = yield* client.execute(request).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text) => ({
        status: response.status,
        headers: response.headers as Readonly<Record<string, string>>,
        text
      }))
    ),
    Effect.timeout(timeout),
    Effect.result
  )
  if (answered._tag === "Failure") {
    return { ...line, verdict: "unreachable", differences: [], reason: reasonOf(answered.failure) } as EndpointReport
  }
  const comparison = yield* compare(probe.group, probe.endpoint, request, answered.success)
  return comparison._tag === "AsDeclared"
    ? ({
        ...line,
        verdict: "as-declared",
        status: comparison.status,
        declaredError: comparison.declaredError,
        differences: []
      } as EndpointReport)
    : ({
        ...line,
        verdict: "differs",
        status: comparison.status,
        differences: comparison.differences
      } as EndpointReport)
})

/** Every probe against `options.hosts` (the production hosts by default), four at a time. */
export const run = Effect.fn("Doctor.run")(function* (options: DoctorOptions = {}) {
  const client = yield* HttpClient.HttpClient
  const given = options.hosts ?? {}
  const hosts = Object.fromEntries(
    HostNames.map((name) => [name, (given[name] ?? ProductionHosts[name]).replace(/\/+$/, "")])
  ) as Record<HostName, string>
  const apiKey =
    options.apiKey === undefined
      ? undefined
      : Redacted.value(Redacted.isRedacted(options.apiKey) ? options.apiKey : Redacted.make(options.apiKey))
  const timeout = Duration.millis(options.timeoutMillis ?? 10_000)
  const endpoints = yield* Effect.forEach(
    probes(options.cid ?? UnknownCid),
    (probe) => probeOne(client, probe, hosts, apiKey, timeout),
    { concurrency: 4 }
  )
  return {
    hosts,
    authenticated: apiKey !== undefined,
    endpoints,
    healthy: endpoints.every((line) => line.verdict === "as-declared")
  } satisfies DoctorReport as DoctorReport
})

/** A report as lines for a person: one per endpoint, then one per difference. */
export const describeReport = (report: DoctorReport): ReadonlyArray<string> =>
  report.endpoints.flatMap((line) => {
    const head = `${line.endpoint}  ${line.method} ${line.url}`
    if (line.verdict === "unreachable") return [`${head}  unreachable: ${line.reason ?? "no answer"}`]
    if (line.verdict === "as-declared") return [`${head}  ${line.status}  as declared`]
    return [
      `${head}  ${line.status}  differs`,
      ...line.differences.map((d) => `  ${d.field}: ${JSON.stringify(d.value) ?? "undefined"} (${d.problem})`)
    ]
  })
