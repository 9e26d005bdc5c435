/**
 * The provider's x402 server as it is today (https://github.com/lighthouse-web3/x402, `main`:
 * `src/app.ts`, `src/routes/upload.ts`, `src/utils/pricing.ts`), on the API host beside the
 * documented `POST /api/x402/upload` (`UploadRoute.ts`, version 1):
 *
 * - `GET /api/upload/price?size=BYTES`: `{ fileSizeBytes, fileSizeMB, billableMB, pricePerMB,
 *   totalPrice, network, payTo }`; a size that is not above 0 is `400`.
 * - `POST /api/upload`: the file is the raw body, `Content-Length` required (`400` without it: it
 *   prices the upload), its name in `x-file-name` (default `upload-{ms}.bin`). x402 version 2:
 *   without `PAYMENT-SIGNATURE` (an `X-PAYMENT` is not read, as `@x402/core`'s middleware does not)
 *   the answer is `402` with `PAYMENT-REQUIRED`, base64 of `{ x402Version: 2, error, resource,
 *   accepts }` and the body `{}`; a payment the facilitator refuses is the same with its reason; a
 *   settlement that fails is `402` with `PAYMENT-RESPONSE` `{ success: false, errorReason, … }`.
 *   Paid: the body streams into staged blocks (a body longer than declared is `400` before any
 *   settlement), the payment is settled, and the answer is `{ success, cid, fileName, mimeType,
 *   fileSizeBytes, publicKey, ipfsUrl }` with `PAYMENT-RESPONSE`.
 *
 * The price is the server's: at least 1 MB (1024 × 1024 bytes) at $0.004 per MB plus a $0.001
 * facilitator fee, in doubles, written with 6 decimals and read as USDC base units. The network is
 * CAIP-2, `eip155:{chain id}`. Not simulated: the server's MIME sniffing by magic bytes (the
 * request's `Content-Type` is kept) and its DynamoDB record ids.
 *
 * @since 0.2.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { base64pad } from "multiformats/bases/base64"
import { guard } from "../http/Guard.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import type { StagedWrites } from "../storage/Blocks.ts"
import { addAll } from "../storage/Unixfs.ts"
import {
  clientGone,
  decodePaymentHeader,
  type PaymentPayload,
  type PaymentRequirements,
  settlePayment,
  verifyPayment
} from "./Facilitator.ts"
import { type Expiries, nextExpiresAt, storagePeriodDays } from "./Renewal.ts"
import type { X402RouteContext } from "./UploadRoute.ts"

const bytesPerMB = 1024 * 1024
/** The provider's defaults (`PRICE_PER_MB`, `FACILITATOR_FEE`). */
const pricePerMB = 0.004
const facilitatorFee = 0.001

/** The server's `calculatePrice`: dollars with 6 decimals, as `$0.005000`. */
export const currentPrice = (size: number): string =>
  `$${(Math.max(size / bytesPerMB, 1) * pricePerMB + facilitatorFee).toFixed(6)}`

/** `$0.005000` in USDC base units. */
export const usdcUnits = (price: string): string => {
  const [whole, fraction = ""] = price.slice(1).split(".")
  return BigInt(`${whole}${fraction.padEnd(6, "0").slice(0, 6)}`).toString()
}

export const caipNetwork = (context: X402RouteContext) => `eip155:${context.x402.publicClient.chain.id}`

const requirementsFor = (context: X402RouteContext, size: number): PaymentRequirements => ({
  scheme: "exact",
  network: caipNetwork(context),
  maxAmountRequired: usdcUnits(currentPrice(size)),
  resource: `${context.host}${Routes.x402Current.upload.path}`,
  description: "Upload file to Lighthouse IPFS storage",
  mimeType: "application/json",
  payTo: context.x402.payTo,
  maxTimeoutSeconds: context.x402.maxTimeoutSeconds ?? 300,
  asset: context.x402.asset,
  extra: { name: "USD Coin", version: "2" }
})

/** Base64 with its padding, as Node's `Buffer` writes it for the server. */
export const encoded = (value: unknown) => base64pad.baseEncode(new TextEncoder().encode(JSON.stringify(value)))

/** `402` with `PAYMENT-REQUIRED`: version 2's requirements, in the header only. */
export const paymentRequired = (error: string, r: PaymentRequirements) => {
  const response = json({}, 402)
  const accepts = [
    {
      scheme: r.scheme,
      network: r.network,
      amount: r.maxAmountRequired,
      asset: r.asset,
      payTo: r.payTo,
      maxTimeoutSeconds: r.maxTimeoutSeconds,
      extra: r.extra
    }
  ]
  const resource = { url: r.resource, description: r.description, mimeType: r.mimeType }
  response.headers.set("payment-required", encoded({ x402Version: 2, error, resource, accepts }))
  return response
}

const priceRoute = (context: X402RouteContext, request: Request) => {
  const size = Number.parseInt(new URL(request.url).searchParams.get("size") ?? "0", 10)
  if (!(size > 0)) return json({ error: "Provide 'size' query parameter (file size in bytes)" }, 400)
  const rawMB = size / bytesPerMB
  return json({
    fileSizeBytes: size,
    fileSizeMB: Number.parseFloat(rawMB.toFixed(4)),
    billableMB: Number.parseFloat(Math.max(rawMB, 1).toFixed(4)),
    pricePerMB: `$${pricePerMB}`,
    totalPrice: currentPrice(size),
    network: caipNetwork(context),
    payTo: context.x402.payTo
  })
}

/** A refusal thrown out of the body's reading. */
class BodyRefusal extends Error {}

/** The raw body streamed into `staging`; a body longer than `declared` is refused as it passes it. */
const importBody = async (request: Request, staging: StagedWrites, name: string, declared: number) => {
  const body = request.body
  const counted = { bytes: 0 }
  async function* chunks() {
    if (body === null) return
    for await (const chunk of body) {
      counted.bytes += chunk.byteLength
      if (counted.bytes > declared)
        throw new BodyRefusal(`Content-Length mismatch: declared ${declared} bytes but received ${counted.bytes} bytes`)
      yield chunk
    }
  }
  let root: { readonly cid: { toString(): string } } | undefined
  for await (const entry of addAll([{ path: name, content: chunks() }], staging, { cidVersion: 1, rawLeaves: true }))
    root = entry
  if (counted.bytes === 0 || root === undefined) throw new BodyRefusal("File data is required in request body")
  return { cid: root.cid.toString(), size: counted.bytes }
}

/** Settles the verified payment, keeps the blocks and lists the file for the payer. */
const store = async (
  context: X402RouteContext,
  expiries: Expiries,
  staging: StagedWrites,
  requirements: PaymentRequirements,
  payment: PaymentPayload,
  file: { readonly name: string; readonly mimeType: string; readonly cid: string; readonly size: number }
) => {
  const payer = payment.payload.authorization.from.toLowerCase()
  const settled = await settlePayment(context.x402, requirements, payment)
  if (settled === "settlement_failed") {
    const failure = { success: false, errorReason: settled, transaction: "", network: requirements.network, payer }
    const response = json({}, 402)
    response.headers.set("payment-response", encoded(failure))
    return response
  }
  staging.commit()
  const record = context.files.add({
    publicKey: payer,
    fileName: file.name,
    mimeType: file.mimeType,
    fileSizeInBytes: String(file.size),
    cid: file.cid,
    encryption: false,
    storageType: "ipfs",
    dealParameters: null
  })
  // `walrus-main`'s first year, and the record id a renewal names.
  const expiresAt = nextExpiresAt(0, context.clock())
  expiries.set(record.id, expiresAt)
  const response = json({
    success: true,
    id: record.id,
    cid: file.cid,
    fileName: file.name,
    mimeType: file.mimeType,
    fileSizeBytes: file.size,
    publicKey: payer,
    expiresAt,
    storagePeriodDays,
    ipfsUrl: `https://gateway.lighthouse.storage/ipfs/${file.cid}`
  })
  const receipt = { success: true, transaction: settled.transaction, network: requirements.network, payer }
  response.headers.set("payment-response", encoded(receipt))
  return response
}

const upload = async (
  context: X402RouteContext,
  expiries: Expiries,
  request: Request,
  staging: StagedWrites
): Promise<Response> => {
  const declared = Number.parseInt(request.headers.get("content-length") ?? "0", 10)
  if (!(declared > 0)) return json({ error: "Content-Length header is required" }, 400)
  const maxBytes = context.x402.maxUploadBytes ?? 1024 * bytesPerMB
  if (declared > maxBytes)
    return json({ error: `File exceeds maximum size of ${Math.round(maxBytes / bytesPerMB)} MB` }, 400)
  const requirements = requirementsFor(context, declared)
  const header = request.headers.get("payment-signature")
  if (header === null) return paymentRequired("Payment required", requirements)
  const payment = decodePaymentHeader(header)
  if (payment === "invalid_payload") return paymentRequired("invalid_payload", requirements)
  const early = await verifyPayment(context.x402, requirements, payment, 2)
  if (early !== undefined) return paymentRequired(early, requirements)
  const name = request.headers.get("x-file-name") ?? `upload-${Date.now()}.bin`
  const file = await importBody(request, staging, name, declared)
  // Again once the body is in: the window may have closed or the funds moved meanwhile.
  const refusal = await verifyPayment(context.x402, requirements, payment, 2)
  if (refusal !== undefined) return paymentRequired(refusal, requirements)
  if (clientGone(request)) throw new BodyRefusal("The connection closed before the upload was answered")
  const mimeType = request.headers.get("content-type") ?? "application/octet-stream"
  return store(context, expiries, staging, requirements, payment, { ...file, name, mimeType })
}

/** The price route and the version 2 upload route. */
export const currentX402Handlers = (context: X402RouteContext, expiries: Expiries): Array<HttpHandler> => [
  on(
    context.host,
    Routes.x402Current.price,
    context.faults.wrap(
      "api",
      guard({ name: "api", log: context.log }, async ({ request }) => priceRoute(context, request))
    )
  ),
  on(
    context.host,
    Routes.x402Current.upload,
    context.faults.wrap(
      "api",
      guard({ name: "api", log: context.log }, async ({ request }) => {
        const staging = context.content.staging()
        try {
          const answer = await upload(context, expiries, request, staging)
          if (answer.status !== 200) await staging.discard()
          return answer
        } catch (error) {
          await staging.discard()
          if (error instanceof BodyRefusal) return errorResponse(400, error.message)
          throw error
        }
      })
    )
  )
]
