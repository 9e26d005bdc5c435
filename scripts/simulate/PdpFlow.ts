/**
 * Flow `pdp`: a PDP deal (a provable hot copy with a storage provider), a call the provider's SDK
 * does not have. The owner asks for a deal of the uploaded file; nothing is listed at first; the
 * network's clock moves the 20 minutes the provider announces; the library's schedule-based wait
 * then returns the completed deal with its root CID, download URL and transaction hash.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Files } from "lighthouse-effect"
import { Env } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import { need } from "./Session.ts"
import { check, step } from "./Step.ts"

/** How long the provider says a PDP deal takes to show up. */
const announcedDelayMs = 20 * 60 * 1000

export const pdp: Flow = {
  name: "pdp",
  title: "PDP deal: request, none at first, the wait for it once the clock moved",
  needs: ["upload"],
  run: Effect.gen(function* () {
    const { advanceClock } = yield* Env
    const files = yield* Files.Files
    const apiKey = yield* need("apiKey")
    const file = yield* need("file")

    yield* step(
      "files.requestPdpDeal",
      "ask for a PDP deal (size checked first: at most 100 MB)",
      files.requestPdpDeal(apiKey, file.cid),
      () => `${file.name}: requested`
    )
    yield* step(
      "files.pdpDealStatus.none",
      "PDP deal status right after",
      Effect.tap(files.pdpDealStatus(file.cid), (deals) => check(deals.length === 0, `${deals.length} deals already`)),
      () => "no deal yet"
    )
    yield* step(
      "mock.advanceClock",
      "20 minutes pass on the network",
      Effect.sync(() => advanceClock(announcedDelayMs)),
      () => "clock moved 20 min"
    )
    yield* step(
      "files.awaitPdpDeal",
      "wait for the deal (Schedule-based polling)",
      Effect.tap(files.awaitPdpDeal(file.cid, { interval: "50 millis", timeout: "10 seconds" }), (deal) =>
        check(deal.transactionDetails.RootCID === file.cid, `root ${deal.transactionDetails.RootCID}`)
      ),
      (deal) =>
        `${deal.dealStatus}, tx ${deal.transactionDetails.TXHash.slice(0, 10)}…, ${deal.transactionDetails.DownloadURL}`
    )
  })
}
