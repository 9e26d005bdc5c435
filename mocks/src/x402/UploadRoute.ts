/**
 * Pay-per-upload over x402 on the API host (`POST /api/x402/upload`): no API key, the upload is
 * paid for in the request itself.
 *
 * The body is `multipart/form-data` with one part (a file, named by its filename). It is priced
 * by the request's size (the multipart body: the file and a few hundred bytes of framing) at
 * 0.00390625 USD per MiB, at least 1 MiB, in the asset's base units, rounded up. The size is the
 * request's `Content-Length` when it has one; else the body is counted as it comes.
 *
 * The payment is read before the body, and the body is never held in memory:
 * - Larger than the route's limit (`maxUploadBytes`, 1 GiB by default): `413`, before the body
 *   when the size is declared, else as soon as the count passes it.
 * - Without `X-PAYMENT`: `402 { x402Version: 1, error: "X-PAYMENT header is required", accepts:
 *   [requirements] }`, the requirements naming the amount, the asset (with its EIP-712 name and
 *   version), the payee, the network and the resource. With a declared size this is answered
 *   before any of the body is read; without one, the body is counted and dropped.
 * - With one the facilitator refuses: `402 { x402Version: 1, error: <reason>, accepts }`
 *   (`Facilitator.ts` lists the reasons), or `400 … invalid_payload` for a header that is no
 *   payment; with a declared size, again before the body.
 * - Paid: the file streams into a staging of the network's blocks (on disk for a network with a
 *   state directory) as it is imported (CID version 1, raw leaves); the payment is verified again,
 *   the transfer settled on the chain, then the blocks are kept and the file is listed for the
 *   payer's address; `200 { Name, Hash, Size }` with `X-PAYMENT-RESPONSE`, base64 of
 *   `{ success: true, transaction, network, payer }`.
 *
 * Any refusal discards the staged blocks: nothing is stored and nothing settled.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { base64 } from "multiformats/bases/base64"
import type { Address } from "viem"
import type { Files } from "../api/Files.ts"
import { BytesPerUsd } from "../api/Payments.ts"
import type { Faults } from "../faults/index.ts"
import { guard, type RouteErrorLog } from "../http/Guard.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import type { StagedWrites } from "../storage/Blocks.ts"
import type { ContentStore } from "../storage/ContentStore.ts"
import { releaseOwnedChunk } from "../storage/Release.ts"
import { addAll } from "../storage/Unixfs.ts"
import { boundaryOf, MultipartError, readMultipart } from "../upload/Multipart.ts"
import { currentX402Handlers } from "./CurrentRoutes.ts"
import {
  clientGone,
  decodePaymentHeader,
  type FacilitatorOptions,
  type PaymentPayload,
  type PaymentRequirements,
  settlePayment,
  verifyPayment
} from "./Facilitator.ts"
import { type Expiries, renewalHandlers } from "./Renewal.ts"

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
  /** The largest request (its multipart body) the route takes, in bytes; larger is `413`. Default 1 GiB. */
  readonly maxUploadBytes?: number
}

export interface X402RouteContext {
  readonly host: string
  readonly files: Files
  readonly content: ContentStore
  readonly faults: Faults
  readonly x402: X402Options
  readonly log?: RouteErrorLog | undefined
  /** The network's clock (ms): when a year of storage starts. */
  readonly clock: () => number
}

const MiB = 1024 * 1024
const USDC_UNITS = 1_000_000n

/** Base units of a 6-decimal dollar token for `bytes`: at least 1 MiB, rounded up. */
export const x402Price = (bytes: number): bigint => {
  const billed = BigInt(Math.max(bytes, MiB))
  return (billed * USDC_UNITS + BytesPerUsd - 1n) / BytesPerUsd
}

/** The route's size limit when the network names none. */
export const DEFAULT_MAX_UPLOAD_BYTES = 1024 * MiB

const requirementsFor = (context: X402RouteContext, size: number): PaymentRequirements => ({
  scheme: "exact",
  network: context.x402.network ?? "localhost",
  maxAmountRequired: String(x402Price(size)),
  resource: `${context.host}${Routes.x402.upload.path}`,
  description: `Store an upload of ${size} bytes`,
  mimeType: "application/json",
  payTo: context.x402.payTo,
  maxTimeoutSeconds: context.x402.maxTimeoutSeconds ?? 300,
  asset: context.x402.asset,
  extra: { name: "USD Coin", version: "2" }
})

const paymentRequired = (error: string, requirements: PaymentRequirements) =>
  json({ x402Version: 1, error, accepts: [requirements] }, 402)

/** An answer given by throwing out of the body's reading (`413` past the limit). */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

const notMultipart = () => new Refusal(400, "the request must be multipart/form-data")
const tooLarge = (limit: number) => new Refusal(413, `an x402 upload takes at most ${limit} bytes`)

/** The request's declared size (`Content-Length`), when it has a valid one. */
const declaredLength = (request: Request): number | undefined => {
  const text = request.headers.get("content-length")
  return text !== null && /^\d{1,15}$/.test(text) ? Number(text) : undefined
}

/** `body` as it comes, its bytes added to `counted`; past `limit` it fails with `413`. */
const limited = (body: ReadableStream<Uint8Array>, limit: number, counted: { bytes: number }) =>
  body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => {
        counted.bytes += chunk.byteLength
        if (counted.bytes > limit) controller.error(tooLarge(limit))
        else controller.enqueue(chunk)
      }
    })
  )

/** The body's size, read and dropped as it comes (an unpaid upload of undeclared size). */
const countBody = async (request: Request, limit: number): Promise<number> => {
  if (request.body === null) return 0
  const counted = { bytes: 0 }
  const reader = limited(request.body, limit, counted).getReader()
  // Each chunk freed once counted: msw's copy of the request (a tee) would keep it otherwise.
  for (let read = await reader.read(); !read.done; read = await reader.read()) releaseOwnedChunk(read.value)
  return counted.bytes
}

/** The one part streamed into `staging` as it is imported; its name, size and CID, and the request's size. */
const importUpload = async (request: Request, staging: StagedWrites, limit: number) => {
  const boundary = boundaryOf(request.headers.get("content-type"))
  const body = request.body
  if (boundary === undefined || body === null) throw notMultipart()
  const counted = { bytes: 0 }
  const file = { name: undefined as string | undefined, mimeType: null as string | null, size: 0 }
  async function* candidates() {
    for await (const part of readMultipart(limited(body!, limit, counted), boundary!, {
      signal: request.signal,
      // The importer copies what it keeps: each chunk is freed once read (msw's tee would keep it).
      release: releaseOwnedChunk
    })) {
      if (file.name !== undefined) throw new MultipartError("one file per x402 upload")
      file.name = part.filename ?? "upload"
      file.mimeType = part.contentType ?? null
      yield { path: file.name, content: sized(part.body, file) }
    }
  }
  let root: { readonly cid: { toString(): string } } | undefined
  for await (const entry of addAll(candidates(), staging, { cidVersion: 1, rawLeaves: true })) root = entry
  if (file.name === undefined || root === undefined) throw new MultipartError("File argument 'data' is required")
  return {
    name: file.name,
    size: file.size,
    mimeType: file.mimeType,
    cid: root.cid.toString(),
    requestBytes: counted.bytes
  }
}

/** A part's bytes as they come, counted into `file.size`. */
async function* sized(chunks: AsyncIterable<Uint8Array>, file: { size: number }) {
  for await (const chunk of chunks) {
    file.size += chunk.byteLength
    yield chunk
  }
}

/** Settles the verified payment, keeps the blocks and lists the file for the payer. */
const store = async (
  context: X402RouteContext,
  staging: StagedWrites,
  requirements: PaymentRequirements,
  payment: PaymentPayload,
  file: Awaited<ReturnType<typeof importUpload>>
): Promise<Response> => {
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

const upload = async (context: X402RouteContext, request: Request, staging: StagedWrites): Promise<Response> => {
  const declared = declaredLength(request)
  const maxBytes = context.x402.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES
  if (declared !== undefined && declared > maxBytes) throw tooLarge(maxBytes)
  const limit = declared ?? maxBytes
  if (boundaryOf(request.headers.get("content-type")) === undefined) throw notMultipart()
  const header = request.headers.get("x-payment")
  if (header === null) {
    const size = declared ?? (await countBody(request, limit))
    return paymentRequired("X-PAYMENT header is required", requirementsFor(context, size))
  }
  const payment = decodePaymentHeader(header)
  if (payment === "invalid_payload") return json({ x402Version: 1, error: "invalid_payload" }, 400)
  if (declared !== undefined) {
    // Refused before the body is read: the price is known from the declared size.
    const early = await verifyPayment(context.x402, requirementsFor(context, declared), payment)
    if (early !== undefined) return paymentRequired(early, requirementsFor(context, declared))
  }
  const file = await importUpload(request, staging, limit)
  const requirements = requirementsFor(context, declared ?? file.requestBytes)
  // Again once the body is in: the window may have closed or the funds moved meanwhile.
  const refusal = await verifyPayment(context.x402, requirements, payment)
  if (refusal !== undefined) return paymentRequired(refusal, requirements)
  if (clientGone(request)) throw new Refusal(400, "The connection closed before the upload was answered")
  return store(context, staging, requirements, payment, file)
}

/**
 * The documented route (version 1), the provider's current routes (`CurrentRoutes.ts`, version 2)
 * and its Walrus renewal (`Renewal.ts`), which share the uploads' expiries.
 */
export const x402Handlers = (context: X402RouteContext, expiries: Expiries = new Map()): Array<HttpHandler> => [
  ...currentX402Handlers(context, expiries),
  ...renewalHandlers(context, expiries),
  on(
    context.host,
    Routes.x402.upload,
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
          if (error instanceof Refusal) return errorResponse(error.status, error.message)
          if (error instanceof MultipartError) return errorResponse(400, error.message)
          throw error
        }
      })
    )
  )
]
