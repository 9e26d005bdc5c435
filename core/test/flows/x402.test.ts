/**
 * x402 pay-per-upload end to end: the client asks, gets 402 with the requirements, signs an
 * EIP-3009 authorisation with a viem account, and the simulated API verifies it against the
 * EIP-3009 test USDC on the local chain, settles it, then stores the file. Each refusal is a typed
 * error with nothing stored and nothing settled: underpayment, another asset, an expired or a
 * replayed authorisation, a payer without funds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { type LocalDeployment, testUsdcAbi } from "lighthouse-effect/contracts"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import type { LocalChain } from "lighthouse-effect/mocks/chain"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { CID } from "multiformats/cid"
import { type Address, erc20Abi, type Hex, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, expect } from "vitest"
import * as Errors from "../../src/Errors.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as Config from "../../src/LighthouseConfig.ts"
import { createLighthouseNode } from "../../src/node.ts"
import * as Payment from "../../src/Payment.ts"
import { chainTransport, localNetworks, withDeployedChain } from "../support/chain.ts"

let chain: LocalChain
let deployment: LocalDeployment
let network: MockNetwork
let running: RunningMockNetwork | undefined
let payTo: Address

withDeployedChain((started, deployed) => {
  chain = started
  deployment = deployed
  payTo = chain.accounts[8]!
  network = createMockNetwork({
    x402: {
      publicClient: chain.publicClient,
      settler: chain.walletClients[9]!,
      asset: deployment.x402Usdc,
      payTo
    }
  })
  running = startMockNetwork({ network, onUnhandledFrame: "error" })
})
afterAll(() => running?.close())

const layer = () =>
  Payment.layer.pipe(
    Layer.provide(Config.layer({ defaultNetwork: "localhost", networks: localNetworks(deployment) })),
    Layer.provide(chainTransport(chain)),
    Layer.provide(Lighthouse.httpLayer)
  )

const chainCall = <A>(f: () => Promise<A>) => Effect.promise(f)

const balanceOf = (address: Address) =>
  chainCall(() =>
    chain.publicClient.readContract({
      address: deployment.x402Usdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [address]
    })
  )

/** A payer (account `index`) holding `amount` of the test USDC. */
const payer = (index: number, amount: bigint) =>
  Effect.gen(function* () {
    const account = privateKeyToAccount(chain.privateKeys[index]!)
    if (amount > 0n)
      yield* chainCall(async () => {
        const hash = await chain.walletClients[0]!.writeContract({
          address: deployment.x402Usdc,
          abi: testUsdcAbi,
          functionName: "mint",
          args: [account.address, amount]
        })
        await chain.publicClient.waitForTransactionReceipt({ hash })
      })
    return account
  })

/** The caller's clock set to the chain's, minus `behindSeconds`. */
const clockAtChain = (behindSeconds = 0) =>
  Effect.gen(function* () {
    const block = yield* chainCall(() => chain.publicClient.getBlock())
    yield* TestClock.setTime((Number(block.timestamp) - behindSeconds) * 1000)
  })

/** The local chain and its EIP-3009 USDC: what these payments are allowed to be (no USDC is known there). */
const local = () => ({ network: "localhost", asset: deployment.x402Usdc })

const file = (text: string) => new File([text], "paid.txt", { type: "text/plain" })

/** 1 MiB at 0.00390625 USD per MiB, rounded up to USDC's 6 decimals. */
const ONE_MIB_PRICE = 3907n

/** Nothing listed for `address`, the payee paid nothing more than `payeeBefore`. */
const assertNothingHappened = (address: Address, payeeBefore: bigint) =>
  Effect.gen(function* () {
    assert.deepStrictEqual(network.state.files.of(address.toLowerCase()), [])
    assert.strictEqual(yield* balanceOf(payTo), payeeBefore)
  })

describe("x402 pay-per-upload", () => {
  it.effect("402, sign, settle on chain, store: the file is listed for the payer and served", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const account = yield* payer(1, 10_000n)
      const before = yield* balanceOf(payTo)
      const payment = yield* Payment.Payment
      const result = yield* payment.x402Upload({ file: file("paid for by x402"), account, ...local() })

      assert.strictEqual(result.paid.amount, ONE_MIB_PRICE)
      assert.strictEqual(result.paid.asset, deployment.x402Usdc)
      assert.deepStrictEqual(
        [result.settlement.success, result.settlement.network, result.settlement.payer],
        [true, "localhost", account.address.toLowerCase()]
      )
      const receipt = yield* chainCall(() =>
        chain.publicClient.getTransactionReceipt({ hash: result.settlement.transaction as Hex })
      )
      assert.strictEqual(receipt.status, "success")
      assert.strictEqual(yield* balanceOf(payTo), before + ONE_MIB_PRICE)
      assert.strictEqual(yield* balanceOf(account.address), 10_000n - ONE_MIB_PRICE)

      assert.strictEqual(result.entry.Name, "paid.txt")
      assert.strictEqual(result.entry.Size, "16")
      const listed = network.state.files.of(account.address.toLowerCase())
      assert.deepStrictEqual(
        listed.map((r) => [r.cid, r.fileName, r.mimeType, r.fileSizeInBytes]),
        [[result.entry.Hash, "paid.txt", "text/plain", "16"]]
      )
      assert.isTrue(yield* Effect.promise(() => network.state.content.has(CID.parse(result.entry.Hash))))
    }).pipe(Effect.provide(layer()))
  )

  it.effect("each refusal is its typed error; nothing is stored and nothing settled", () =>
    Effect.gen(function* () {
      yield* clockAtChain()
      const payment = yield* Payment.Payment
      const account = yield* payer(2, 10_000n)
      const before = yield* balanceOf(payTo)
      const attempt = (input: Omit<Payment.X402UploadInput, "file">) =>
        payment.x402Upload({ file: file("refused"), ...local(), ...input }).pipe(Effect.flip)

      const underpaid = yield* attempt({ account, amount: ONE_MIB_PRICE - 1n })
      assert.strictEqual(underpaid._tag, "X402Underpaid")
      assert.strictEqual(underpaid.message, "x402 payment of 3906 is below the 3907 required")

      const wrongAsset = yield* attempt({ account, asset: deployment.usdc })
      assert.strictEqual(wrongAsset._tag, "X402WrongAsset")
      assert.strictEqual(wrongAsset.message, `x402 payment asked in ${deployment.x402Usdc}, offered ${deployment.usdc}`)

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
        network.state.files.of(account.address.toLowerCase()).map((r) => r.cid),
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
      expect(network.state.files.of(account.address.toLowerCase()).map((r) => r.cid)).toEqual([paid.entry.Hash])
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
