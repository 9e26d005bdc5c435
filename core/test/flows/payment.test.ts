/**
 * Paying for storage end to end: the payment contract and the local stablecoins deployed on the
 * in-process chain, the mock network's API (msw) as the ticker and the quota keeper. A user prices
 * an upload, pays it in the 6-decimal stablecoin and then in the native coin, the API reads the
 * `ReceivedPayment` events (`syncPayments`), and the user's data limit, read over the API with
 * `Files.usage`, rises by at least what was priced.
 */

import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { LocalDeployment } from "lighthouse-effect/contracts"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import type { LocalChain } from "lighthouse-effect/mocks/chain"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import type { Address } from "viem"
import { afterAll } from "vitest"
import * as Files from "../../src/Files.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as Config from "../../src/LighthouseConfig.ts"
import * as Payment from "../../src/Payment.ts"
import { chainTransport, localNetworks, mint, withDeployedChain } from "../support/chain.ts"

// =============================================================================
// Harness
// =============================================================================

let chain: LocalChain
let deployment: LocalDeployment
let network: MockNetwork
let running: RunningMockNetwork | undefined

withDeployedChain((started, deployed) => {
  chain = started
  deployment = deployed
  network = createMockNetwork({
    payments: {
      publicClient: chain.publicClient,
      contract: deployment.payment,
      tokens: {
        [deployment.usdc]: { decimals: 6, symbol: "USDC" },
        [deployment.dai]: { decimals: 18, symbol: "DAI" }
      },
      nativeSymbol: "ETH",
      nativeDecimals: 18,
      fromBlock: deployment.blockNumber
    }
  })
  // Chain traffic stays in process; every HTTP request must be one the mock answers.
  running = startMockNetwork({ network, onUnhandledFrame: "error" })
})
afterAll(() => running?.close())

const MB = 1_048_576

const layer = () =>
  Layer.mergeAll(Payment.layer, Files.layer).pipe(
    Layer.provide(Config.layer({ defaultNetwork: "localhost", networks: localNetworks(deployment) })),
    Layer.provide(chainTransport(chain)),
    Layer.provide(NodeFileSystem.layer),
    // The ticker and the usage reads go over fetch, to the mock API.
    Layer.provide(Lighthouse.httpLayer)
  )

/** The account's quota as the API reports it, through the library's own `Files.usage`. */
const usage = (apiKey: string) =>
  Effect.gen(function* () {
    const files = yield* Files.Files
    return yield* files.usage(apiKey)
  }).pipe(Effect.orDie)

const sync = () => Effect.promise(() => network.syncPayments())

// =============================================================================
// Flows
// =============================================================================

describe("paying for storage", () => {
  it.effect("in the 6-decimal stablecoin, then in the native coin: the data limit rises", () =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const payer = chain.accounts[1]!
      const key = chain.privateKeys[1]!
      const { apiKey } = network.seedAccount(payer, { dataLimit: 0 })
      yield* mint(chain, deployment.usdc, payer, 10_000_000n)
      assert.strictEqual((yield* usage(apiKey)).dataLimit, 0)

      // --- 100 MB in USDC (6 decimals): 0.390625 USD.
      const quote = yield* payment.quote({
        files: [{ fileSize: 100 * MB, fileName: "dataset.csv" }],
        token: "usdc"
      })
      assert.strictEqual(quote.price.amount, 390_625n)
      assert.strictEqual(quote.price.formatted, "0.390625")
      const paid = yield* payment.fund({ amount: quote.price.amount, token: "usdc", privateKey: key })
      assert.strictEqual(paid.payment?.amount, 390_625n)
      assert.strictEqual(paid.payment?.tokenAddress.toLowerCase(), deployment.usdc.toLowerCase())

      const first = yield* sync()
      assert.strictEqual(first.credited.length, 1)
      const credit = first.credited[0]!
      assert.strictEqual(credit.address, payer.toLowerCase())
      assert.strictEqual(credit.amount, 390_625n)
      assert.strictEqual(credit.txId, paid.payment?.txId)
      assert.strictEqual(credit.transactionHash, paid.hash)
      const afterUsdc = (yield* usage(apiKey)).dataLimit
      assert.strictEqual(afterUsdc, credit.bytes)
      // What was priced is bought, and the credit is the most the payment covers at that price.
      assert.isTrue(afterUsdc >= 100 * MB)
      assert.isTrue((yield* payment.price({ size: afterUsdc, token: "usdc" })).amount <= 390_625n)
      assert.isTrue((yield* payment.price({ size: afterUsdc + 1, token: "usdc" })).amount > 390_625n)

      // --- 50 MB in the native coin, priced with the mock's ticker (ETH at 3000 USD).
      const native = yield* payment.price({ size: 50 * MB })
      assert.deepStrictEqual(native.ticker, { symbol: "ETH", usd: 3000 })
      assert.strictEqual(native.amount, 65_104_166_666_667n)
      const sent = yield* payment.fund({ amount: native.amount, privateKey: key })
      assert.strictEqual(sent.payment?.amount, native.amount)
      assert.strictEqual(sent.payment?.txId, (paid.payment?.txId ?? 0n) + 1n)

      const second = yield* sync()
      assert.strictEqual(second.credited.length, 1)
      assert.strictEqual(second.credited[0]!.symbol, "ETH")
      const afterNative = (yield* usage(apiKey)).dataLimit
      assert.strictEqual(afterNative - afterUsdc, second.credited[0]!.bytes)
      assert.isTrue(afterNative - afterUsdc >= 50 * MB)

      // Each payment is credited once.
      assert.strictEqual((yield* sync()).credited.length, 0)
      assert.strictEqual((yield* usage(apiKey)).dataLimit, afterNative)
      assert.strictEqual(yield* payment.paymentCount(), sent.payment?.txId)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the 18-decimal stablecoin, paid by a wallet client, credits its account", () =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const wallet = chain.walletClients[2]!
      const payer: Address = wallet.account.address
      const { apiKey } = network.seedAccount(payer, { dataLimit: 0 })
      yield* mint(chain, deployment.dai, payer, 10n ** 18n)
      const price = yield* payment.price({ size: 1, token: "dai" })
      assert.strictEqual(price.amount, 3_906_250_000_000_000n)
      yield* payment.fund({ amount: price.amount, token: "dai", walletClient: wallet })
      const synced = yield* sync()
      assert.strictEqual(synced.credited.length, 1)
      assert.strictEqual(synced.credited[0]!.symbol, "DAI")
      assert.isTrue((yield* usage(apiKey)).dataLimit >= MB)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("no ticker price for the native coin: Failed to get ticker price, nothing sent", () =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      network.state.tickers.remove("ETH")
      const error = yield* Effect.flip(payment.price({ size: MB }))
      network.state.tickers.set("ETH", 3000)
      assert.strictEqual(error._tag, "TickerPriceFailed")
      assert.strictEqual(error.message, "Failed to get ticker price: HTTP error! status 404")
    }).pipe(Effect.provide(layer()))
  )
})
