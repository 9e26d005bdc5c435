/**
 * x402 version 2 on the provider's current routes, end to end against the simulated network: the
 * `402` comes in `PAYMENT-REQUIRED`, the client signs for the CAIP-2 network (`eip155:31337`) and
 * pays in `PAYMENT-SIGNATURE`, the settlement comes back in `PAYMENT-RESPONSE`, and the file (the
 * raw body) is stored for the payer. The price route's numbers equal `x402PriceOf`'s. The
 * documented route still speaks version 1 on the same network.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CID } from "multiformats/cid"
import type { Hex } from "viem"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as Config from "../../src/LighthouseConfig.ts"
import * as Payment from "../../src/Payment.ts"
import { chainTransport, localNetworks } from "../support/chain.ts"
import { x402Fixture } from "../support/x402Chain.ts"

const { x402, layer, balanceOf, payer, clockAtChain, local } = x402Fixture()
const file = (text: string) => new File([text], "paid.txt", { type: "text/plain" })

/** At least 1 MB at $0.004 plus the $0.001 fee: $0.005000, in USDC base units. */
const MIN_PRICE = 5000n

const current = () => ({ ...local(), routes: "current" as const })

describe("x402 version 2 on the current routes", () => {
  it.effect("402 in PAYMENT-REQUIRED, PAYMENT-SIGNATURE, settled on chain; the raw body is stored for the payer", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const account = yield* payer(1, 10_000n)
      const before = yield* balanceOf(x402.payTo)
      const payment = yield* Payment.Payment
      const quoted = yield* payment.x402Quote({ file: file("paid for by x402 v2"), ...current() })
      assert.deepStrictEqual([quoted.x402Version, quoted.network, quoted.amount], [2, "eip155:31337", MIN_PRICE])

      const result = yield* payment.x402Upload({ file: file("paid for by x402 v2"), account, ...current() })
      assert.deepStrictEqual([result.paid.x402Version, result.paid.amount], [2, MIN_PRICE])
      assert.deepStrictEqual(
        [result.settlement.success, result.settlement.network, result.settlement.payer],
        [true, "eip155:31337", account.address.toLowerCase()]
      )
      const receipt = yield* Effect.promise(() =>
        x402.chain.publicClient.getTransactionReceipt({ hash: result.settlement.transaction as Hex })
      )
      assert.strictEqual(receipt.status, "success")
      assert.strictEqual(yield* balanceOf(x402.payTo), before + MIN_PRICE)
      // `walrus-main`'s record id and first year, which a renewal names.
      const record = x402.network.state.files.of(account.address.toLowerCase())[0]!
      const { expiresAt, ...stored } = result.stored!
      assert.isAbove(expiresAt!, record.createdAt + 364 * 24 * 60 * 60 * 1000)
      assert.deepStrictEqual(stored, {
        id: record.id,
        storagePeriodDays: 365,
        success: true,
        cid: result.entry.Hash,
        fileName: "paid.txt",
        mimeType: "text/plain",
        fileSizeBytes: 19,
        publicKey: account.address.toLowerCase(),
        ipfsUrl: `https://gateway.lighthouse.storage/ipfs/${result.entry.Hash}`
      })
      assert.deepStrictEqual([result.entry.Name, result.entry.Size], ["paid.txt", "19"])
      assert.deepStrictEqual(
        x402.network.state.files.of(account.address.toLowerCase()).map((r) => [r.cid, r.fileName]),
        [[result.entry.Hash, "paid.txt"]]
      )
      assert.isTrue(yield* Effect.promise(() => x402.network.state.content.has(CID.parse(result.entry.Hash))))
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the documented route still speaks version 1 on the same network", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const account = yield* payer(2, 10_000n)
      const payment = yield* Payment.Payment
      const result = yield* payment.x402Upload({ file: file("v1"), account, ...local(), routes: "documented" })
      assert.deepStrictEqual([result.paid.x402Version, result.settlement.network], [1, "localhost"])
      assert.isUndefined(result.stored)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("refusals of version 2 payments are the same typed errors; nothing stored, nothing settled", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(3, 10_000n)
      const before = yield* balanceOf(x402.payTo)
      const attempt = (input: Omit<Payment.X402UploadInput, "file">) =>
        payment.x402Upload({ file: file("refused"), ...current(), ...input }).pipe(Effect.flip)
      const underpaid = yield* attempt({ account, amount: MIN_PRICE - 1n })
      assert.strictEqual(underpaid.message, "x402 payment of 4999 is below the 5000 required")
      const broke = yield* attempt({ account: yield* payer(4, 0n) })
      assert.strictEqual(broke._tag, "X402InsufficientFunds")
      const ceiling = yield* attempt({ account, maxAmount: MIN_PRICE - 1n })
      assert.strictEqual(
        ceiling.message,
        "x402 payment of 5000 asked, above the 4999 allowed (raise maxAmount to pay it)"
      )
      const otherChain = yield* attempt({ account, network: "base", asset: undefined })
      assert.strictEqual(otherChain.message, "x402 payment asked on eip155:31337, expected base")
      assert.deepStrictEqual(x402.network.state.files.of(account.address.toLowerCase()), [])
      assert.strictEqual(yield* balanceOf(x402.payTo), before)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the price route's numbers are x402PriceOf's, and its price is what the 402 asks", () =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      for (const size of [1, 1024 * 1024, 1024 * 1024 + 1, 5 * 1024 * 1024 + 3, 104_857_600, 123_456_789]) {
        const routed = yield* payment.x402Price({ size })
        const { amount, ...local } = Payment.x402PriceOf(size)
        assert.deepStrictEqual(routed, { ...local, network: "eip155:31337", payTo: x402.payTo })
        assert.strictEqual(amount, Payment.baseUnitsOfDollars(routed.totalPrice))
      }
      const big = new File([new Uint8Array(3 * 1024 * 1024)], "big.bin")
      const quoted = yield* payment.x402Quote({ file: big, ...current() })
      assert.strictEqual(quoted.amount, Payment.x402PriceOf(big.size).amount)
      assert.strictEqual(quoted.amount, 13_000n)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("x402Routes in the configuration picks the routes; a call's routes override it", () =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const configured = yield* payment.x402Quote({ file: file("configured"), ...local() })
      const overridden = yield* payment.x402Quote({ file: file("configured"), ...local(), routes: "documented" })
      assert.deepStrictEqual(
        [configured.x402Version, configured.resource, overridden.x402Version, overridden.resource],
        [2, `${x402.network.hosts.api}/api/upload`, 1, `${x402.network.hosts.api}/api/x402/upload`]
      )
    }).pipe(
      Effect.provide(
        Payment.layer.pipe(
          Layer.provide(
            Config.layer({
              defaultNetwork: "localhost",
              networks: localNetworks(x402.deployment),
              x402Routes: "current"
            })
          ),
          Layer.provide(chainTransport(x402.chain)),
          Layer.provide(Lighthouse.httpLayer)
        )
      )
    )
  )
})
