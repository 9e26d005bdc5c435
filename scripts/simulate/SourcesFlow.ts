/**
 * Flow `sources`: a download from three gateways at once, none of them trusted. The mock network
 * serves three more gateways (`sourceGateways`); one is made to lie (a flipped byte in the last
 * block of each answer). Every block is checked against the CID as it arrives, so the liar is caught
 * at its lying block and dropped, the others serve the rest, and the report names each source
 * with the verified bytes it served and why it was dropped: first with `split` (ranges from all
 * three in parallel), then with `fallback` (one at a time, the liar first).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Download, Upload } from "lighthouse-effect"
import { Env, sourceGateways } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, step } from "./Step.ts"
import { pattern } from "./UploadFlow.ts"

/** 1 MiB: four 256 KiB blocks, so each source can serve some of them. */
const content = pattern(11, 1024 * 1024)
const [first, liar, last] = sourceGateways as [string, string, string]

/** A gateway's host, which says enough in a one-line report. */
const hostOf = (url: string) => new URL(url).host

/** `gw-a.example 512.0 KiB; gw-liar.example 0 B, dropped: lied: …`. */
const reportLine = (sources: ReadonlyArray<Download.SourceReport>) =>
  sources
    .map(
      (source) =>
        `${hostOf(source.gateway)} ${Format.bytes(source.bytes)}${source.dropped === undefined ? "" : `, dropped: ${source.dropped}`}`
    )
    .join("; ")

/** The download's bytes must be the content's, verified, with the liar dropped for lying. */
const checked = (retrieved: Download.Retrieved) =>
  Effect.gen(function* () {
    yield* check(
      retrieved.bytes.length === content.length && retrieved.bytes.every((byte, i) => byte === content[i]),
      "the bytes differ from what was sent"
    )
    yield* check(retrieved.verification.verified, "the download was not verified")
    const sources = retrieved.verification.sources ?? []
    const dropped = sources.find((source) => source.gateway === liar)?.dropped ?? "kept"
    yield* check(dropped.startsWith("lied: "), `the lying gateway was not dropped for lying (${dropped})`)
    return sources
  })

export const sources: Flow = {
  name: "sources",
  title: "a download from three gateways at once, one of them lying",
  needs: ["account"],
  run: Effect.gen(function* () {
    const apiKey = yield* need("apiKey")
    const { network } = yield* Env
    const download = yield* Download.Download
    const entry = yield* step(
      "upload.buffer.sources",
      "upload 1 MiB to read from several gateways",
      (yield* Upload.Upload).buffer(content, { apiKey, name: "shared.bin" }),
      (uploaded) =>
        `${uploaded.Hash} (${Format.bytes(content.length)}, served by ${sourceGateways.length} more gateways)`
    )

    yield* step(
      "mock.gateways.lie",
      "one gateway lies",
      Effect.sync(() =>
        network.gateways.find((gateway) => gateway.url === liar)!.faults.lie({ host: "gateway" }, "flip-byte")
      ),
      () => `${hostOf(liar)} flips a byte of the last block of each answer`
    )

    yield* step(
      "download.sources.split",
      "split over three gateways",
      Effect.flatMap(
        download.retrieve(entry.Hash, { sources: [first, liar, last], strategy: "split", rangeSize: 256 * 1024 }),
        checked
      ),
      (report) => `intact; ${reportLine(report)}`
    )

    yield* step(
      "download.sources.fallback",
      "fallback, the liar first",
      Effect.flatMap(download.retrieve(entry.Hash, { sources: [liar, first, last], strategy: "fallback" }), checked),
      (report) => `intact; ${reportLine(report)}`
    )
  })
}
