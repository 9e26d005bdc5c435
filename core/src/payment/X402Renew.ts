/**
 * Renewing a year of Walrus storage over x402, on the provider's `walrus-main` x402 server
 * (https://github.com/lighthouse-web3/x402, `src/routes/renew.ts`): a paid upload there answers its
 * record `id` and `expiresAt`; `POST {api}/api/renew` with the id in `x-file-id` is priced by the
 * file's Walrus-encoded size (`x402RenewPriceOf`), paid like an upload (the `402`'s version, the
 * caller's network, asset, ceiling and window checked before anything is signed), and, once
 * settled, moves the expiry a year past the later of itself and now. Only the original uploader
 * may renew: another payer's verified payment is refused `403` and not settled (`RequestFailed`
 * with the provider's text). `GET {api}/api/renew/price?id=` says the price and the current expiry.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Schema from "effect/Schema"
import type { Address, Hex } from "viem"
import { InvalidResponse } from "../Errors.ts"
import * as Hosts from "../internal/Hosts.ts"
import { Routes } from "../routes/Routes.ts"
import type { X402RenewInput, X402RenewPriceInput } from "./Models.ts"
import { amountWithinCeiling, authorize, refusal, send, type X402Deps } from "./X402.ts"
import { chooseTerms, expectation } from "./X402Terms.ts"
import { readPaymentRequired, readSettlement, refusalReason, type X402Settlement } from "./X402Wire.ts"

/** The renewal price route's answer. */
export const X402RenewQuote = Schema.Struct({
  id: Schema.String,
  cid: Schema.String,
  fileName: Schema.String,
  fileSizeBytes: Schema.Number,
  fileSizeMB: Schema.Number,
  encodedSizeBytes: Schema.Number,
  encodedSizeMiB: Schema.Number,
  billableMiB: Schema.Number,
  /** Dollars per MiB of encoded size per year, as `$0.0005`. */
  pricePerMB: Schema.String,
  facilitatorFee: Schema.String,
  /** Dollars with 6 decimals, as `$0.033001`. */
  totalPrice: Schema.String,
  storagePeriodDays: Schema.Number,
  /** Until when (ms since the epoch) the file is paid for; `null` before its first payment settled. */
  currentExpiresAt: Schema.NullOr(Schema.Number),
  network: Schema.String,
  payTo: Schema.String
}).annotate({ identifier: "X402RenewQuote" })
export type X402RenewQuote = typeof X402RenewQuote.Type

/** The renewal route's answer once paid. */
export const X402Renewal = Schema.Struct({
  success: Schema.Boolean,
  id: Schema.String,
  cid: Schema.String,
  fileName: Schema.String,
  fileSizeBytes: Schema.Number,
  previousExpiresAt: Schema.Number,
  expiresAt: Schema.Number,
  storagePeriodDays: Schema.Number,
  publicKey: Schema.String
}).annotate({ identifier: "X402Renewal" })
export type X402Renewal = typeof X402Renewal.Type

/** What a renewal gives back: the new expiry, the settlement, and what was paid. */
export interface X402RenewResult {
  readonly renewal: X402Renewal
  readonly settlement: X402Settlement
  readonly paid: { readonly amount: bigint; readonly asset: Address; readonly nonce: Hex; readonly x402Version: 1 | 2 }
}

const renewRequest = (id: string, payment?: { readonly name: string; readonly value: string }) => {
  const request = HttpClientRequest.post(Routes.x402Current.renew.path).pipe(
    HttpClientRequest.setHeader("x-file-id", id)
  )
  return payment === undefined ? request : HttpClientRequest.setHeader(request, payment.name, payment.value)
}

const decoded =
  <A, I>(schema: Schema.Codec<A, I>, where: string) =>
  (value: unknown) =>
    Schema.decodeUnknownEffect(schema)(value).pipe(
      Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message }))
    )

/** The provider's price for a year more of the file `input.id`, and its current expiry. */
export const renewPrice = Effect.fn("Payment.x402RenewPrice")(function* (deps: X402Deps, input: X402RenewPriceInput) {
  const request = HttpClientRequest.get(Routes.x402Current.renewPrice.path).pipe(
    HttpClientRequest.setUrlParam("id", input.id)
  )
  const where = yield* Hosts.resolvedUrl(deps.hosts.api, request)
  const response = yield* deps.hosts.api.execute(request)
  return yield* response.json.pipe(
    Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message })),
    Effect.flatMap(decoded(X402RenewQuote, where))
  )
})

/** Pays for a year more of the file `input.id` (its uploader's account signs), within the caller's limits. */
export const renew = Effect.fn("Payment.x402Renew")(function* (deps: X402Deps, input: X402RenewInput) {
  const expected = yield* expectation("payment.x402Renew", input)
  yield* amountWithinCeiling(input, expected, "payment.x402Renew")
  const asked = yield* send(deps, renewRequest(input.id))
  if (asked.response.status !== 402)
    return yield* new InvalidResponse({ url: asked.where, detail: `expected 402, got ${asked.response.status}` })
  const required = yield* readPaymentRequired(asked.response, asked.where)
  const { terms, offer } = yield* chooseTerms(required.offers, expected)
  const { header, message } = yield* authorize(input, terms, offer, required.resource)
  const paid = yield* send(deps, renewRequest(input.id, header))
  if (paid.response.status === 402)
    return yield* refusal(yield* refusalReason(paid.response, paid.where), terms, message)
  const settlement = yield* readSettlement(paid.response, paid.where)
  const renewal = yield* paid.response.json.pipe(
    Effect.mapError((e) => new InvalidResponse({ url: paid.where, detail: e.message })),
    Effect.flatMap(decoded(X402Renewal, paid.where))
  )
  const result: X402RenewResult = {
    renewal,
    settlement,
    paid: { amount: message.value, asset: terms.asset, nonce: message.nonce, x402Version: terms.x402Version }
  }
  return result
})
