/**
 * PDP (Proof of Data Possession) deals: a storage provider keeps a hot, provable copy of a file.
 *
 * - `GET /api/lighthouse/pdp_deal_request?cid=` with the API key asks for one. The provider limits
 *   it to files of 100 MB, so the file's size is read first (`file_info`) and a bigger file is the
 *   typed `PdpSizeLimitExceeded` before any deal request.
 * - `GET /api/lighthouse/pdp_deal_status?cid=` (no key) lists the deals with their root CID,
 *   download URL and transaction hash once made.
 * - The provider says a deal shows up about 20 minutes after the request: `awaitPdpDeal` polls the
 *   status on a `Schedule` until a completed deal is listed, or fails with `PdpDealTimedOut`.
 *
 * The provider's own SDK has none of these; see docs/PROTOCOL.md#pdp-deals.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { PdpDealTimedOut, PdpSizeLimitExceeded } from "../Errors.ts"
import { type Hosts, json } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import { Routes } from "../routes/Routes.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Credential } from "../schema/Credential.ts"
import { type AwaitPdpDealOptions, type CompletedPdpDeal, PdpDeal } from "./Models.ts"
import { fileInfo } from "./Records.ts"

/** The largest file a PDP deal takes, in bytes (the provider's "100 MB", read as 100 MiB). */
export const PdpSizeLimit = 100 * 1024 * 1024

export const isCompleted = (deal: PdpDeal): deal is CompletedPdpDeal =>
  deal.dealStatus === "completed" && deal.transactionDetails !== undefined

/** Asks for a PDP deal of a stored file; refuses, before asking, a file over {@link PdpSizeLimit}. */
export const requestPdpDeal = Effect.fn("Files.requestPdpDeal")(function* (
  hosts: Hosts,
  apiKey: Credential,
  cid: string
) {
  const valid = yield* parseCid(cid)
  const info = yield* fileInfo(hosts, valid)
  const size = Number(info.fileSizeInBytes)
  if (size > PdpSizeLimit) return yield* new PdpSizeLimitExceeded({ cid: valid, size, limit: PdpSizeLimit })
  const response = yield* hosts.api.execute(
    HttpClientRequest.get(Routes.files.pdpDealRequest.path, { urlParams: { cid: valid } }).pipe(
      withBearer(apiKey),
      HttpClientRequest.acceptJson
    )
  )
  // The provider answers a bare `Success`; what it says is of no further use.
  yield* Effect.ignore(response.text)
})

/** The PDP deals of a CID; empty until one is made. */
export const pdpDealStatus = Effect.fn("Files.pdpDealStatus")(function* (hosts: Hosts, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.files.pdpDealStatus.path, { urlParams: { cid: valid } }).pipe(
      HttpClientRequest.acceptJson
    ),
    Schema.Array(PdpDeal)
  )
})

/** Reads the status every `interval` until a completed deal is listed; that deal. */
export const awaitPdpDeal = Effect.fn("Files.awaitPdpDeal")(function* (
  hosts: Hosts,
  cid: string,
  options?: AwaitPdpDealOptions
) {
  const valid = yield* parseCid(cid)
  const timeout = Duration.fromInputUnsafe(options?.timeout ?? "40 minutes")
  const deals = yield* pdpDealStatus(hosts, valid).pipe(
    Effect.repeat({
      schedule: Schedule.spaced(options?.interval ?? "1 minute"),
      until: (listed) => listed.some(isCompleted)
    }),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(new PdpDealTimedOut({ cid: valid, waitedMillis: Duration.toMillis(timeout) }))
    })
  )
  return deals.find(isCompleted)!
})
