/**
 * What the caller lets an x402 payment be, and the check of a `402`'s terms against it, done
 * before anything is signed. A network that answers `402` chooses the price, the payee, the chain,
 * the token and how long the authorisation stays valid; a client that signs whatever it is asked
 * hands a hostile or mistaken server a payment of its choosing. So the caller names:
 *
 * - `network`: the x402 network it pays on (`base`, `base-sepolia`, `localhost` or `eip155:<id>`;
 *   default `base`, the provider's). Requirements on another chain are refused (`X402WrongNetwork`).
 * - `asset`: the token; default the network's USDC. Another is refused (`X402WrongAsset`).
 * - `maxAmount`: the most it pays, in the token's base units (a `bigint`; USDC has 6 decimals);
 *   default 100000, 0.1 USDC, the default of Coinbase's `x402-fetch`. A higher price is refused
 *   (`X402PriceAboveMaximum`).
 * - `maxTimeoutSeconds`: the longest validity window it signs; default 3600 (one hour). A longer
 *   one is refused (`X402WindowTooLong`).
 *
 * Terms that are not what x402 allows (an amount that is not decimal digits, a window that is not a
 * whole number of seconds above 0, a payee or asset that is not an address) are refused with the
 * field and the reason (`X402MalformedTerms`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type Address, getAddress, isAddress, zeroAddress } from "viem"
import {
  InvalidArgument,
  X402MalformedTerms,
  X402PaymentRefused,
  X402PriceAboveMaximum,
  X402WindowTooLong,
  X402WrongAsset,
  X402WrongNetwork
} from "../Errors.ts"

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

/**
 * One way of paying the network accepts, x402 version 2 (`PAYMENT-REQUIRED`): `amount` replaces
 * `maxAmountRequired`, the network is CAIP-2 (`eip155:8453`), and the resource is described once
 * beside `accepts` rather than in each requirement.
 */
export const X402RequirementsV2 = Schema.Struct({
  scheme: Schema.String,
  network: Schema.String,
  amount: Schema.String,
  payTo: Schema.String,
  maxTimeoutSeconds: Schema.Number,
  asset: Schema.String,
  extra: Schema.Struct({ name: Schema.String, version: Schema.String })
}).annotate({ identifier: "X402RequirementsV2" })
export type X402RequirementsV2 = typeof X402RequirementsV2.Type

/**
 * A requirement of either version, read the same way: `amountField` names the field the amount
 * came from (what a malformed-terms refusal names), `accepted` is the requirement as received
 * (a version 2 payment repeats it).
 */
export interface X402Offer {
  readonly x402Version: 1 | 2
  readonly scheme: string
  readonly network: string
  readonly amountField: "maxAmountRequired" | "amount"
  readonly amount: string
  readonly payTo: string
  readonly maxTimeoutSeconds: number
  readonly asset: string
  readonly extra: { readonly name: string; readonly version: string }
  readonly resource: string
  readonly description: string
  readonly accepted: X402Requirements | X402RequirementsV2
}

/** A version 1 requirement as an offer. */
export const offerOfV1 = (requirement: X402Requirements): X402Offer => ({
  ...requirement,
  x402Version: 1,
  amountField: "maxAmountRequired",
  amount: requirement.maxAmountRequired,
  accepted: requirement
})

/** A version 2 requirement as an offer; the resource is the `PAYMENT-REQUIRED`'s own. */
export const offerOfV2 = (
  requirement: X402RequirementsV2,
  resource: { readonly url: string; readonly description?: string | undefined }
): X402Offer => ({
  ...requirement,
  x402Version: 2,
  amountField: "amount",
  resource: resource.url,
  description: resource.description ?? "",
  accepted: requirement
})

/** An x402 network this client signs for: its chain id and, where it has one everyone uses, its USDC. */
export interface X402Network {
  readonly chainId: number
  readonly usdc?: Address
}

/**
 * The x402 networks known by name. USDC addresses from Circle,
 * https://developers.circle.com/stablecoins/usdc-contract-addresses; the local chain's USDC is a
 * deployment's, which the caller gives as `asset`.
 */
export const x402Networks: Readonly<Record<string, X402Network>> = {
  base: { chainId: 8453, usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
  "base-sepolia": { chainId: 84532, usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" },
  localhost: { chainId: 31337 }
}

/** The network paid on when the caller names none: the provider takes x402 payments on Base. */
export const defaultX402Network = "base"
/** The most paid when the caller says nothing: 0.1 USDC in its base units, as Coinbase's `x402-fetch`. */
export const defaultMaxAmount = 100_000n
/** The longest validity window signed when the caller says nothing: one hour. */
export const defaultMaxTimeoutSeconds = 3600

/** The largest value an EIP-3009 authorisation can carry. */
const maxUint256 = 2n ** 256n - 1n

/** The chain id of an x402 network name, or of `eip155:<id>`. */
export const chainIdOf = (network: string): number | undefined => {
  const known = Object.hasOwn(x402Networks, network) ? x402Networks[network]!.chainId : undefined
  const id = known ?? Number(/^eip155:([1-9]\d{0,15})$/.exec(network)?.[1] ?? Number.NaN)
  return Number.isSafeInteger(id) ? id : undefined
}

/** What the caller allows; every field optional, defaults as the module says. */
export interface X402Limits {
  /** The x402 network to pay on: `base` (default), `base-sepolia`, `localhost` or `eip155:<id>`. */
  readonly network?: string | undefined
  /** The token to pay in; default the network's USDC (required where none is known, as on `localhost`). */
  readonly asset?: Address | undefined
  /** The most to pay, in the token's base units. Default 100000 (0.1 USDC). */
  readonly maxAmount?: bigint | undefined
  /** The longest validity window to sign, in seconds. Default 3600. */
  readonly maxTimeoutSeconds?: number | undefined
}

/** The limits with their defaults filled in. */
export interface X402Expectation {
  readonly network: string
  readonly chainId: number
  readonly asset: Address
  readonly maxAmount: bigint
  readonly maxTimeoutSeconds: number
}

/** The caller's limits completed; a network without a known USDC and no `asset` is the caller's mistake. */
export const expectation = (method: string, limits: X402Limits): Effect.Effect<X402Expectation, InvalidArgument> => {
  const network = limits.network ?? defaultX402Network
  const chainId = chainIdOf(network)
  if (chainId === undefined)
    return Effect.fail(
      new InvalidArgument({
        method,
        detail: `network ${network} is none of ${Object.keys(x402Networks).join(", ")} or eip155:<chain id>`
      })
    )
  const asset = limits.asset ?? (Object.hasOwn(x402Networks, network) ? x402Networks[network]!.usdc : undefined)
  if (asset === undefined)
    return Effect.fail(new InvalidArgument({ method, detail: `no USDC is known on ${network}: give the asset` }))
  return Effect.succeed({
    network,
    chainId,
    asset: getAddress(asset),
    maxAmount: limits.maxAmount ?? defaultMaxAmount,
    maxTimeoutSeconds: limits.maxTimeoutSeconds ?? defaultMaxTimeoutSeconds
  })
}

/** Terms checked against the caller's limits: what would be signed. */
export interface X402Terms {
  /** The x402 version the network spoke (1: `X-PAYMENT`; 2: `PAYMENT-SIGNATURE`). */
  readonly x402Version: 1 | 2
  /** The network as the `402` names it (the payment header repeats it). */
  readonly network: string
  readonly chainId: number
  /** The token, and its EIP-712 domain name and version (`USD Coin`, `2` for USDC). */
  readonly asset: Address
  readonly token: { readonly name: string; readonly version: string }
  /** The price asked, in the token's base units. */
  readonly amount: bigint
  readonly payTo: Address
  /** How long the authorisation stays valid, in seconds. */
  readonly maxTimeoutSeconds: number
  readonly resource: string
  readonly description: string
}

const malformed = (field: string, value: unknown, reason: string) =>
  Effect.fail(new X402MalformedTerms({ field, value: String(value), reason }))

/** The requirement's numbers and addresses as x402 defines them, or the first that is not. */
const wellFormed = (requirement: X402Offer, chainId: number) => {
  const { payTo, amountField, maxTimeoutSeconds } = requirement
  if (!isAddress(payTo, { strict: false })) return malformed("payTo", payTo, "is not an address")
  if (getAddress(payTo) === zeroAddress) return malformed("payTo", payTo, "is the zero address")
  if (!/^(0|[1-9]\d*)$/.test(requirement.amount))
    return malformed(amountField, requirement.amount, "is not a whole number of base units in decimal digits")
  const amount = BigInt(requirement.amount)
  if (amount > maxUint256) return malformed(amountField, requirement.amount, "is above 2^256 - 1")
  if (!Number.isSafeInteger(maxTimeoutSeconds) || maxTimeoutSeconds <= 0)
    return malformed("maxTimeoutSeconds", maxTimeoutSeconds, "is not a whole number of seconds above 0")
  const terms: X402Terms = {
    x402Version: requirement.x402Version,
    network: requirement.network,
    chainId,
    asset: getAddress(requirement.asset),
    token: requirement.extra,
    amount,
    payTo: getAddress(payTo),
    maxTimeoutSeconds,
    resource: requirement.resource,
    description: requirement.description
  }
  return Effect.succeed(terms)
}

/** The terms within the caller's ceiling and window cap. */
const withinLimits = (terms: X402Terms, expected: X402Expectation) => {
  if (terms.amount > expected.maxAmount)
    return Effect.fail(
      new X402PriceAboveMaximum({ asked: String(terms.amount), maxAmount: String(expected.maxAmount) })
    )
  if (terms.maxTimeoutSeconds > expected.maxTimeoutSeconds)
    return Effect.fail(
      new X402WindowTooLong({
        asked: String(terms.maxTimeoutSeconds),
        maxTimeoutSeconds: String(expected.maxTimeoutSeconds)
      })
    )
  return Effect.succeed(terms)
}

/**
 * The one requirement of `accepts` (of either version) the caller pays: scheme `exact`, on the expected chain, in the
 * expected token, well formed, within the ceiling and the window cap. Nothing is signed here; a
 * refusal names the first thing that did not fit.
 */
export const chooseTerms = Effect.fnUntraced(function* (accepts: ReadonlyArray<X402Offer>, expected: X402Expectation) {
  const exact = accepts.filter((r) => r.scheme === "exact")
  if (exact.length === 0) return yield* new X402PaymentRefused({ reason: "no exact scheme offered" })
  const onChain = exact.filter((r) => chainIdOf(r.network) === expected.chainId)
  if (onChain.length === 0)
    return yield* new X402WrongNetwork({ asked: exact.map((r) => r.network).join(", "), expected: expected.network })
  const inAsset = onChain.filter((r) => isAddress(r.asset, { strict: false }) && getAddress(r.asset) === expected.asset)
  const requirement = inAsset[0]
  if (requirement === undefined) {
    const asked = onChain[0]!.asset
    return yield* isAddress(asked, { strict: false })
      ? Effect.fail(new X402WrongAsset({ asked: getAddress(asked), offered: expected.asset }))
      : malformed("asset", asked, "is not an address")
  }
  const terms = yield* wellFormed(requirement, expected.chainId)
  const checked = yield* withinLimits(terms, expected)
  return { terms: checked, offer: requirement }
})
