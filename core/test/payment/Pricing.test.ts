/**
 * The price formula on its boundaries, and against the provider's own floating-point formula used
 * as an oracle.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { parseUnits } from "viem"
import {
  BYTES_PER_MB,
  chargeableBytes,
  nativeUnits,
  parseTickerPrice,
  roundHalfUp,
  tokenUnits,
  usdCostText
} from "../../src/payment/Pricing.ts"

const MB = 1_048_576
const GB = 1_073_741_824

// The provider's getPrice, line for line: floats, toFixed, parseUnits.
const providerToken = (size: number, decimals: number) =>
  parseUnits(((0.00390625 * Math.max(size, MB)) / MB).toFixed(decimals), decimals)
const providerNative = (size: number, decimals: number, price: number) =>
  parseUnits(((0.00390625 * Math.max(size, MB)) / MB / price).toFixed(decimals), decimals)

const five = { numerator: 5n, denominator: 1n }

describe("Pricing", () => {
  describe("boundaries", () => {
    const cases: ReadonlyArray<readonly [string, number, string, bigint, bigint, bigint]> = [
      // name, size, usd, 6 decimals, 18 decimals, native at $5 (18 decimals)
      ["0 bytes", 0, "0.00390625", 3906n, 3906250000000000n, 781250000000000n],
      ["1 MB - 1", MB - 1, "0.00390625", 3906n, 3906250000000000n, 781250000000000n],
      ["1 MB", MB, "0.00390625", 3906n, 3906250000000000n, 781250000000000n],
      ["1 MB + 1", MB + 1, "0.0039062537252902984619140625", 3906n, 3906253725290298n, 781250745058060n],
      ["1 GB", GB, "4", 4000000n, 4000000000000000000n, 800000000000000000n]
    ]
    for (const [name, size, usd, six, eighteen, native] of cases) {
      it.effect(name, () =>
        Effect.sync(() => {
          const bytes = BigInt(size)
          assert.strictEqual(usdCostText(bytes), usd)
          assert.strictEqual(tokenUnits(bytes, 6), six)
          assert.strictEqual(tokenUnits(bytes, 18), eighteen)
          assert.strictEqual(nativeUnits(bytes, 18, five), native)
        })
      )
    }

    it.effect("the 1 MB floor, and no rounding up of a partial MB", () =>
      Effect.sync(() => {
        assert.strictEqual(chargeableBytes(0n), BYTES_PER_MB)
        assert.strictEqual(chargeableBytes(BYTES_PER_MB - 1n), BYTES_PER_MB)
        assert.strictEqual(chargeableBytes(BYTES_PER_MB + 1n), BYTES_PER_MB + 1n)
        // 100 MB in a 6-decimal token: 0.390625 USD.
        assert.strictEqual(tokenUnits(100n * BYTES_PER_MB, 6), 390625n)
      })
    )

    it.effect("rounds half up, as toFixed does", () =>
      Effect.sync(() => {
        assert.strictEqual(roundHalfUp(5n, 2n), 3n)
        assert.strictEqual(roundHalfUp(7n, 2n), 4n)
        assert.strictEqual(roundHalfUp(4n, 3n), 1n)
        assert.strictEqual(roundHalfUp(5n, 3n), 2n)
        // 2.5 MB in a 0-decimal token: 0.009765625 USD → 0; 384 MB → 1.5 USD → 2 (the tie goes up).
        assert.strictEqual(tokenUnits(384n * BYTES_PER_MB, 0), 2n)
        assert.strictEqual(providerToken(384 * MB, 0), 2n)
      })
    )

    it.effect("sizes past 2^53 bytes stay exact (the provider's number would not)", () =>
      Effect.sync(() => {
        const size = 2n ** 60n + 1n
        // 2^60 / 2^28 = 2^32 USD, plus 1/2^28 USD which rounds away at 6 decimals.
        assert.strictEqual(tokenUnits(size, 6), 2n ** 32n * 1_000_000n)
        assert.strictEqual(tokenUnits(size, 36), 2n ** 32n * 10n ** 36n + roundHalfUp(10n ** 36n, 2n ** 28n))
      })
    )
  })

  describe("against the provider's formula", () => {
    const size = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))
    const decimals = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 18 }))

    it.effect.prop("stablecoins: equal to the unit for every safe size", [size, decimals], ([bytes, d]) =>
      Effect.sync(() => tokenUnits(BigInt(bytes), d) === providerToken(bytes, d))
    )

    // Prices between 0.0001 and 100 000 USD, written with up to 4 decimals, as a ticker would.
    const cents = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 }))
    const smallSize = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 40 }))

    it.effect.prop("native: within the provider's float noise", [smallSize, cents], ([bytes, tenThousandths]) =>
      Effect.sync(() => {
        const price = tenThousandths / 10_000
        const ratio = parseTickerPrice(price)
        if (ratio === undefined) return false
        const ours = nativeUnits(BigInt(bytes), 18, ratio)
        const theirs = providerNative(bytes, 18, price)
        const diff = ours > theirs ? ours - theirs : theirs - ours
        // Two float roundings (the division and the cost) of relative 2^-53 each, plus the last digit.
        return diff <= ours / 2n ** 50n + 1n
      })
    )
  })

  describe("ticker prices", () => {
    it.effect("read as the decimal they were written as", () =>
      Effect.sync(() => {
        assert.deepStrictEqual(parseTickerPrice(5), { numerator: 5n, denominator: 1n })
        assert.deepStrictEqual(parseTickerPrice(0.4567), { numerator: 4567n, denominator: 10000n })
        assert.deepStrictEqual(parseTickerPrice("12.50"), { numerator: 1250n, denominator: 100n })
        assert.deepStrictEqual(parseTickerPrice(1e-7), { numerator: 1n, denominator: 10_000_000n })
        assert.deepStrictEqual(parseTickerPrice(2e21), { numerator: 2n * 10n ** 21n, denominator: 1n })
        // The provider's example: FIL at $5, 1 KiB → 0.00078125 FIL.
        assert.strictEqual(nativeUnits(1024n, 18, five), 781250000000000n)
      })
    )

    it.effect("refused when no amount can be divided by them", () =>
      Effect.sync(() => {
        for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "", "abc", "0.000", "1e5000"])
          assert.strictEqual(parseTickerPrice(bad), undefined, String(bad))
      })
    )
  })
})
