/**
 * The simulated network's x402 facilitator: checks a payment (protocol version 1, scheme `exact`
 * on an EVM network) against what the network asked for and against the chain, then settles it by
 * submitting the payer's EIP-3009 `transferWithAuthorization` on the local chain.
 *
 * Verification, in order, each failure named by its x402 reason:
 * - the payload's version, scheme and network are the requirements' (`invalid_x402_version`,
 *   `invalid_scheme`, `invalid_network`), and it has the `exact` EVM shape (`invalid_payload`);
 * - the authorisation pays `payTo` (`invalid_exact_evm_payload_recipient_mismatch`) at least
 *   `maxAmountRequired` (`invalid_exact_evm_payload_authorization_value`);
 * - the chain's latest block time lies inside `(validAfter, validBefore)`
 *   (`invalid_exact_evm_payload_authorization_valid_after` / `…_valid_before`);
 * - the signature is the payer's over the authorisation under the asset's EIP-712 domain
 *   (`invalid_exact_evm_payload_signature`): an authorisation signed for another token fails here;
 * - the nonce has not been used on the asset (`authorization_already_used`, this network's name:
 *   version 1 lists none for a replay);
 * - the payer holds the amount (`insufficient_funds`).
 *
 * Settlement submits the transfer and waits for its receipt; a revert is `settlement_failed`. The
 * token itself refuses a nonce twice, so a payment is never settled twice even if two requests
 * race past verification.
 *
 * @since 0.1.0
 */

import { Payment } from "lighthouse-effect"
import { testUsdcAbi } from "lighthouse-effect/contracts"
import { base64 } from "multiformats/bases/base64"
import {
  type Account,
  type Address,
  type Chain,
  getAddress,
  type Hex,
  isAddress,
  isHex,
  type PublicClient,
  type Transport,
  verifyTypedData,
  type WalletClient
} from "viem"

/** What the network accepts for one resource (x402 version 1 `PaymentRequirements`). */
export interface PaymentRequirements {
  readonly scheme: "exact"
  readonly network: string
  /** Base units of `asset`, as a decimal string. */
  readonly maxAmountRequired: string
  readonly resource: string
  readonly description: string
  readonly mimeType: string
  readonly payTo: Address
  readonly maxTimeoutSeconds: number
  readonly asset: Address
  /** The asset's EIP-712 domain name and version. */
  readonly extra: { readonly name: string; readonly version: string }
}

/** The EIP-3009 authorisation of an `exact` EVM payment, numbers as decimal strings. */
export interface ExactAuthorization {
  readonly from: Address
  readonly to: Address
  readonly value: string
  readonly validAfter: string
  readonly validBefore: string
  readonly nonce: Hex
}

/** The decoded `X-PAYMENT` (version 1) or `PAYMENT-SIGNATURE` (version 2) header. */
export interface PaymentPayload {
  readonly x402Version: number
  readonly scheme: string
  readonly network: string
  /** The amount of the requirements a version 2 payment says it accepted. */
  readonly amount?: string
  readonly payload: { readonly signature: Hex; readonly authorization: ExactAuthorization }
}

/** The x402 reasons this facilitator gives. */
export type PaymentRefusal =
  | "invalid_x402_version"
  | "invalid_scheme"
  | "invalid_network"
  | "invalid_payload"
  | "invalid_exact_evm_payload_recipient_mismatch"
  | "invalid_exact_evm_payload_authorization_value"
  | "invalid_exact_evm_payload_authorization_valid_after"
  | "invalid_exact_evm_payload_authorization_valid_before"
  | "invalid_exact_evm_payload_signature"
  | "authorization_already_used"
  | "insufficient_funds"
  | "settlement_failed"

export interface FacilitatorOptions {
  readonly publicClient: PublicClient<Transport, Chain>
  /** Submits settlements and pays their gas. */
  readonly settler: WalletClient<Transport, Chain, Account>
}

/** The EIP-3009 typed data the payer signs, as the client signs it. */
export const transferWithAuthorizationTypes = { TransferWithAuthorization: Payment.TransferWithAuthorization } as const

const isUint = (value: unknown): value is string => typeof value === "string" && /^\d{1,78}$/.test(value)

/** The `exact` EVM payload, or `undefined` when a field is missing or malformed. */
const exactPayload = (payload: unknown): PaymentPayload["payload"] | undefined => {
  const { signature, authorization } = (payload ?? {}) as { signature?: unknown; authorization?: unknown }
  const a = (authorization ?? {}) as Record<string, unknown>
  const wellFormed =
    isHex(signature) &&
    typeof a.from === "string" &&
    isAddress(a.from) &&
    typeof a.to === "string" &&
    isAddress(a.to) &&
    isUint(a.value) &&
    isUint(a.validAfter) &&
    isUint(a.validBefore) &&
    isHex(a.nonce) &&
    a.nonce.length === 66
  return wellFormed ? { signature, authorization: a as unknown as ExactAuthorization } : undefined
}

/**
 * Decodes `X-PAYMENT` or `PAYMENT-SIGNATURE` (base64 of JSON); `invalid_payload` when it is not
 * one. Version 1 names the scheme and network at the top; version 2 in `accepted`, the
 * requirements it repeats (whose `amount` is kept to be compared with the route's).
 */
export const decodePaymentHeader = (header: string): PaymentPayload | "invalid_payload" => {
  try {
    const decoded = JSON.parse(new TextDecoder().decode(base64.baseDecode(header.replace(/=+$/, "")))) as Record<
      string,
      unknown
    >
    const payload = exactPayload(decoded.payload)
    const named = (decoded.x402Version === 2 ? (decoded.accepted ?? {}) : decoded) as Record<string, unknown>
    if (typeof decoded.x402Version !== "number" || typeof named.scheme !== "string") return "invalid_payload"
    if (typeof named.network !== "string" || payload === undefined) return "invalid_payload"
    const accepted = decoded.x402Version === 2 && typeof named.amount === "string" ? { amount: named.amount } : {}
    return { x402Version: decoded.x402Version, scheme: named.scheme, network: named.network, payload, ...accepted }
  } catch {
    return "invalid_payload"
  }
}

/** The checks that need no chain: version, scheme, network, recipient, amount. */
const checkTerms = (
  requirements: PaymentRequirements,
  payment: PaymentPayload,
  version: number
): PaymentRefusal | undefined => {
  const { authorization } = payment.payload
  if (payment.x402Version !== version) return "invalid_x402_version"
  if (payment.scheme !== requirements.scheme) return "invalid_scheme"
  if (payment.network !== requirements.network) return "invalid_network"
  // Version 2 repeats the requirements it accepted: accepting another price is no payment of this one.
  if (payment.amount !== undefined && payment.amount !== requirements.maxAmountRequired)
    return "invalid_exact_evm_payload_authorization_value"
  if (getAddress(authorization.to) !== getAddress(requirements.payTo))
    return "invalid_exact_evm_payload_recipient_mismatch"
  if (BigInt(authorization.value) < BigInt(requirements.maxAmountRequired))
    return "invalid_exact_evm_payload_authorization_value"
  return undefined
}

/**
 * Verifies `payment` against `requirements` and the chain; the refusal, or `undefined` when it may
 * settle. `version` is the x402 version the route speaks (1 unless said).
 */
export const verifyPayment = async (
  options: FacilitatorOptions,
  requirements: PaymentRequirements,
  payment: PaymentPayload,
  version = 1
): Promise<PaymentRefusal | undefined> => {
  const terms = checkTerms(requirements, payment, version)
  if (terms !== undefined) return terms
  const { authorization, signature } = payment.payload
  const now = (await options.publicClient.getBlock()).timestamp
  if (now <= BigInt(authorization.validAfter)) return "invalid_exact_evm_payload_authorization_valid_after"
  if (now >= BigInt(authorization.validBefore)) return "invalid_exact_evm_payload_authorization_valid_before"
  const signed = await verifyTypedData({
    address: authorization.from,
    domain: {
      name: requirements.extra.name,
      version: requirements.extra.version,
      chainId: await options.publicClient.getChainId(),
      verifyingContract: requirements.asset
    },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: authorizationMessage(authorization),
    signature
  }).catch(() => false)
  if (!signed) return "invalid_exact_evm_payload_signature"
  const read = { address: requirements.asset, abi: testUsdcAbi } as const
  const used = await options.publicClient.readContract({
    ...read,
    functionName: "authorizationState",
    args: [authorization.from, authorization.nonce]
  })
  if (used) return "authorization_already_used"
  const balance = await options.publicClient.readContract({
    ...read,
    functionName: "balanceOf",
    args: [authorization.from]
  })
  return balance < BigInt(authorization.value) ? "insufficient_funds" : undefined
}

/** The authorisation with its numbers as bigints, as it is signed and submitted. */
export const authorizationMessage = (authorization: ExactAuthorization) => ({
  from: authorization.from,
  to: authorization.to,
  value: BigInt(authorization.value),
  validAfter: BigInt(authorization.validAfter),
  validBefore: BigInt(authorization.validBefore),
  nonce: authorization.nonce
})

/** Submits the transfer on the asset; the transaction hash, or `settlement_failed` when it reverts. */
export const settlePayment = async (
  options: FacilitatorOptions,
  requirements: PaymentRequirements,
  payment: PaymentPayload
): Promise<{ readonly transaction: Hex } | "settlement_failed"> => {
  const m = authorizationMessage(payment.payload.authorization)
  try {
    const hash = await options.settler.writeContract({
      address: requirements.asset,
      abi: testUsdcAbi,
      functionName: "transferWithAuthorization",
      args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, payment.payload.signature]
    })
    const receipt = await options.publicClient.waitForTransactionReceipt({ hash })
    return receipt.status === "success" ? { transaction: hash } : "settlement_failed"
  } catch {
    return "settlement_failed"
  }
}

/**
 * Whether the client of `request` is gone (its connection closed before the answer: the served
 * network aborts the request's signal then). A payment is not settled for it: nobody would learn
 * of the settlement. Over HTTP/1.1 a body longer than its `Content-Length` ends so: the server
 * reads the declared bytes as the body and the surplus as a next request, which its parser
 * refuses with `400` and a closed connection.
 */
export const clientGone = (request: Request): boolean => request.signal.aborted
