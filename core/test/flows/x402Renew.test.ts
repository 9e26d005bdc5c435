/**
 * Renewing a year of Walrus storage over x402 (the provider's `walrus-main`), end to end against
 * the simulated network: a paid upload on the current route answers its record id and first year;
 * the uploader's renewal is priced by the file's Walrus-encoded size (the route's numbers are
 * `x402RenewPriceOf`'s), settled on chain, and moves the expiry a year on; another account's is
 * refused `403` with nothing settled and the expiry kept; the caller's ceiling holds for renewals.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import type { privateKeyToAccount } from "viem/accounts"
import * as Payment from "../../src/Payment.ts"
import { x402Fixture } from "../support/x402Chain.ts"

const { x402, layer, balanceOf, payer, clockAtChain, local: limits } = x402Fixture()

const YEAR_MS = 365 * 24 * 60 * 60 * 1000

/** A paid upload of `size` bytes on the current route by `account`: its record id and first expiry. */
const uploaded = (account: ReturnType<typeof privateKeyToAccount>, size: number) =>
  Effect.gen(function* () {
    const payment = yield* Payment.Payment
    const file = new File([new Uint8Array(size).fill(7)], "walrus.bin")
    const result = yield* payment.x402Upload({ file, account, routes: "current", ...limits() })
    const { id, expiresAt } = result.stored!
    return { id: id!, expiresAt: expiresAt!, cid: result.entry.Hash }
  })

describe("x402 renewal of Walrus storage", () => {
  it.effect("the uploader's renewal is settled at the encoded-size price and extends the expiry by a year", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(1, 1_000_000n)
      const before = Date.now()
      const file = yield* uploaded(account, 17)
      assert.isAtLeast(file.expiresAt, before + YEAR_MS)
      assert.isAtMost(file.expiresAt, Date.now() + YEAR_MS)

      const quoted = yield* payment.x402RenewPrice({ id: file.id })
      assert.deepStrictEqual(
        [quoted.encodedSizeBytes, quoted.billableMiB, quoted.totalPrice, quoted.currentExpiresAt],
        [66_034_000, 63, "$0.032500", file.expiresAt]
      )
      const paidBefore = yield* balanceOf(x402.payTo)
      const renewed = yield* payment.x402Renew({ id: file.id, account, ...limits() })
      assert.deepStrictEqual(
        [renewed.paid.x402Version, renewed.paid.amount, renewed.settlement.success],
        [2, 32_500n, true]
      )
      assert.strictEqual(yield* balanceOf(x402.payTo), paidBefore + 32_500n)
      assert.deepStrictEqual(renewed.renewal, {
        success: true,
        id: file.id,
        cid: file.cid,
        fileName: "walrus.bin",
        fileSizeBytes: 17,
        previousExpiresAt: file.expiresAt,
        expiresAt: file.expiresAt + YEAR_MS,
        storagePeriodDays: 365,
        publicKey: account.address.toLowerCase()
      })
      const again = yield* payment.x402RenewPrice({ id: file.id })
      assert.strictEqual(again.currentExpiresAt, file.expiresAt + YEAR_MS)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("another account's renewal is refused 403: nothing settled, the expiry kept", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const file = yield* uploaded(yield* payer(2, 1_000_000n), 1000)
      const stranger = yield* payer(3, 1_000_000n)
      const paidBefore = yield* balanceOf(x402.payTo)
      const refused = yield* Effect.flip(payment.x402Renew({ id: file.id, account: stranger, ...limits() }))
      assert.strictEqual(refused._tag, "RequestFailed")
      if (refused._tag !== "RequestFailed") return
      assert.strictEqual(refused.status, 403)
      assert.deepStrictEqual(JSON.parse(refused.body ?? ""), {
        error: "Only the original uploader can renew this file",
        id: file.id
      })
      assert.strictEqual(yield* balanceOf(x402.payTo), paidBefore)
      assert.strictEqual(yield* balanceOf(stranger.address), 1_000_000n)
      assert.strictEqual((yield* payment.x402RenewPrice({ id: file.id })).currentExpiresAt, file.expiresAt)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a renewal within the caller's limits only; an unknown record is 404 before any payment", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(4, 1_000_000n)
      const file = yield* uploaded(account, 5)
      const paidBefore = yield* balanceOf(x402.payTo)
      const ceiling = yield* Effect.flip(payment.x402Renew({ id: file.id, account, ...limits(), maxAmount: 32_499n }))
      assert.strictEqual(
        ceiling.message,
        "x402 payment of 32500 asked, above the 32499 allowed (raise maxAmount to pay it)"
      )
      const otherChain = yield* Effect.flip(payment.x402Renew({ id: file.id, account, network: "base" }))
      assert.strictEqual(otherChain.message, "x402 payment asked on eip155:31337, expected base")
      const unknown = yield* Effect.flip(payment.x402Renew({ id: "no-such-record", account, ...limits() }))
      assert.deepStrictEqual(
        unknown._tag === "RequestFailed" ? [unknown.status, JSON.parse(unknown.body ?? "")] : unknown._tag,
        [404, { error: "File record not found", id: "no-such-record" }]
      )
      assert.strictEqual(yield* balanceOf(x402.payTo), paidBefore)
      assert.strictEqual((yield* payment.x402RenewPrice({ id: file.id })).currentExpiresAt, file.expiresAt)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the renewal price route's numbers are x402RenewPriceOf's, whatever the size", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(5, 10_000_000n)
      // Sizes around the steps of the encoded size (its symbol grows every 222,778 bytes, rounded up to even).
      const size = fc.oneof(
        fc.integer({ min: 1, max: 4096 }),
        fc
          .integer({ min: 1, max: 12 })
          .chain((step) => fc.integer({ min: step * 222_778 - 2, max: step * 222_778 + 2 }))
      )
      const run = (bytes: number) =>
        Effect.gen(function* () {
          const file = yield* uploaded(account, bytes)
          const routed = yield* payment.x402RenewPrice({ id: file.id })
          const { amount, ...computed } = Payment.x402RenewPriceOf(bytes)
          assert.deepStrictEqual(routed, {
            id: file.id,
            cid: file.cid,
            fileName: "walrus.bin",
            ...computed,
            storagePeriodDays: 365,
            currentExpiresAt: file.expiresAt,
            network: "eip155:31337",
            payTo: x402.payTo
          })
          assert.strictEqual(amount, Payment.baseUnitsOfDollars(routed.totalPrice))
        }).pipe(Effect.provide(layer()))
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(size, (bytes) => Effect.runPromise(run(bytes))),
          { numRuns: 8 }
        )
      )
    }).pipe(Effect.provide(layer()))
  )
})
