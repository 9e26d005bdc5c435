/**
 * What the provider's current x402 server charges, computed here as it computes it, and its price
 * route's answer (`GET /api/upload/price?size=BYTES`).
 *
 * The server (https://github.com/lighthouse-web3/x402, `src/utils/pricing.ts`, `main`) bills the
 * size in MB of 1024 × 1024 bytes, at least 1 MB, at `pricePerMB` dollars plus a flat facilitator
 * fee, in IEEE-754 doubles, and writes the dollars with 6 decimals (`$0.005000`). `@x402/evm`
 * turns that text into USDC base units (6 decimals) digit by digit. The same double arithmetic is
 * done here so that both give the same text for every size.
 *
 * Its `walrus-main` branch bills a year of Walrus storage by the blob's encoded size instead
 * (`src/utils/walrusSize.ts`, Mysten's RS2 formula): `walrusEncodedSize` is that formula.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/** What the provider's server charges: dollars per MB and a flat fee per payment (its defaults). */
export interface X402Tariff {
  readonly pricePerMB: number
  readonly facilitatorFee: number
}

/** The provider's defaults (`PRICE_PER_MB` 0.004, `FACILITATOR_FEE` 0.001 in its `src/config.ts`). */
export const providerTariff: X402Tariff = { pricePerMB: 0.004, facilitatorFee: 0.001 }

/** The smallest billed size, in MB. */
const minBillableMB = 1
const bytesPerMB = 1024 * 1024

/** The price route's answer. */
export const X402PriceQuote = Schema.Struct({
  fileSizeBytes: Schema.Number,
  fileSizeMB: Schema.Number,
  billableMB: Schema.Number,
  /** Dollars per MB, as `$0.004`. */
  pricePerMB: Schema.String,
  /** Dollars with 6 decimals, as `$0.005000`. */
  totalPrice: Schema.String,
  network: Schema.String,
  payTo: Schema.String
}).annotate({ identifier: "X402PriceQuote" })
export type X402PriceQuote = typeof X402PriceQuote.Type

/** A price computed here: the route's numbers (without the network and payee) and the base units `402` asks. */
export interface X402LocalPrice {
  readonly fileSizeBytes: number
  readonly fileSizeMB: number
  readonly billableMB: number
  readonly pricePerMB: string
  readonly totalPrice: string
  /** USDC base units (6 decimals) of `totalPrice`: the `amount` of the `402`. */
  readonly amount: bigint
}

/** `$0.005000` as base units of a token with `decimals` decimals (as `@x402/core`'s `convertToTokenAmount`). */
export const baseUnitsOfDollars = (price: string, decimals = 6): bigint => {
  const [whole = "0", fraction = ""] = price.replace(/^\$/, "").split(".")
  return BigInt(whole + fraction.padEnd(decimals, "0").slice(0, decimals))
}

/** What the provider's server charges for an upload of `size` bytes (`size` > 0), as its price route says it. */
export const x402PriceOf = (size: number, tariff: X402Tariff = providerTariff): X402LocalPrice => {
  const rawMB = size / bytesPerMB
  const billableMB = Math.max(rawMB, minBillableMB)
  const totalPrice = `$${(billableMB * tariff.pricePerMB + tariff.facilitatorFee).toFixed(6)}`
  return {
    fileSizeBytes: size,
    fileSizeMB: Number.parseFloat(rawMB.toFixed(4)),
    billableMB: Number.parseFloat(billableMB.toFixed(4)),
    pricePerMB: `$${tariff.pricePerMB}`,
    totalPrice,
    amount: baseUnitsOfDollars(totalPrice)
  }
}

/** Walrus mainnet's committee: 1000 shards. */
export const walrusMainnetShards = 1000

/**
 * The size Walrus stores (and bills) for a blob of `size` bytes on `shards` shards: RedStuff's
 * primary and secondary slivers of symbols of an even number of bytes, plus per-blob metadata (two
 * 32-byte digests per shard and the 32-byte blob id, held by every shard). Mysten's RS2 formula with
 * a decoding safety limit of 0, as the provider's `walrusSize.ts` ports it; a 17-byte blob on 1000
 * shards is 66,034,000 bytes.
 */
export const walrusEncodedSize = (size: number, shards: number = walrusMainnetShards): number => {
  const n = shards > 0 ? shards : walrusMainnetShards
  const maxFaulty = Math.floor((n - 1) / 3)
  const primarySymbols = n - 2 * maxFaulty
  const secondarySymbols = n - maxFaulty
  if (primarySymbols <= 0 || secondarySymbols <= 0) return 0
  const symbolSize = Math.floor((Math.max(size, 1) - 1) / (primarySymbols * secondarySymbols)) + 1
  const evenSymbolSize = symbolSize % 2 === 1 ? symbolSize + 1 : symbolSize
  const metadata = n * 32 * 2 + 32
  return n * metadata + (primarySymbols + secondarySymbols) * evenSymbolSize * n
}

/** `walrus-main`'s tariff: dollars per MiB of encoded size per year (`PRICE_PER_MB`), and the fee per payment. */
export const walrusTariff: X402Tariff = { pricePerMB: 0.0005, facilitatorFee: 0.001 }

/** A year of Walrus storage priced here: the renewal price route's numbers and the base units its `402` asks. */
export interface X402LocalRenewPrice {
  readonly fileSizeBytes: number
  readonly fileSizeMB: number
  readonly encodedSizeBytes: number
  readonly encodedSizeMiB: number
  /** Whole MiB of encoded size: what Walrus sells. */
  readonly billableMiB: number
  readonly pricePerMB: string
  readonly facilitatorFee: string
  readonly totalPrice: string
  readonly amount: bigint
}

/**
 * What the provider's `walrus-main` charges for a year of a file of `size` bytes (an upload there,
 * or a renewal): whole MiB of its encoded size at `pricePerMB`, plus the fee, as its
 * `calculatePriceQuote` computes them (doubles, 6 decimals).
 */
export const x402RenewPriceOf = (size: number, tariff: X402Tariff = walrusTariff): X402LocalRenewPrice => {
  const encodedSizeBytes = walrusEncodedSize(size)
  const billableMiB = Math.ceil(encodedSizeBytes / bytesPerMB)
  const totalPrice = `$${(billableMiB * tariff.pricePerMB + tariff.facilitatorFee).toFixed(6)}`
  return {
    fileSizeBytes: size,
    fileSizeMB: Number.parseFloat((size / bytesPerMB).toFixed(4)),
    encodedSizeBytes,
    encodedSizeMiB: Number.parseFloat((encodedSizeBytes / bytesPerMB).toFixed(4)),
    billableMiB,
    pricePerMB: `$${tariff.pricePerMB}`,
    facilitatorFee: `$${tariff.facilitatorFee.toFixed(6)}`,
    totalPrice,
    amount: baseUnitsOfDollars(totalPrice)
  }
}
