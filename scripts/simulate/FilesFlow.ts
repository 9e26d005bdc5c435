/**
 * Flow `files`: what the API knows about an uploaded file. Its record (`fileInfo`), its deals
 * (none at first, so no proof yet: the typed `ProofNotFound`), then, once the network has made
 * deals for it (`simulateDeal`, standing in for the storage providers), the deals and their PoDSI
 * proof.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Files } from "lighthouse-effect"
import { mock } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, refused, step } from "./Step.ts"

export const files: Flow = {
  name: "files",
  title: "file info, deal status and proof of a stored file",
  needs: ["upload"],
  run: Effect.gen(function* () {
    const api = yield* Files.Files
    const file = yield* need("file")

    yield* step(
      "files.fileInfo",
      "file info",
      api.fileInfo(file.cid),
      (info) =>
        `${info.fileName}, ${Format.bytes(Number(info.fileSizeInBytes))}, ${info.mimeType ?? "no type"}, ` +
        `encrypted: ${info.encryption}`
    )

    yield* step(
      "files.dealStatus.none",
      "deal status before any deal",
      Effect.tap(api.dealStatus(file.cid), (deals) => check(deals.length === 0, `${deals.length} deals already`)),
      () => "no deals yet"
    )

    yield* refused("files.proof.missing", "no proof before a deal", api.proof(file.cid), "ProofNotFound")

    yield* step(
      "mock.simulateDeal",
      "storage providers make deals",
      mock((network) => network.simulateDeal(file.cid, { copies: 2 })),
      (deals) => `simulateDeal: ${deals.length} deals`
    )

    yield* step(
      "files.dealStatus",
      "deal status",
      Effect.tap(api.dealStatus(file.cid), (deals) =>
        check(deals.length === 2, `expected 2 deals, got ${deals.length}`)
      ),
      (deals) => deals.map((d) => `deal ${d.DealID} with ${d.Provider} (${d.dealStatus ?? "?"})`).join(", ")
    )

    yield* step(
      "files.proof",
      "proof of data segment inclusion",
      api.proof(file.cid),
      (proof) =>
        `piece ${proof.pieceCID.slice(0, 16)}…, ${proof.dealInfo.length} deal proofs ` +
        `(${proof.dealInfo.map((d) => `#${d.dealId}`).join(", ")})`
    )
  })
}
