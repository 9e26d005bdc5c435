/**
 * The provider's x402 prices computed locally (its `src/utils/pricing.ts` on `main`, and the
 * Walrus-encoded size of its `walrus-main` branch's `src/utils/walrusSize.ts`), through the public
 * entry point.
 */
import fc from "fast-check"
import { Payment } from "lighthouse-effect"
import { describe, expect, it } from "vitest"

const MB = 1024 * 1024

describe("x402PriceOf: the provider's price, computed here", () => {
  it("1 MB minimum: any size up to 1 MB costs $0.005000 (0.004 + 0.001 fee), 5000 USDC base units", () => {
    expect(Payment.x402PriceOf(1)).toEqual({
      fileSizeBytes: 1,
      fileSizeMB: 0,
      billableMB: 1,
      pricePerMB: "$0.004",
      totalPrice: "$0.005000",
      amount: 5000n
    })
    expect(Payment.x402PriceOf(MB).amount).toBe(5000n)
    expect(Payment.x402PriceOf(100 * MB)).toMatchObject({ billableMB: 100, totalPrice: "$0.401000", amount: 401_000n })
  })

  it("property: the amount is the total's dollars in base units, never below the minimum, never falling as size grows", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 * MB }), fc.integer({ min: 0, max: 64 * MB }), (size, more) => {
        const price = Payment.x402PriceOf(size)
        expect(price.amount).toBe(BigInt(price.totalPrice.replace("$", "").replace(".", "")))
        expect(price.amount).toBeGreaterThanOrEqual(5000n)
        expect(Payment.x402PriceOf(size + more).amount).toBeGreaterThanOrEqual(price.amount)
      })
    )
  })

  it("baseUnitsOfDollars reads the server's dollar text as @x402/core does", () => {
    expect(Payment.baseUnitsOfDollars("$0.005000")).toBe(5000n)
    expect(Payment.baseUnitsOfDollars("$12.5")).toBe(12_500_000n)
    expect(Payment.baseUnitsOfDollars("0.0000019")).toBe(1n)
  })
})

describe("walrusEncodedSize: Mysten's RS2 formula", () => {
  it("the server's test value: 17 bytes on 1000 shards encode to 66,034,000 bytes", () => {
    expect(Payment.walrusEncodedSize(17, 1000)).toBe(66_034_000)
    expect(Payment.walrusEncodedSize(17)).toBe(66_034_000)
  })

  it("an empty blob is billed as 1 byte; the metadata dominates small blobs; sizes only grow", () => {
    expect(Payment.walrusEncodedSize(0)).toBe(Payment.walrusEncodedSize(1))
    // 1000 shards × (1000 × 2 × 32 + 32) bytes of metadata.
    expect(Payment.walrusEncodedSize(1)).toBeGreaterThan(64_032_000)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 30 }), (size, more) => {
        expect(Payment.walrusEncodedSize(size + more)).toBeGreaterThanOrEqual(Payment.walrusEncodedSize(size))
        expect(Payment.walrusEncodedSize(size)).toBeGreaterThan(size)
      })
    )
  })
})
