/**
 * Pay-per-upload over x402, scheme `exact`, in either of the provider's route sets
 * (`routes`): `documented`, its documentation's `POST {api}/api/x402/upload` (multipart, x402
 * version 1), or `current`, its x402 server's `POST {api}/api/upload` (the file as the raw body,
 * `x-file-name`, x402 version 2; https://github.com/lighthouse-web3/x402). The version spoken is
 * the one the `402` speaks, whichever route asked (`X402Wire.ts`):
 *
 * 1. The file goes up without payment; the network answers `402` with its payment requirements
 *    (amount, asset and its EIP-712 domain, payee, network, longest validity), in its JSON body
 *    (version 1) or in `PAYMENT-REQUIRED` (version 2).
 * 2. The requirements are checked against what the caller allows (`X402Terms.ts`: the network, the
 *    token, a ceiling on the amount, a cap on the validity window; malformed terms refused), the
 *    same for both versions. Only then does the caller's viem account sign an EIP-3009
 *    `TransferWithAuthorization` for the price (or for the amount the caller gives), with a fresh
 *    random nonce. `quote` stops before signing and says what would be paid.
 * 3. The file goes up again with the authorisation in `X-PAYMENT` (version 1) or
 *    `PAYMENT-SIGNATURE` (version 2); the network verifies and settles it on chain, stores the
 *    file and answers with the settlement in `X-PAYMENT-RESPONSE` or `PAYMENT-RESPONSE`.
 *
 * A refusal before signing is `X402WrongNetwork`, `X402WrongAsset`, `X402PriceAboveMaximum`,
 * `X402WindowTooLong` or `X402MalformedTerms`; a refusal of the paid request is `X402Underpaid`,
 * `X402AuthorizationExpired`, `X402AuthorizationReplayed`, `X402InsufficientFunds`, or
 * `X402PaymentRefused` with the x402 reason. The wire format is in
 * docs/PROTOCOL.md#x402-pay-per-upload and
 * #x402-version-2-the-providers-current-x402-server.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Schema from "effect/Schema"
import { type Address, type Hex, toHex } from "viem"
import {
  InvalidArgument,
  InvalidResponse,
  RequestTimedOut,
  SignerError,
  X402AuthorizationExpired,
  X402AuthorizationReplayed,
  X402InsufficientFunds,
  X402PaymentRefused,
  X402Underpaid
} from "../Errors.ts"
import * as Hosts from "../internal/Hosts.ts"
import { fromHttpClientError, statusError } from "../internal/http.ts"
import { Routes } from "../routes/Routes.ts"
import { UploadedEntry } from "../upload/Response.ts"
import type { X402PriceInput, X402QuoteInput, X402Routes, X402UploadInput } from "./Models.ts"
import { X402PriceQuote } from "./X402Price.ts"
import { chooseTerms, expectation, type X402Expectation, type X402Offer, type X402Terms } from "./X402Terms.ts"
import {
  paymentHeader,
  readPaymentRequired,
  readSettlement,
  refusalReason,
  type X402Resource,
  type X402Settlement
} from "./X402Wire.ts"

export { type X402Limits, X402Requirements, X402RequirementsV2, type X402Terms } from "./X402Terms.ts"
export { X402PaymentRequired, X402PaymentRequiredV2, X402Settlement } from "./X402Wire.ts"

/** What a quote gives: the checked terms a paid upload would sign; nothing is signed yet. */
export type X402Quote = X402Terms

/** The current server's answer to a paid upload. */
export const X402StoredFile = Schema.Struct({
  success: Schema.Boolean,
  cid: Schema.String,
  fileName: Schema.String,
  mimeType: Schema.String,
  fileSizeBytes: Schema.Number,
  /** The payer's address, the file's owner. */
  publicKey: Schema.String,
  ipfsUrl: Schema.String,
  /** The record id a renewal names (`x402Renew`), on the provider's `walrus-main`. */
  id: Schema.optional(Schema.String),
  /** Until when (ms since the epoch) the file is paid for, on `walrus-main`. */
  expiresAt: Schema.optional(Schema.Number),
  storagePeriodDays: Schema.optional(Schema.Number)
}).annotate({ identifier: "X402StoredFile" })
export type X402StoredFile = typeof X402StoredFile.Type

/** What a paid upload gives back: the stored entry, the settlement, and what was paid. */
export interface X402UploadResult {
  /** The stored file as `{ Name, Hash, Size }` (from the current route: its name, CID and size in bytes). */
  readonly entry: UploadedEntry
  /** The current route's whole answer (owner, MIME type, gateway URL); absent from the documented route. */
  readonly stored?: X402StoredFile | undefined
  readonly settlement: X402Settlement
  readonly paid: {
    readonly amount: bigint
    readonly asset: Address
    readonly nonce: Hex
    /** The x402 version of the payment header sent. */
    readonly x402Version: 1 | 2
  }
}

/** What the x402 operations need: the hosts, and the bare client (a `402` is an answer here, with its headers). */
export interface X402Deps {
  readonly hosts: Hosts.Hosts
  readonly client: HttpClient.HttpClient
}

/** The EIP-3009 typed data a payer signs (the fields of `transferWithAuthorization`). */
export const TransferWithAuthorization = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" }
] as const

/** The provider's routes: its documentation's (version 1), or its x402 server's today. */
export const x402UploadPaths: Readonly<Record<X402Routes, string>> = {
  documented: Routes.x402.upload.path,
  current: Routes.x402Current.upload.path
}

/** The route set used when the caller names none: the documented one, which this library first spoke. */
export const defaultX402Routes: X402Routes = "documented"

const fileNameOf = (input: X402QuoteInput) =>
  input.fileName ?? (input.file instanceof File ? input.file.name : "upload")

const uploadRequest = (
  input: X402QuoteInput,
  bytes: Uint8Array | undefined,
  payment?: { readonly name: string; readonly value: string }
) => {
  const request =
    bytes !== undefined
      ? // The raw body, whole: its length goes as Content-Length, which the server prices, with every client.
        HttpClientRequest.post(x402UploadPaths.current).pipe(
          HttpClientRequest.bodyUint8Array(
            bytes,
            input.file.type === "" ? "application/octet-stream" : input.file.type
          ),
          HttpClientRequest.setHeader("x-file-name", fileNameOf(input))
        )
      : HttpClientRequest.post(x402UploadPaths.documented).pipe(HttpClientRequest.bodyFormData(multipart(input)))
  return payment === undefined ? request : HttpClientRequest.setHeader(request, payment.name, payment.value)
}

/** The routes an upload goes to: the call's, else the configuration's (`x402Routes`). */
const routesOf = (deps: X402Deps, input: X402QuoteInput): X402Routes => input.routes ?? deps.hosts.config.x402Routes

/** The file's bytes for the current route (read once, sent twice); nothing for the documented route. */
const rawBody = (routes: X402Routes, input: X402QuoteInput) =>
  routes === "current"
    ? Effect.promise(() => input.file.arrayBuffer()).pipe(Effect.map((buffer) => new Uint8Array(buffer)))
    : Effect.succeed(undefined)

const multipart = (input: X402QuoteInput) => {
  const form = new FormData()
  form.append("file", input.file, fileNameOf(input))
  return form
}

/**
 * Sends `request` to the API host; a `402` is an answer here, not a failure: its body or its
 * `PAYMENT-REQUIRED` header says what to pay. Any other non-2xx is `RequestFailed`.
 */
export const send = Effect.fnUntraced(function* (deps: X402Deps, request: HttpClientRequest.HttpClientRequest) {
  const prepared = yield* deps.hosts.api.preprocess(request)
  const where = Hosts.urlOf(prepared)
  const timeout = deps.hosts.config.transferTimeout
  const response = yield* deps.client.execute(prepared).pipe(
    Effect.catchTag("HttpClientError", (e) => Effect.fail(fromHttpClientError(e, where))),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(
          new RequestTimedOut({ method: request.method, url: where, timeoutMillis: Duration.toMillis(timeout) })
        )
    })
  )
  if (response.status === 402 || (response.status >= 200 && response.status < 300)) return { response, where }
  const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
  return yield* statusError("request-failed", response.status, where, text, request.method)
})

/** Who signs a payment, and the amount and nonce the caller may fix. */
export type X402Payer = Pick<X402UploadInput, "account" | "amount" | "nonce">

/** The signed authorisation for `terms`, in the header of the version the network spoke. */
export const authorize = Effect.fnUntraced(function* (
  input: X402Payer,
  terms: X402Terms,
  offer: X402Offer,
  resource: X402Resource | undefined
) {
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
  return { header: paymentHeader(offer, resource, { signature, authorization }), message }
})

/** A refusal of the paid request as its typed error. */
export const refusal = (
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
export const amountWithinCeiling = (input: X402Payer, expected: X402Expectation, method = "payment.x402Upload") =>
  input.amount !== undefined && input.amount > expected.maxAmount
    ? Effect.fail(
        new InvalidArgument({
          method,
          detail: `amount ${input.amount} is above maxAmount ${expected.maxAmount}`
        })
      )
    : Effect.void

/** Sends the unpaid upload and checks the `402`'s terms (either version) against what the caller allows. */
const askTerms = Effect.fnUntraced(function* (
  deps: X402Deps,
  input: X402QuoteInput,
  bytes: Uint8Array | undefined,
  expected: X402Expectation
) {
  const { response, where } = yield* send(deps, uploadRequest(input, bytes))
  if (response.status !== 402)
    return yield* new InvalidResponse({ url: where, detail: `expected 402, got ${response.status}` })
  const asked = yield* readPaymentRequired(response, where)
  const { terms, offer } = yield* chooseTerms(asked.offers, expected)
  return { terms, offer, resource: asked.resource, where }
})

/** What an x402 upload of `input.file` would pay, checked as `upload` checks it; nothing is signed or stored. */
export const quote = Effect.fn("Payment.x402Quote")(function* (deps: X402Deps, input: X402QuoteInput) {
  const expected = yield* expectation("payment.x402Quote", input)
  const { terms } = yield* askTerms(deps, input, yield* rawBody(routesOf(deps, input), input), expected)
  const quoted: X402Quote = terms
  return quoted
})

/** The stored entry from a paid answer: the documented route's `{ Name, Hash, Size }`, or the current route's file. */
const storedEntry = (routes: X402Routes, response: HttpClientResponse.HttpClientResponse, where: string) => {
  const invalid = (e: { readonly message: string }) => new InvalidResponse({ url: where, detail: e.message })
  return routes === "current"
    ? response.json.pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(X402StoredFile)),
        Effect.flatMap((stored) =>
          Schema.decodeUnknownEffect(UploadedEntry)({
            Name: stored.fileName,
            Hash: stored.cid,
            Size: String(stored.fileSizeBytes)
          }).pipe(Effect.map((entry) => ({ entry, stored })))
        ),
        Effect.mapError(invalid)
      )
    : response.json.pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(UploadedEntry)),
        Effect.map((entry) => ({ entry, stored: undefined })),
        Effect.mapError(invalid)
      )
}

/** Uploads a file paid for with an x402 payment signed by `input.account`, within the caller's limits. */
export const upload = Effect.fn("Payment.x402Upload")(function* (deps: X402Deps, input: X402UploadInput) {
  const expected = yield* expectation("payment.x402Upload", input)
  yield* amountWithinCeiling(input, expected)
  const routes = routesOf(deps, input)
  const bytes = yield* rawBody(routes, input)
  const { terms, offer, resource, where } = yield* askTerms(deps, input, bytes, expected)
  const { header, message } = yield* authorize(input, terms, offer, resource)
  yield* Effect.annotateCurrentSpan({
    amount: String(message.value),
    network: terms.network,
    x402Version: terms.x402Version
  })

  const paid = yield* send(deps, uploadRequest(input, bytes, header))
  if (paid.response.status === 402) return yield* refusal(yield* refusalReason(paid.response, where), terms, message)
  const settlement = yield* readSettlement(paid.response, where)
  const { entry, stored } = yield* storedEntry(routes, paid.response, where)
  const result: X402UploadResult = {
    entry,
    stored,
    settlement,
    paid: { amount: message.value, asset: terms.asset, nonce: message.nonce, x402Version: terms.x402Version }
  }
  return result
})

/** The provider's price for an upload of `input.size` bytes, from its price route (`GET /api/upload/price?size=`). */
export const price = Effect.fn("Payment.x402Price")(function* (deps: X402Deps, input: X402PriceInput) {
  const request = HttpClientRequest.get(Routes.x402Current.price.path).pipe(
    HttpClientRequest.setUrlParam("size", String(input.size))
  )
  const where = yield* Hosts.resolvedUrl(deps.hosts.api, request)
  const response = yield* deps.hosts.api.execute(request)
  return yield* response.json.pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(X402PriceQuote)),
    Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message }))
  )
})
