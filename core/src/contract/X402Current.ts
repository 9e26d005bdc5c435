/**
 * Pay-per-upload over x402 version 2, the provider's x402 server as it runs today
 * (https://github.com/lighthouse-web3/x402: `main` for the price and the upload, `walrus-main` for
 * the renewal), on the API host beside version 1's documented route (`X402.ts`). The library
 * speaks it with `x402Routes: "current"` (docs/PROTOCOL.md#x402-pay-per-upload):
 *
 * - the price of an upload of `size` bytes, and of a year more of a stored file;
 * - the upload: the file is the raw body (`Content-Length` required, it prices the upload), its
 *   name in `x-file-name`; the renewal: the record in `x-file-id`.
 *
 * Version 2 carries its terms in headers, which an error answer cannot declare: an unpaid or
 * refused call is a `402` whose body is `{}`, the terms base64 JSON in `PAYMENT-REQUIRED`
 * (`{ x402Version: 2, error, resource, accepts }`); a settled one has `PAYMENT-RESPONSE`.
 *
 * @since 0.2.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import * as Schema from "effect/Schema"
import { X402StoredFile } from "../payment/X402.ts"
import { X402PriceQuote } from "../payment/X402Price.ts"
import { X402Renewal, X402RenewQuote } from "../payment/X402Renew.ts"
import { Routes } from "../routes/Routes.ts"
import { apiError, apiRefusal, Host, knownFrom } from "./Shapes.ts"

const x402Source = "https://github.com/lighthouse-web3/x402/blob"

/** A payment in version 2: base64 JSON `{ x402Version: 2, resource, accepted, payload }`. */
const paymentSignature = Schema.optionalKey(
  Schema.String.annotate({ description: "base64 of the JSON payment (x402 version 2, an EIP-3009 authorisation)" })
)

/** Unpaid, or a payment the facilitator refused: the terms are in `PAYMENT-REQUIRED`, the body is empty. */
const PaymentRequired = Schema.Struct({})
  .annotate({
    identifier: "X402PaymentRequiredV2Body",
    description:
      "`{}`; the terms are base64 JSON in the `PAYMENT-REQUIRED` header: `{ x402Version: 2, error, resource, accepts }`"
  })
  .pipe(HttpApiSchema.status(402))

/** A call about a record the server does not hold: its text and the id asked. */
const RecordNotFound = Schema.Struct({ error: Schema.Literal("File record not found"), id: Schema.String }).pipe(
  HttpApiSchema.status(404)
)

/** Only the original uploader may renew: another payer's verified payment is refused, and not settled. */
const NotTheUploader = Schema.Struct({
  error: Schema.Literal("Only the original uploader can renew this file"),
  id: Schema.String
}).pipe(HttpApiSchema.status(403))

const at = Routes.x402Current

/** Version 2's prices, its upload and its renewal. */
export class X402Current extends HttpApiGroup.make("x402Current")
  .add(
    HttpApiEndpoint.make(at.price.method)("price", at.price.path, {
      query: { size: Schema.String.annotate({ description: "the file's size in bytes, above 0" }) },
      success: X402PriceQuote,
      error: apiRefusal(400, "Provide 'size' query parameter (file size in bytes)")
    }).annotateMerge(knownFrom(`${x402Source}/main/src/app.ts`, "the provider's x402 server (`/api/upload/price`)")),
    HttpApiEndpoint.make(at.upload.method)("upload", at.upload.path, {
      headers: {
        "payment-signature": paymentSignature,
        "x-file-name": Schema.optionalKey(Schema.String.annotate({ description: "default `upload-{ms}.bin`" }))
      },
      payload: HttpApiSchema.StreamUint8Array({ contentType: "application/octet-stream" }),
      success: X402StoredFile,
      error: [
        apiError(400).annotate({
          description:
            "`Content-Length header is required`, `File exceeds maximum size of … MB`, a body longer than declared"
        }),
        PaymentRequired
      ]
    }).annotateMerge(
      knownFrom(`${x402Source}/main/src/routes/upload.ts`, "the provider's x402 server (`POST /api/upload`)")
    ),
    HttpApiEndpoint.make(at.renewPrice.method)("renewPrice", at.renewPrice.path, {
      query: { id: Schema.String.annotate({ description: "the record id a paid upload answered" }) },
      success: X402RenewQuote,
      error: [apiRefusal(400, "Provide 'id' query parameter (file record id from upload)"), RecordNotFound]
    }).annotateMerge(
      knownFrom(`${x402Source}/walrus-main/src/routes/renew.ts`, "the provider's x402 server (`walrus-main`)")
    ),
    HttpApiEndpoint.make(at.renew.method)("renew", at.renew.path, {
      headers: { "x-file-id": Schema.String, "payment-signature": paymentSignature },
      success: X402Renewal,
      error: [apiRefusal(400, "x-file-id header is required"), PaymentRequired, NotTheUploader, RecordNotFound]
    }).annotateMerge(
      knownFrom(`${x402Source}/walrus-main/src/routes/renew.ts`, "the provider's x402 server (`walrus-main`)")
    )
  )
  .annotate(Host, "api") {}
