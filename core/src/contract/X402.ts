/**
 * Pay-per-upload over x402 version 1 on the API host (`POST /api/x402/upload`,
 * docs/PROTOCOL.md#x402-pay-per-upload): without `X-PAYMENT` a `402` with the payment
 * requirements; with a settled payment the upload node's entry and `X-PAYMENT-RESPONSE`. The
 * version is part of the contract, so an answer in another version differs from it by name.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import * as Schema from "effect/Schema"
import { X402PaymentRequired } from "../payment/X402.ts"
import { Routes } from "../routes/Routes.ts"
import { UploadedEntry } from "../upload/Response.ts"
import { Host, knownFrom } from "./Shapes.ts"

/** The version this declaration is of. */
export const X402Version = 1

/** A `402` of version 1: why, and what would be accepted. */
export const X402PaymentRequiredV1 = Schema.Struct({
  ...X402PaymentRequired.fields,
  x402Version: Schema.Literal(X402Version)
}).annotate({ identifier: "X402PaymentRequiredV1" })

/** A header that is not base64 JSON of a payment. */
const InvalidPayload = Schema.Struct({
  x402Version: Schema.Literal(X402Version),
  error: Schema.Literal("invalid_payload")
})

/** The documented route of version 1. */
export class X402 extends HttpApiGroup.make("x402")
  .add(
    HttpApiEndpoint.make(Routes.x402.upload.method)("upload", Routes.x402.upload.path, {
      headers: {
        "x-payment": Schema.optionalKey(
          Schema.String.annotate({ description: "base64 of the JSON payment (an EIP-3009 authorisation)" })
        )
      },
      payload: Schema.Struct({ file: Schema.Array(Schema.Unknown) }).pipe(HttpApiSchema.asMultipartStream()),
      success: UploadedEntry,
      error: [
        InvalidPayload.pipe(HttpApiSchema.status(400)),
        X402PaymentRequiredV1.pipe(HttpApiSchema.status(402)),
        Schema.Struct({ error: Schema.String }).pipe(HttpApiSchema.status(413))
      ]
    }).annotateMerge(knownFrom("https://github.com/lighthouse-web3/x402", "the provider's x402 repository"))
  )
  .annotate(Host, "api") {}
