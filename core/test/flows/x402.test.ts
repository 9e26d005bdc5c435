/**
 * x402 pay-per-upload end to end: the client asks, gets 402 with the requirements, signs an
 * EIP-3009 authorisation with a viem account, and the simulated API verifies it against the
 * EIP-3009 test USDC on the local chain, settles it, then stores the file. Each refusal is a typed
 * error with nothing stored and nothing settled: underpayment, another asset, an expired or a
 * replayed authorisation, a payer without funds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CID } from "multiformats/cid"
import { type Address, type Hex, toHex } from "viem"
import { expect } from "vitest"
import * as Errors from "../../src/Errors.ts"
import { createLighthouseNode } from "../../src/node.ts"
import * as Payment from "../../src/Payment.ts"
import { x402Fixture } from "../support/x402Chain.ts"

const { x402, layer, balanceOf, payer, clockAtChain, local } = x402Fixture()
const file = (text: string) => new File([text], "paid.txt", { type: "text/plain" })

/** 1 MiB at 0.00390625 USD per MiB, rounded up to USDC's 6 decimals. */
const ONE_MIB_PRICE = 3907n

/** Nothing listed for `address`, the payee paid nothing more than `payeeBefore`. */
const assertNothingHappened = (address: Address, payeeBefore: bigint) =>
  Effect.gen(function* () {
    assert.deepStrictEqual(x402.network.state.files.of(address.toLowerCase()), [])
    assert.strictEqual(yield* balanceOf(x402.payTo), payeeBefore)
  })

describe("x402 pay-per-upload", () => {
  it.effect("402, sign, settle on chain, store: the file is listed for the payer and served", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const account = yield* payer(1, 10_000n)
      const before = yield* balanceOf(x402.payTo)
      const payment = yield* Payment.Payment
      const result = yield* payment.x402Upload({ file: file("paid for by x402"), account, ...local() })

      assert.strictEqual(result.paid.amount, ONE_MIB_PRICE)
      assert.strictEqual(result.paid.asset, x402.deployment.x402Usdc)
      assert.deepStrictEqual(
        [result.settlement.success, result.settlement.network, result.settlement.payer],
        [true, "localhost", account.address.toLowerCase()]
      )
      const receipt = yield* Effect.promise(() =>
        x402.chain.publicClient.getTransactionReceipt({ hash: result.settlement.transaction as Hex })
      )
      assert.strictEqual(receipt.status, "success")
      assert.strictEqual(yield* balanceOf(x402.payTo), before + ONE_MIB_PRICE)
      assert.strictEqual(yield* balanceOf(account.address), 10_000n - ONE_MIB_PRICE)

      assert.strictEqual(result.entry.Name, "paid.txt")
      assert.strictEqual(result.entry.Size, "16")
      const listed = x402.network.state.files.of(account.address.toLowerCase())
      assert.deepStrictEqual(
        listed.map((r) => [r.cid, r.fileName, r.mimeType, r.fileSizeInBytes]),
        [[result.entry.Hash, "paid.txt", "text/plain", "16"]]
      )
      assert.isTrue(yield* Effect.promise(() => x402.network.state.content.has(CID.parse(result.entry.Hash))))
    }).pipe(Effect.provide(layer()))
  )

  it.effect("each refusal is its typed error; nothing is stored and nothing settled", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(2, 10_000n)
      const before = yield* balanceOf(x402.payTo)
      const attempt = (input: Omit<Payment.X402UploadInput, "file">) =>
        payment.x402Upload({ file: file("refused"), ...local(), ...input }).pipe(Effect.flip)

      const underpaid = yield* attempt({ account, amount: ONE_MIB_PRICE - 1n })
      assert.strictEqual(underpaid._tag, "X402Underpaid")
      assert.strictEqual(underpaid.message, "x402 payment of 3906 is below the 3907 required")

      const wrongAsset = yield* attempt({ account, asset: x402.deployment.usdc })
      assert.strictEqual(wrongAsset._tag, "X402WrongAsset")
      assert.strictEqual(
        wrongAsset.message,
        `x402 payment asked in ${x402.deployment.x402Usdc}, offered ${x402.deployment.usdc}`
      )

      const broke = yield* attempt({ account: yield* payer(3, 0n) })
      assert.strictEqual(broke._tag, "X402InsufficientFunds")

      // The caller's clock an hour behind the chain: its authorisation ran out before it was sent.
      yield* clockAtChain(3600)
      const expired = yield* attempt({ account })
      assert.strictEqual(expired._tag, "X402AuthorizationExpired")

      yield* assertNothingHappened(account.address, before)
      assert.strictEqual(yield* balanceOf(account.address), 10_000n)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a replayed authorisation is refused: paid and stored once", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(4, 10_000n)
      const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
      const first = yield* payment.x402Upload({ file: file("once"), account, nonce, ...local() })
      const again = yield* payment.x402Upload({ file: file("twice"), account, nonce, ...local() }).pipe(Effect.flip)
      assert.strictEqual(again._tag, "X402AuthorizationReplayed")
      assert.strictEqual(again.message, `x402 authorisation ${nonce} was already used`)
      assert.strictEqual(yield* balanceOf(account.address), 10_000n - ONE_MIB_PRICE)
      assert.deepStrictEqual(
        x402.network.state.files.of(account.address.toLowerCase()).map((r) => r.cid),
        [first.entry.Hash]
      )
    }).pipe(Effect.provide(layer()))
  )

  it("through the Promise facade: paid and stored; a wrong argument shape is refused before any request", async () => {
    const lighthouse = createLighthouseNode()
    try {
      const account = await Effect.runPromise(payer(5, 10_000n))
      const paid = await lighthouse.payment.x402Upload({ file: file("from a promise"), account, ...local() })
      expect(paid.paid.amount).toBe(ONE_MIB_PRICE)
      expect(x402.network.state.files.of(account.address.toLowerCase()).map((r) => r.cid)).toEqual([paid.entry.Hash])
      const loose = lighthouse.payment.x402Upload as (input: unknown) => Promise<unknown>
      const refused = await loose({ file: "./note.txt", account }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(Errors.InvalidArgument)
      expect((refused as Error).message).toBe(
        "Invalid argument to payment.x402Upload: argument 1 must be " +
          "{ file, account, fileName?, routes?, network?, asset?, maxAmount?, maxTimeoutSeconds?, amount?, nonce? }"
      )
    } finally {
      await lighthouse.dispose()
    }
  })
})
