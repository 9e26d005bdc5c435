/**
 * Pay-per-upload over x402 on the API host (`POST /api/x402/upload`): no API key, the upload is
 * paid for in the request itself.
 *
 * The body is `multipart/form-data` with one part (a file, named by its filename). The network
 * reads it, imports it (CID version 1, raw leaves) into a staging of its blocks, and prices it:
 * 0.00390625 USD per MiB, at least 1 MiB, in the asset's base units, rounded up.
 *
 * - Without `X-PAYMENT`: `402 { x402Version: 1, error: "X-PAYMENT header is required", accepts:
 *   [requirements] }`, the requirements naming the amount, the asset (with its EIP-712 name and
 *   version), the payee, the network and the resource.
 * - With one the facilitator refuses: `402 { x402Version: 1, error: <reason>, accepts }`
 *   (`Facilitator.ts` lists the reasons), or `400 … invalid_payload` for a header that is no payment.
 * - Paid: the transfer is settled on the chain, then the blocks are kept and the file is listed
 *   for the payer's address; `200 { Name, Hash, Size }` with `X-PAYMENT-RESPONSE`, base64 of
 *   `{ success: true, transaction, network, payer }`.
 *
 * Any refusal discards the staged blocks: nothing is stored and nothing settled.
 *
 * @since 0.3.0
 */
import { type HttpHandler, http } from "msw"
import { base64 } from "multiformats/bases/base64"
import type { Address } from "viem"
import type { Files } from "../api/Files.ts"
import { BytesPerUsd } from "../api/Payments.ts"
import type { Faults } from "../faults/index.ts"
import { guard, type RouteErrorLog } from "../http/Guard.ts"
import { errorResponse, json } from "../http/Respond.ts"
import type { StagedWrites } from "../storage/Blocks.ts"
import type { ContentStore } from "../storage/ContentStore.ts"
import { addAll } from "../storage/Unixfs.ts"
import { boundaryOf, MultipartError, readMultipart } from "../upload/Multipart.ts"
import {
  decodePaymentHeader,
  type FacilitatorOptions,
  type PaymentRequirements,
  settlePayment,
  verifyPayment
} from "./Facilitator.ts"

/** What the network asks x402 uploads to be paid with. */
export interface X402Options extends FacilitatorOptions {
  /** The EIP-3009 token (`TestUsdc` on the local chain), 6 decimals. */
  readonly asset: Address
  /** Who is paid. */
  readonly payTo: Address
  /** The network's x402 name. Default `localhost`. */
  readonly network?: string
  /** How long an authorisation may be valid for, in seconds. Default 300. */
  readonly maxTimeoutSeconds?: number
}

export interface X402RouteContext {
  readonly host: string
  readonly files: Files
  readonly content: ContentStore
  readonly faults: Faults
  readonly x402: X402Options
  readonly log?: RouteErrorLog | undefined
}

const MiB = 1024 * 1024
const USDC_UNITS = 1_000_000n

/** Base units of a 6-decimal dollar token for `bytes`: at least 1 MiB, rounded up. */
export const x402Price = (bytes: number): bigint => {
  const billed = BigInt(Math.max(bytes, MiB))
  return (billed * USDC_UNITS + BytesPerUsd - 1n) / BytesPerUsd
}

const requirementsFor = (context: X402RouteContext, size: number, name: string): PaymentRequirements => ({
  scheme: "exact",
  network: context.x402.network ?? "localhost",
  maxAmountRequired: String(x402Price(size)),
  resource: `${context.host}/api/x402/upload`,
  description: `Store ${name} (${size} bytes)`,
  mimeType: "application/json",
  payTo: context.x402.payTo,
  maxTimeoutSeconds: context.x402.maxTimeoutSeconds ?? 300,
  asset: context.x402.asset,
  extra: { name: "USD Coin", version: "2" }
})

const paymentRequired = (error: string, requirements: PaymentRequirements) =>
  json({ x402Version: 1, error, accepts: [requirements] }, 402)

class Refusal extends Error {
  constructor(readonly status: number) {
    super(`refused with ${status}`)
  }
}

/** The one part's name and bytes, imported into `staging`. */
const importUpload = async (request: Request, staging: StagedWrites) => {
  const boundary = boundaryOf(request.headers.get("content-type"))
  if (boundary === undefined || request.body === null) throw new Refusal(400)
  const chunks: Array<Uint8Array> = []
  let name: string | undefined
  let mimeType: string | null = null
  for await (const part of readMultipart(request.body, boundary, { signal: request.signal })) {
    if (name !== undefined) throw new MultipartError("one file per x402 upload")
    name = part.filename ?? "upload"
    mimeType = part.contentType ?? null
    for await (const chunk of part.body) chunks.push(chunk)
  }
  if (name === undefined) throw new MultipartError("File argument 'data' is required")
  const size = chunks.reduce((total, chunk) => total + chunk.byteLength, 0)
  let root: { readonly cid: { toString(): string } } | undefined
  for await (const entry of addAll([{ path: name, content: chunks }], staging, { cidVersion: 1, rawLeaves: true }))
    root = entry
  return { name, size, cid: root!.cid.toString(), mimeType }
}

const upload = async (context: X402RouteContext, request: Request, staging: StagedWrites): Promise<Response> => {
  const file = await importUpload(request, staging)
  const requirements = requirementsFor(context, file.size, file.name)
  const header = request.headers.get("x-payment")
  if (header === null) return paymentRequired("X-PAYMENT header is required", requirements)
  const payment = decodePaymentHeader(header)
  if (payment === "invalid_payload") return json({ x402Version: 1, error: "invalid_payload" }, 400)
  const refusal = await verifyPayment(context.x402, requirements, payment)
  if (refusal !== undefined) return paymentRequired(refusal, requirements)
  const settled = await settlePayment(context.x402, requirements, payment)
  if (settled === "settlement_failed") return paymentRequired(settled, requirements)

  staging.commit()
  const payer = payment.payload.authorization.from.toLowerCase()
  context.files.add({
    publicKey: payer,
    fileName: file.name,
    mimeType: file.mimeType,
    fileSizeInBytes: String(file.size),
    cid: file.cid,
    encryption: false,
    storageType: "ipfs",
    dealParameters: null
  })
  const receipt = { success: true, transaction: settled.transaction, network: requirements.network, payer }
  const response = json({ Name: file.name, Hash: file.cid, Size: String(file.size) })
  response.headers.set("x-payment-response", base64.baseEncode(new TextEncoder().encode(JSON.stringify(receipt))))
  return response
}

export const x402Handlers = (context: X402RouteContext): Array<HttpHandler> => [
  http.post(
    `${context.host}/api/x402/upload`,
    context.faults.wrap(
      "api",
      guard({ name: "api", log: context.log }, async ({ request }) => {
        const staging = context.content.staging()
        try {
          const answer = await upload(context, request, staging)
          if (answer.status !== 200) await staging.discard()
          return answer
        } catch (error) {
          await staging.discard()
          if (error instanceof Refusal) return errorResponse(400, "the request must be multipart/form-data")
          if (error instanceof MultipartError) return errorResponse(400, error.message)
          throw error
        }
      })
    )
  )
]
