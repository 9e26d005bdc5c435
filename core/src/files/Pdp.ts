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
 * @since 0.3.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { PdpDealTimedOut, PdpSizeLimitExceeded } from "../Errors.ts"
import { type Hosts, json } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import type { Credential } from "../schema/Credential.ts"
import { parseCid } from "../schema/Cid.ts"
import { fileInfo } from "./Records.ts"

/** The largest file a PDP deal takes, in bytes (the provider's "100 MB", read as 100 MiB). */
export const PdpSizeLimit = 100 * 1024 * 1024

/** Where a completed PDP deal put the file. */
export const PdpTransaction = Schema.Struct({
  RootCID: Schema.String,
  /** The piece, as the storage provider serves it. */
  DownloadURL: Schema.String,
  /** The transaction that added the root to the proof set. */
  TXHash: Schema.String
}).annotate({ identifier: "PdpTransaction" })
export type PdpTransaction = typeof PdpTransaction.Type

/** One PDP deal of a CID (`GET /api/lighthouse/pdp_deal_status`). */
export const PdpDeal = Schema.Struct({
  id: Schema.String,
  cid: Schema.String,
  /** The requester's address, lower-cased. */
  publicKey: Schema.String,
  /** `completed` once the transaction is known. */
  dealStatus: Schema.String,
  /** ISO 8601 times. */
  createdAt: Schema.String,
  updatedAt: Schema.String,
  transactionDetails: Schema.optionalKey(PdpTransaction)
}).annotate({ identifier: "PdpDeal" })
export type PdpDeal = typeof PdpDeal.Type

/** A completed deal: its transaction details are there. */
export type CompletedPdpDeal = PdpDeal & { readonly transactionDetails: PdpTransaction }

export const isCompleted = (deal: PdpDeal): deal is CompletedPdpDeal =>
  deal.dealStatus === "completed" && deal.transactionDetails !== undefined

/** A time-out or interval as `Duration` takes it (`"1 minute"`, milliseconds, a `Duration`). */
const DurationInput = Schema.declare(
  (u: unknown): u is Duration.Input => Option.isSome(Duration.fromInput(u as Duration.Input)),
  { expected: "a duration" }
)

/**
 * How `awaitPdpDeal` polls: `interval` between two status reads (default 1 minute), `timeout` for
 * the whole wait (default 40 minutes; the provider announces about 20).
 *
 * @category schemas
 */
export const AwaitPdpDealOptions = Schema.Struct({
  interval: Schema.optional(DurationInput),
  timeout: Schema.optional(DurationInput)
})
/** @category models */
export type AwaitPdpDealOptions = typeof AwaitPdpDealOptions.Type

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
    HttpClientRequest.get("/api/lighthouse/pdp_deal_request", { urlParams: { cid: valid } }).pipe(
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
    HttpClientRequest.get("/api/lighthouse/pdp_deal_status", { urlParams: { cid: valid } }).pipe(
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
