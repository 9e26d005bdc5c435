/**
 * The provider's year of Walrus storage per payment and its renewal
 * (https://github.com/lighthouse-web3/x402, `walrus-main` at 9baebc7a: `src/routes/renew.ts`,
 * `src/utils/pricing.ts`, `src/utils/walrusSize.ts`, `src/utils/fileRecord.ts`), beside the current
 * upload route (`CurrentRoutes.ts`), which gives each paid upload its record id and its first year:
 *
 * - `GET /api/renew/price?id=`: `{ id, cid, fileName, fileSizeBytes, fileSizeMB, encodedSizeBytes,
 *   encodedSizeMiB, billableMiB, pricePerMB, facilitatorFee, totalPrice, storagePeriodDays,
 *   currentExpiresAt, network, payTo }`; no id is `400`, an unknown one `404`.
 * - `POST /api/renew`, the record id in `x-file-id` (`400` without, `404` unknown, before any
 *   payment is asked): x402 version 2 as the upload route, priced by the file's size. A verified
 *   payment from another account than the uploader's is `403 { error: "Only the original uploader
 *   can renew this file", id }` and is not settled (`@x402/express` settles no answer of 400 or
 *   above). The payer's is settled, then the expiry moves a year past the later of itself and now:
 *   `{ success, id, cid, fileName, fileSizeBytes, previousExpiresAt, expiresAt, storagePeriodDays,
 *   publicKey }` with `PAYMENT-RESPONSE`.
 *
 * The price is a year of Walrus storage: $0.0005 per whole MiB of the blob's *encoded* size (Mysten's
 * RS2 formula on 1000 shards) plus the $0.001 facilitator fee, in doubles, written with 6 decimals.
 *
 * @since 0.2.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { guard } from "../http/Guard.ts"
import { json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import { caipNetwork, encoded, paymentRequired, usdcUnits } from "./CurrentRoutes.ts"
import {
  clientGone,
  decodePaymentHeader,
  type PaymentRequirements,
  settlePayment,
  verifyPayment
} from "./Facilitator.ts"
import type { X402RouteContext } from "./UploadRoute.ts"

/** Days of storage a payment buys (the server's `STORAGE_PERIOD_DAYS` default). */
export const storagePeriodDays = 365
const storagePeriodMs = storagePeriodDays * 24 * 60 * 60 * 1000
/** Dollars per MiB of encoded size per year, and per payment (`PRICE_PER_MB`, `FACILITATOR_FEE` on `walrus-main`). */
const pricePerMiB = 0.0005
const facilitatorFee = 0.001
const mib = 1 << 20

/** Paid-through times (ms) of the x402 uploads, by record id. */
export type Expiries = Map<string, number>

/** When a payment made at `now` ends: a year past the later of the current expiry and now. */
export const nextExpiresAt = (current: number, now: number): number => Math.max(current, now) + storagePeriodMs

/** Walrus's encoded size of a blob of `size` bytes on `shards` shards (the server's `encodedBlobLength`). */
const encodedBlobLength = (size: number, shards = 1000): number => {
  const maxFaulty = Math.floor((shards - 1) / 3)
  const primary = shards - 2 * maxFaulty
  const secondary = shards - maxFaulty
  let symbol = Math.floor((Math.max(size, 1) - 1) / (primary * secondary)) + 1
  if (symbol % 2 === 1) symbol += 1
  return shards * (shards * 64 + 32) + (primary + secondary) * symbol * shards
}

/** The server's `calculatePriceQuote` for a year of `size` bytes. */
const renewQuote = (size: number) => {
  const encodedSizeBytes = encodedBlobLength(size)
  const billableMiB = Math.ceil(encodedSizeBytes / mib)
  return {
    encodedSizeBytes,
    encodedSizeMiB: Number.parseFloat((encodedSizeBytes / mib).toFixed(4)),
    billableMiB,
    totalPrice: `$${(billableMiB * pricePerMiB + facilitatorFee).toFixed(6)}`
  }
}

const requirementsFor = (context: X402RouteContext, size: number): PaymentRequirements => ({
  scheme: "exact",
  network: caipNetwork(context),
  maxAmountRequired: usdcUnits(renewQuote(size).totalPrice),
  resource: `${context.host}${Routes.x402Current.renew.path}`,
  description: "Renew yearly storage for an existing file (no reupload)",
  mimeType: "application/json",
  payTo: context.x402.payTo,
  maxTimeoutSeconds: context.x402.maxTimeoutSeconds ?? 300,
  asset: context.x402.asset,
  extra: { name: "USD Coin", version: "2" }
})

/** The upload record `id` names with its expiry, or the provider's refusal. */
const recordOf = (context: X402RouteContext, expiries: Expiries, id: string) => {
  const record = context.files.byId(id)
  const expiresAt = expiries.get(id)
  return record === undefined || expiresAt === undefined
    ? json({ error: "File record not found", id }, 404)
    : { record, expiresAt }
}

const priceRoute = (context: X402RouteContext, expiries: Expiries, request: Request) => {
  const id = (new URL(request.url).searchParams.get("id") ?? "").trim()
  if (id === "") return json({ error: "Provide 'id' query parameter (file record id from upload)" }, 400)
  const found = recordOf(context, expiries, id)
  if (found instanceof Response) return found
  const size = Number(found.record.fileSizeInBytes)
  return json({
    id,
    cid: found.record.cid,
    fileName: found.record.fileName,
    fileSizeBytes: size,
    fileSizeMB: Number.parseFloat((size / mib).toFixed(4)),
    ...renewQuote(size),
    pricePerMB: `$${pricePerMiB}`,
    facilitatorFee: `$${facilitatorFee.toFixed(6)}`,
    storagePeriodDays,
    currentExpiresAt: found.expiresAt,
    network: caipNetwork(context),
    payTo: context.x402.payTo
  })
}

const renew = async (context: X402RouteContext, expiries: Expiries, request: Request): Promise<Response> => {
  const id = (request.headers.get("x-file-id") ?? "").trim()
  if (id === "") return json({ error: "x-file-id header is required" }, 400)
  const found = recordOf(context, expiries, id)
  if (found instanceof Response) return found
  const { record } = found
  const requirements = requirementsFor(context, Number(record.fileSizeInBytes))
  const header = request.headers.get("payment-signature")
  if (header === null) return paymentRequired("Payment required", requirements)
  const payment = decodePaymentHeader(header)
  if (payment === "invalid_payload") return paymentRequired("invalid_payload", requirements)
  const refusal = await verifyPayment(context.x402, requirements, payment, 2)
  if (refusal !== undefined) return paymentRequired(refusal, requirements)
  const payer = payment.payload.authorization.from.toLowerCase()
  if (payer !== record.publicKey.toLowerCase())
    return json({ error: "Only the original uploader can renew this file", id }, 403)
  if (clientGone(request)) return json({ error: "The connection closed before the renewal was answered" }, 400)
  const settled = await settlePayment(context.x402, requirements, payment)
  const receipt = { network: requirements.network, payer }
  if (settled === "settlement_failed") {
    const response = json({}, 402)
    response.headers.set(
      "payment-response",
      encoded({ success: false, errorReason: settled, transaction: "", ...receipt })
    )
    return response
  }
  // Read again after settling: a renewal settled meanwhile has moved it.
  const previousExpiresAt = expiries.get(id) ?? found.expiresAt
  const expiresAt = nextExpiresAt(previousExpiresAt, context.clock())
  expiries.set(id, expiresAt)
  const response = json({
    success: true,
    id,
    cid: record.cid,
    fileName: record.fileName,
    fileSizeBytes: Number(record.fileSizeInBytes),
    previousExpiresAt,
    expiresAt,
    storagePeriodDays,
    publicKey: record.publicKey
  })
  response.headers.set("payment-response", encoded({ success: true, transaction: settled.transaction, ...receipt }))
  return response
}

/** The renewal's price route and paid route, over the expiries the upload route starts. */
export const renewalHandlers = (context: X402RouteContext, expiries: Expiries): Array<HttpHandler> => {
  const logged = { name: "api", log: context.log } as const
  return [
    on(
      context.host,
      Routes.x402Current.renewPrice,
      context.faults.wrap(
        "api",
        guard(logged, async ({ request }) => priceRoute(context, expiries, request))
      )
    ),
    on(
      context.host,
      Routes.x402Current.renew,
      context.faults.wrap(
        "api",
        guard(logged, async ({ request }) => renew(context, expiries, request))
      )
    )
  ]
}
