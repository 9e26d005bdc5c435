/**
 * x402's HTTP wire, versions 1 and 2 (https://github.com/coinbase/x402, `specs/transports-v1/http.md`
 * and `specs/transports-v2/http.md`):
 *
 * | | version 1 | version 2 |
 * | --- | --- | --- |
 * | requirements (`402`) | JSON body `{ x402Version, error, accepts }` | base64 JSON in `PAYMENT-REQUIRED` `{ x402Version, error?, resource, accepts }` |
 * | payment | `X-PAYMENT`: `{ x402Version, scheme, network, payload }` | `PAYMENT-SIGNATURE`: `{ x402Version, resource, accepted, payload }` |
 * | settlement | `X-PAYMENT-RESPONSE` | `PAYMENT-RESPONSE` (also on a failed settlement, with `errorReason`) |
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidResponse } from "../Errors.ts"
import { offerOfV1, offerOfV2, type X402Offer, X402Requirements, X402RequirementsV2 } from "./X402Terms.ts"

/** The body of a version 1 `402`: why, and what would be accepted. */
export const X402PaymentRequired = Schema.Struct({
  x402Version: Schema.Number,
  error: Schema.String,
  accepts: Schema.Array(X402Requirements)
}).annotate({ identifier: "X402PaymentRequired" })

/** The resource a version 2 `402` is about. */
export const X402Resource = Schema.Struct({
  url: Schema.String,
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String)
}).annotate({ identifier: "X402Resource" })
export type X402Resource = typeof X402Resource.Type

/** `PAYMENT-REQUIRED`, decoded: version 2's requirements. */
export const X402PaymentRequiredV2 = Schema.Struct({
  x402Version: Schema.Literal(2),
  error: Schema.optional(Schema.String),
  resource: X402Resource,
  accepts: Schema.Array(X402RequirementsV2)
}).annotate({ identifier: "X402PaymentRequiredV2" })

/** `X-PAYMENT-RESPONSE` / `PAYMENT-RESPONSE`: the settlement. */
export const X402Settlement = Schema.Struct({
  success: Schema.Boolean,
  transaction: Schema.String,
  network: Schema.String,
  payer: Schema.optional(Schema.String),
  /** Why a settlement failed (version 2). */
  errorReason: Schema.optional(Schema.String)
}).annotate({ identifier: "X402Settlement" })
export type X402Settlement = typeof X402Settlement.Type

/** A `402` read in either version: the reason given and the offers, with version 2's resource. */
export interface X402Asked {
  readonly x402Version: 1 | 2
  readonly error: string
  readonly offers: ReadonlyArray<X402Offer>
  readonly resource?: X402Resource | undefined
}

const decodeTo = <A, I>(schema: Schema.Codec<A, I>, value: unknown, where: string) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError((e) => new InvalidResponse({ url: where, detail: e.message }))
  )

/** `text` padded to whole base64 quanta: some servers leave the `=` out. */
const padded = (text: string) => text.trim() + "=".repeat((4 - (text.trim().length % 4)) % 4)

/** Base64 of JSON, decoded with `schema`. */
export const decodeBase64Json = <A, I>(schema: Schema.Codec<A, I>, text: string, where: string) =>
  Effect.try({
    try: () => JSON.parse(Result.getOrThrow(Base64.decodeString(padded(text)))) as unknown,
    catch: () => new InvalidResponse({ url: where, detail: "not base64 of JSON" })
  }).pipe(Effect.flatMap((value) => decodeTo(schema, value, where)))

/** `value` as base64 of its JSON. */
export const encodeBase64Json = (value: unknown): string => Base64.encode(JSON.stringify(value))

/** A `402`'s requirements: from `PAYMENT-REQUIRED` when the answer has one (version 2), else from its JSON body (version 1). */
export const readPaymentRequired = Effect.fnUntraced(function* (
  response: HttpClientResponse.HttpClientResponse,
  where: string
) {
  const header = response.headers["payment-required"]
  if (header !== undefined) {
    const required = yield* decodeBase64Json(X402PaymentRequiredV2, header, where)
    const asked: X402Asked = {
      x402Version: 2,
      error: required.error ?? "",
      offers: required.accepts.map((r) => offerOfV2(r, required.resource)),
      resource: required.resource
    }
    return asked
  }
  const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
  const value = yield* Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => new InvalidResponse({ url: where, detail: "402 without PAYMENT-REQUIRED or a JSON body" })
  })
  const required = yield* decodeTo(X402PaymentRequired, value, where)
  const asked: X402Asked = { x402Version: 1, error: required.error, offers: required.accepts.map(offerOfV1) }
  return asked
})

/** Why a paid request was answered `402`: a failed settlement's `errorReason`, else the new `402`'s error. */
export const refusalReason = Effect.fnUntraced(function* (
  response: HttpClientResponse.HttpClientResponse,
  where: string
) {
  const receipt = response.headers["payment-response"]
  if (receipt !== undefined) {
    const settlement = yield* decodeBase64Json(X402Settlement, receipt, where)
    if (!settlement.success) return settlement.errorReason ?? "settlement_failed"
  }
  return (yield* readPaymentRequired(response, where)).error
})

/** The settlement of a paid answer, from `PAYMENT-RESPONSE` (version 2) or `X-PAYMENT-RESPONSE` (version 1). */
export const readSettlement = (response: HttpClientResponse.HttpClientResponse, where: string) => {
  const receipt = response.headers["payment-response"] ?? response.headers["x-payment-response"]
  return receipt === undefined
    ? Effect.fail(new InvalidResponse({ url: where, detail: "no PAYMENT-RESPONSE or X-PAYMENT-RESPONSE header" }))
    : decodeBase64Json(X402Settlement, receipt, where)
}

/** A signed `exact` EVM payload: the EIP-3009 signature and its authorisation, numbers as decimal strings. */
export interface ExactPayload {
  readonly signature: string
  readonly authorization: Readonly<Record<string, string>>
}

/** The payment header for the version the network spoke: its name and value. */
export const paymentHeader = (
  offer: X402Offer,
  resource: X402Resource | undefined,
  payload: ExactPayload
): { readonly name: string; readonly value: string } =>
  offer.x402Version === 2
    ? {
        name: "payment-signature",
        value: encodeBase64Json({
          x402Version: 2,
          resource: resource ?? { url: offer.resource },
          accepted: offer.accepted,
          payload
        })
      }
    : {
        name: "x-payment",
        value: encodeBase64Json({ x402Version: 1, scheme: offer.scheme, network: offer.network, payload })
      }
