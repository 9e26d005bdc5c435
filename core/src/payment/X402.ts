/**
 * Pay-per-upload over x402 (`POST {api}/api/x402/upload`), protocol version 1, scheme `exact`:
 *
 * 1. The file goes up without payment; the network answers `402` with its payment requirements
 *    (amount, asset and its EIP-712 domain, payee, network, longest validity).
 * 2. The requirements are checked against what the caller allows (`X402Terms.ts`: the network, the
 *    token, a ceiling on the amount, a cap on the validity window; malformed terms refused). Only
 *    then does the caller's viem account sign an EIP-3009 `TransferWithAuthorization` for the price
 *    (or for the amount the caller gives), with a fresh random nonce. `quote` stops before signing
 *    and says what would be paid.
 * 3. The file goes up again with the authorisation in `X-PAYMENT` (base64 of JSON); the network
 *    verifies and settles it on chain, stores the file and answers its entry with
 *    `X-PAYMENT-RESPONSE` (base64 of `{ success, transaction, network, payer }`).
 *
 * A refusal before signing is `X402WrongNetwork`, `X402WrongAsset`, `X402PriceAboveMaximum`,
 * `X402WindowTooLong` or `X402MalformedTerms`; a refusal of the paid request is `X402Underpaid`,
 * `X402AuthorizationExpired`, `X402AuthorizationReplayed`, `X402InsufficientFunds`, or
 * `X402PaymentRefused` with the x402 reason. The wire format is in
 * docs/PROTOCOL.md#x402-pay-per-upload.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type Address, type Hex, toHex } from "viem"
import {
  InvalidArgument,
  InvalidResponse,
  type RequestFailed,
  SignerError,
  X402AuthorizationExpired,
  X402AuthorizationReplayed,
  X402InsufficientFunds,
  X402PaymentRefused,
  X402Underpaid
} from "../Errors.ts"
import * as Hosts from "../internal/Hosts.ts"
import { UploadedEntry } from "../upload/Response.ts"
import type { X402QuoteInput, X402UploadInput } from "./Models.ts"
import { chooseTerms, expectation, type X402Expectation, X402Requirements, type X402Terms } from "./X402Terms.ts"

export { type X402Limits, X402Requirements, type X402Terms } from "./X402Terms.ts"

/** The body of a `402`: why, and what would be accepted. */
export const X402PaymentRequired = Schema.Struct({
  x402Version: Schema.Number,
  error: Schema.String,
  accepts: Schema.Array(X402Requirements)
}).annotate({ identifier: "X402PaymentRequired" })

/** `X-PAYMENT-RESPONSE`: the settlement. */
export const X402Settlement = Schema.Struct({
  success: Schema.Boolean,
  transaction: Schema.String,
  network: Schema.String,
  payer: Schema.String
}).annotate({ identifier: "X402Settlement" })
export type X402Settlement = typeof X402Settlement.Type

/** What a quote gives: the checked terms a paid upload would sign; nothing is signed yet. */
export type X402Quote = X402Terms

/** What a paid upload gives back: the stored entry, the settlement, and what was paid. */
export interface X402UploadResult {
  readonly entry: UploadedEntry
  readonly settlement: X402Settlement
  readonly paid: { readonly amount: bigint; readonly asset: Address; readonly nonce: Hex }
}

const decodeBase64Json = <A, I>(schema: Schema.Codec<A, I>, text: string, where: string) =>
  Effect.try({
    try: () => JSON.parse(Result.getOrThrow(Base64.decodeString(text))) as unknown,
    catch: () => new InvalidResponse({ url: where, detail: "not base64 of JSON" })
  }).pipe(
    Effect.flatMap((value) =>
      Schema.decodeUnknownEffect(schema)(value).pipe(
        Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message }))
      )
    )
  )

/** The EIP-3009 typed data a payer signs (the fields of `transferWithAuthorization`). */
export const TransferWithAuthorization = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" }
] as const

const uploadPath = "/api/x402/upload"

const uploadRequest = (input: X402QuoteInput, payment?: string) => {
  const form = new FormData()
  const name = input.fileName ?? (input.file instanceof File ? input.file.name : "upload")
  form.append("file", input.file, name)
  const request = HttpClientRequest.post(uploadPath).pipe(HttpClientRequest.bodyFormData(form))
  return payment === undefined ? request : HttpClientRequest.setHeader(request, "x-payment", payment)
}

/** Sends the request to the API host; a 402 is an answer here, not a failure: its body says what to pay. */
const send = (hosts: Hosts.Hosts, request: HttpClientRequest.HttpClientRequest) =>
  hosts.api.execute(request).pipe(
    Effect.map((response): HttpClientResponse.HttpClientResponse | { readonly paymentRequired: string } => response),
    Effect.catchIf(
      (e): e is RequestFailed => e._tag === "RequestFailed" && e.status === 402,
      (e) => Effect.succeed({ paymentRequired: e.body ?? "" })
    )
  )

const paymentRequiredOf = (body: string, where: string) =>
  Effect.try({
    try: () => JSON.parse(body) as unknown,
    catch: () => new InvalidResponse({ url: where, detail: "402 without a JSON body" })
  }).pipe(
    Effect.flatMap((value) =>
      Schema.decodeUnknownEffect(X402PaymentRequired)(value).pipe(
        Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message }))
      )
    )
  )

/** The signed authorisation for `terms`, as `X-PAYMENT` carries it. */
const authorize = Effect.fnUntraced(function* (input: X402UploadInput, terms: X402Terms) {
  const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const message = {
    from: input.account.address,
    to: terms.payTo,
    value: input.amount ?? terms.amount,
    // A little slack before now: the chain's clock may lag the caller's.
    validAfter: BigInt(Math.max(0, nowSeconds - 600)),
    validBefore: BigInt(nowSeconds + terms.maxTimeoutSeconds),
    nonce: input.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32)))
  }
  const signature = yield* Effect.tryPromise({
    try: () =>
      input.account.signTypedData({
        domain: { ...terms.token, chainId: terms.chainId, verifyingContract: terms.asset },
        types: { TransferWithAuthorization },
        primaryType: "TransferWithAuthorization",
        message
      }),
    catch: (cause) => new SignerError({ operation: "signTypedData", cause })
  })
  const authorization = {
    ...message,
    value: String(message.value),
    validAfter: String(message.validAfter),
    validBefore: String(message.validBefore)
  }
  const header = Base64.encode(
    JSON.stringify({ x402Version: 1, scheme: "exact", network: terms.network, payload: { signature, authorization } })
  )
  return { header, message }
})

/** A refusal of the paid request as its typed error. */
const refusal = (
  reason: string,
  terms: X402Terms,
  message: { readonly from: Address; readonly value: bigint; readonly validBefore: bigint; readonly nonce: Hex }
) => {
  switch (reason) {
    case "invalid_exact_evm_payload_authorization_value":
      return new X402Underpaid({ amount: String(message.value), required: String(terms.amount) })
    case "invalid_exact_evm_payload_authorization_valid_before":
    case "invalid_exact_evm_payload_authorization_valid_after":
      return new X402AuthorizationExpired({ validBefore: String(message.validBefore) })
    case "authorization_already_used":
      return new X402AuthorizationReplayed({ nonce: message.nonce })
    case "insufficient_funds":
      return new X402InsufficientFunds({ payer: message.from, required: String(message.value) })
    default:
      return new X402PaymentRefused({ reason })
  }
}

/** An `amount` above the caller's own ceiling is a mistake caught before any request. */
const amountWithinCeiling = (input: X402UploadInput, expected: X402Expectation) =>
  input.amount !== undefined && input.amount > expected.maxAmount
    ? Effect.fail(
        new InvalidArgument({
          method: "payment.x402Upload",
          detail: `amount ${input.amount} is above maxAmount ${expected.maxAmount}`
        })
      )
    : Effect.void

/** Sends the unpaid upload and checks the `402`'s terms against what the caller allows. */
const askTerms = Effect.fnUntraced(function* (hosts: Hosts.Hosts, input: X402QuoteInput, expected: X402Expectation) {
  const first = uploadRequest(input)
  const where = yield* Hosts.resolvedUrl(hosts.api, first)
  const asked = yield* send(hosts, first)
  if (!("paymentRequired" in asked))
    return yield* new InvalidResponse({ url: where, detail: `expected 402, got ${asked.status}` })
  const required = yield* paymentRequiredOf(asked.paymentRequired, where)
  const terms = yield* chooseTerms(required.accepts, expected)
  return { terms, where }
})

/** What an x402 upload of `input.file` would pay, checked as `upload` checks it; nothing is signed or stored. */
export const quote = Effect.fn("Payment.x402Quote")(function* (hosts: Hosts.Hosts, input: X402QuoteInput) {
  const expected = yield* expectation("payment.x402Quote", input)
  const { terms } = yield* askTerms(hosts, input, expected)
  const quoted: X402Quote = terms
  return quoted
})

/** Uploads a file paid for with an x402 payment signed by `input.account`, within the caller's limits. */
export const upload = Effect.fn("Payment.x402Upload")(function* (hosts: Hosts.Hosts, input: X402UploadInput) {
  const expected = yield* expectation("payment.x402Upload", input)
  yield* amountWithinCeiling(input, expected)
  const { terms, where } = yield* askTerms(hosts, input, expected)
  const { header, message } = yield* authorize(input, terms)
  yield* Effect.annotateCurrentSpan({ amount: String(message.value), network: terms.network })

  const paid = yield* send(hosts, uploadRequest(input, header))
  if ("paymentRequired" in paid) {
    const refused = yield* paymentRequiredOf(paid.paymentRequired, where)
    return yield* refusal(refused.error, terms, message)
  }
  const receipt = paid.headers["x-payment-response"]
  if (receipt === undefined) return yield* new InvalidResponse({ url: where, detail: "no X-PAYMENT-RESPONSE header" })
  const settlement = yield* decodeBase64Json(X402Settlement, receipt, where)
  const entry = yield* paid.json.pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(UploadedEntry)),
    Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message }))
  )
  const result: X402UploadResult = {
    entry,
    settlement,
    paid: { amount: message.value, asset: terms.asset, nonce: message.nonce }
  }
  return result
})
