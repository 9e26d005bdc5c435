/**
 * The storage price (USD per byte stored, at least 1 MB charged) in exact integer arithmetic.
 *
 * The provider computes, in floating point,
 * `usd = 0.00390625 × max(size, 1 048 576) / 1 048 576`, then
 * `parseUnits(usd.toFixed(decimals), decimals)` for a stablecoin and
 * `parseUnits((usd / tickerPrice).toFixed(nativeDecimals), nativeDecimals)` for the native coin.
 *
 * Here the same formula runs on `bigint`s:
 * - `0.00390625` is 2⁻⁸ and one MB is 2²⁰ bytes, so the cost is exactly `chargeable / 2²⁸` USD
 *   (a 1 MB floor, no rounding up of a partial MB: the price grows byte by byte above 1 MB).
 * - Rounding to the token's decimals is **half up** (ties go to the larger amount), which is what
 *   `Number.prototype.toFixed` does on an exact value. For stablecoins the float value is exact
 *   (a power-of-two division), so the amount is the provider's to the unit for every size up to
 *   2⁵³ bytes; beyond that the provider's `number` loses bytes and this module does not.
 * - For the native coin the provider divides two floats and carries the rounding noise into the
 *   last digits. Here the ticker price is read as the decimal it was written as (`String(price)`,
 *   the shortest text that round-trips the JSON number) and the division is exact, then rounded
 *   half up: the result is within one unit (relative 2⁻⁵⁰) of the provider's, and reproducible.
 *
 * @since 0.1.0
 */
import { formatUnits } from "viem"

// =============================================================================
// Constants
// =============================================================================

/** One MB as the provider counts it: 1 048 576 bytes (2²⁰). */
export const BYTES_PER_MB = 1_048_576n

/** Sizes below this are charged as this: the provider's 1 MB floor. */
export const MIN_CHARGEABLE_BYTES = BYTES_PER_MB

/** The price of one MB in USD, as text: 0.00390625 (= 2⁻⁸, i.e. 4 USD per GB of 2³⁰ bytes). */
export const USD_PER_MB = "0.00390625"

// 0.00390625 USD per 2²⁰ bytes = 1 USD per 2²⁸ bytes.
const BYTES_PER_USD = BYTES_PER_MB * 256n

// =============================================================================
// Arithmetic
// =============================================================================

/** An exact non-negative rational `numerator / denominator`, denominator > 0. */
export interface Ratio {
  readonly numerator: bigint
  readonly denominator: bigint
}

/** `numerator / denominator` rounded to the nearest integer, ties up (what `toFixed` does). */
export const roundHalfUp = (numerator: bigint, denominator: bigint): bigint =>
  (2n * numerator + denominator) / (2n * denominator)

/** The bytes a size is charged for: the size itself, or 1 MB when it is smaller. */
export const chargeableBytes = (size: bigint): bigint => (size < MIN_CHARGEABLE_BYTES ? MIN_CHARGEABLE_BYTES : size)

/** The exact USD cost of storing `size` bytes. */
export const usdCost = (size: bigint): Ratio => ({ numerator: chargeableBytes(size), denominator: BYTES_PER_USD })

/**
 * The USD cost as an exact decimal string (`"0.00390625"` for 1 MB). It always terminates:
 * the denominator is a power of two, so 28 decimals are enough.
 */
export const usdCostText = (size: bigint): string => formatUnits(chargeableBytes(size) * 5n ** 28n, 28)

/** A stablecoin amount, in the token's smallest unit: the USD cost rounded half up to `decimals`. */
export const tokenUnits = (size: bigint, decimals: number): bigint =>
  roundHalfUp(chargeableBytes(size) * 10n ** BigInt(decimals), BYTES_PER_USD)

/**
 * A native-coin amount, in the coin's smallest unit: the USD cost divided by the coin's USD price,
 * rounded half up to `decimals`.
 */
export const nativeUnits = (size: bigint, decimals: number, usdPerCoin: Ratio): bigint =>
  roundHalfUp(
    chargeableBytes(size) * 10n ** BigInt(decimals) * usdPerCoin.denominator,
    BYTES_PER_USD * usdPerCoin.numerator
  )

// =============================================================================
// Ticker prices
// =============================================================================

const decimalPattern = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i

/**
 * A ticker price (a JSON number, or a numeric string) as an exact ratio of its decimal text.
 * `undefined` when it is not a finite number greater than zero: no price can be divided by it.
 */
export const parseTickerPrice = (value: number | string): Ratio | undefined => {
  // `String(n)` is the shortest decimal that reads back as `n`: what the server most likely wrote.
  const text = (typeof value === "number" ? String(value) : value).trim()
  const match = decimalPattern.exec(text)
  if (match === null) return undefined
  const whole = match[1] ?? ""
  const fraction = match[2] ?? ""
  const exponent = Number(match[3] ?? "0") - fraction.length
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return undefined
  const digits = BigInt(`${whole}${fraction}`)
  if (digits === 0n) return undefined
  return exponent >= 0
    ? { numerator: digits * 10n ** BigInt(exponent), denominator: 1n }
    : { numerator: digits, denominator: 10n ** BigInt(-exponent) }
}
