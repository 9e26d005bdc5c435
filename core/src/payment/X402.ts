/**
 * Pay-per-upload over x402 (`POST {api}/api/x402/upload`), protocol version 1, scheme `exact`:
 *
 * 1. The file goes up without payment; the network answers `402` with its payment requirements
 *    (amount, asset and its EIP-712 domain, payee, network, longest validity).
 * 2. The caller's viem account signs an EIP-3009 `TransferWithAuthorization` for exactly that
 *    (or for the amount the caller gives), with a fresh random nonce.
 * 3. The file goes up again with the authorisation in `X-PAYMENT` (base64 of JSON); the network
 *    verifies and settles it on chain, stores the file and answers its entry with
 *    `X-PAYMENT-RESPONSE` (base64 of `{ success, transaction, network, payer }`).
 *
 * A refusal of the second request becomes a typed error (`X402Underpaid`,
 * `X402AuthorizationExpired`, `X402AuthorizationReplayed`, `X402InsufficientFunds`, or
 * `X402PaymentRefused` with the x402 reason); an asset other than the one offered is refused
 * before anything is signed (`X402WrongAsset`). The wire format is in docs/PROTOCOL.md#x402-pay-per-upload.
 *
 * @since 0.3.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import { type Address, getAddress, type Hex, type LocalAccount, toHex } from "viem"
import {
  InvalidResponse,
  type RequestFailed,
  SignerError,
  X402AuthorizationExpired,
  X402AuthorizationReplayed,
  X402InsufficientFunds,
  X402PaymentRefused,
  X402Underpaid,
  X402WrongAsset
} from "../Errors.ts"
import * as Hosts from "../internal/Hosts.ts"
import { UploadedEntry } from "../upload/Response.ts"

/** One way of paying the network accepts (x402 version 1 `PaymentRequirements`). */
export const X402Requirements = Schema.Struct({
  scheme: Schema.String,
  network: Schema.String,
  maxAmountRequired: Schema.String,
  resource: Schema.String,
  description: Schema.String,
  payTo: Schema.String,
  maxTimeoutSeconds: Schema.Number,
  asset: Schema.String,
  extra: Schema.Struct({ name: Schema.String, version: Schema.String })
}).annotate({ identifier: "X402Requirements" })
export type X402Requirements = typeof X402Requirements.Type

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

/** What an x402 upload takes. */
export interface X402UploadInput {
  /** The file (a `File` keeps its name). */
  readonly file: Blob
  /** The name it is stored under; default the `File`'s name, else `upload`. */
  readonly fileName?: string | undefined
  /** Signs the authorisation: a viem local account (private key, mnemonic, HD key). */
  readonly account: LocalAccount
  /** The token the caller pays with; when the network asks for another, nothing is signed. */
  readonly asset?: Address | undefined
  /** Pay this many base units instead of the amount asked (a price agreed beforehand). */
  readonly amount?: bigint | undefined
  /** The authorisation's nonce; a fresh random one by default. Reusing one cannot pay twice. */
  readonly nonce?: Hex | undefined
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/**
 * What `x402Upload` takes, as an input schema: a `Blob`, a viem local account (an object that can
 * sign typed data), and the optional name, asset, amount and nonce.
 *
 * @category schemas
 */
export const X402UploadInput: Schema.Codec<X402UploadInput> = Schema.Struct({
  file: Schema.declare((u: unknown): u is Blob => typeof Blob !== "undefined" && u instanceof Blob, {
    expected: "a Blob or File"
  }),
  fileName: Schema.optional(Schema.String),
  account: Schema.declare(
    (u: unknown): u is LocalAccount =>
      isObject(u) && typeof u.address === "string" && typeof u.signTypedData === "function",
    { expected: "a viem local account" }
  ),
  asset: Schema.optional(
    Schema.declare((u: unknown): u is Address => typeof u === "string", { expected: "an address" })
  ),
  amount: Schema.optional(Schema.BigInt),
  nonce: Schema.optional(Schema.declare((u: unknown): u is Hex => typeof u === "string", { expected: "a hex nonce" }))
})

/** What a paid upload gives back: the stored entry, the settlement, and what was paid. */
export interface X402UploadResult {
  readonly entry: UploadedEntry
  readonly settlement: X402Settlement
  readonly paid: { readonly amount: bigint; readonly asset: Address; readonly nonce: Hex }
}

/** Chain ids of the x402 network names this client can sign for (`eip155:<id>` works too). */
const chainIds: Readonly<Record<string, number>> = { localhost: 31337, base: 8453, "base-sepolia": 84532 }

const chainIdOf = (network: string) => {
  const id = chainIds[network] ?? Number(/^eip155:(\d+)$/.exec(network)?.[1] ?? Number.NaN)
  return Number.isSafeInteger(id)
    ? Effect.succeed(id)
    : Effect.fail(new X402PaymentRefused({ reason: `unsupported network ${network}` }))
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

const uploadRequest = (input: X402UploadInput, payment?: string) => {
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

/** The `exact` requirement to pay, checked against the asset the caller offers. */
const chooseRequirement = (accepts: ReadonlyArray<X402Requirements>, offered: Address | undefined) => {
  const exact = accepts.find((r) => r.scheme === "exact")
  if (exact === undefined) return Effect.fail(new X402PaymentRefused({ reason: "no exact scheme offered" }))
  if (offered !== undefined && getAddress(exact.asset) !== getAddress(offered))
    return Effect.fail(new X402WrongAsset({ asked: getAddress(exact.asset), offered: getAddress(offered) }))
  return Effect.succeed(exact)
}

/** The signed authorisation, as `X-PAYMENT` carries it. */
const authorize = Effect.fnUntraced(function* (input: X402UploadInput, requirement: X402Requirements) {
  const chainId = yield* chainIdOf(requirement.network)
  const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const message = {
    from: input.account.address,
    to: getAddress(requirement.payTo),
    value: input.amount ?? BigInt(requirement.maxAmountRequired),
    // A little slack before now: the chain's clock may lag the caller's.
    validAfter: BigInt(Math.max(0, nowSeconds - 600)),
    validBefore: BigInt(nowSeconds + requirement.maxTimeoutSeconds),
    nonce: input.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32)))
  }
  const signature = yield* Effect.tryPromise({
    try: () =>
      input.account.signTypedData({
        domain: {
          name: requirement.extra.name,
          version: requirement.extra.version,
          chainId,
          verifyingContract: getAddress(requirement.asset)
        },
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
    JSON.stringify({
      x402Version: 1,
      scheme: "exact",
      network: requirement.network,
      payload: { signature, authorization }
    })
  )
  return { header, message }
})

/** A refusal of the paid request as its typed error. */
const refusal = (
  reason: string,
  requirement: X402Requirements,
  message: { readonly from: Address; readonly value: bigint; readonly validBefore: bigint; readonly nonce: Hex }
) => {
  switch (reason) {
    case "invalid_exact_evm_payload_authorization_value":
      return new X402Underpaid({ amount: String(message.value), required: requirement.maxAmountRequired })
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

/** Uploads a file paid for with an x402 payment signed by `input.account`. */
export const upload = Effect.fn("Payment.x402Upload")(function* (hosts: Hosts.Hosts, input: X402UploadInput) {
  const first = uploadRequest(input)
  const where = yield* Hosts.resolvedUrl(hosts.api, first)
  const asked = yield* send(hosts, first)
  if (!("paymentRequired" in asked))
    return yield* new InvalidResponse({ url: where, detail: `expected 402, got ${asked.status}` })
  const required = yield* paymentRequiredOf(asked.paymentRequired, where)
  const requirement = yield* chooseRequirement(required.accepts, input.asset)
  const { header, message } = yield* authorize(input, requirement)
  yield* Effect.annotateCurrentSpan({ amount: String(message.value), network: requirement.network })

  const paid = yield* send(hosts, uploadRequest(input, header))
  if ("paymentRequired" in paid) {
    const refused = yield* paymentRequiredOf(paid.paymentRequired, where)
    return yield* refusal(refused.error, requirement, message)
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
    paid: { amount: message.value, asset: getAddress(requirement.asset), nonce: message.nonce }
  }
  return result
})
