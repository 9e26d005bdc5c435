/**
 * `Payment` on a real chain: Hardhat's in-process chain with the payment contract and the two
 * local stablecoins deployed. Every payer form, the exact transactions sent (approve then
 * `receiveToken`, or a bare value transfer; estimated gas limit, legacy gas price from the fee
 * data), the `ReceivedPayment` event, the contract reads, and every chain failure as a typed error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { type LocalDeployment, lighthousePaymentAbi, mockStablecoinAbi } from "lighthouse-effect/contracts"
import type { LocalChain } from "lighthouse-effect/mocks/chain"
import {
  type Address,
  BaseError,
  custom,
  getAddress,
  type Hex,
  keccak256,
  parseEther,
  type Transport,
  zeroAddress
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import type { ChainError, ContractReverted, OtherContractError } from "../../src/Errors.ts"
import * as Config from "../../src/LighthouseConfig.ts"
import * as Payment from "../../src/Payment.ts"
import { ChainTransport, fromViemError } from "../../src/payment/Chain.ts"
import { chainTransport, localNetworks, mint, withDeployedChain } from "../support/chain.ts"

// =============================================================================
// Harness: one chain and deployment for the file; each test uses its own payer accounts
// =============================================================================

let chain: LocalChain
let deployment: LocalDeployment
withDeployedChain((started, deployed) => {
  chain = started
  deployment = deployed
})

const MB = 1_048_576
const ETH_USD = 3000

const ticker = HttpClient.make((request) =>
  Effect.succeed(HttpClientResponse.fromWeb(request, new Response(JSON.stringify(ETH_USD), { status: 200 })))
)

/** Payment on the local deployment (or `networks`), its chain calls through `transport` (default: the in-process chain; `false`: none). */
const layerWith = (options: {
  readonly transport?: Transport | false
  readonly networks?: Config.PartialOptions["networks"]
}) =>
  Payment.layer.pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, ticker)),
    Layer.provide(
      Config.layer({ defaultNetwork: "localhost", networks: options.networks ?? localNetworks(deployment) })
    ),
    Layer.provide(transportLayer(options.transport))
  )

const transportLayer = (transport: Transport | false | undefined) =>
  transport === undefined
    ? chainTransport(chain)
    : transport === false
      ? Layer.empty
      : Layer.succeed(ChainTransport, () => transport)

const run = <A, E>(f: (payment: Payment.Service) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    return yield* f(yield* Payment.Payment)
  }).pipe(Effect.provide(layerWith({})))

/** A direct viem call, for the arrangements tests make outside the service. */
const viem = <A>(f: () => Promise<A>) => Effect.promise(f)

const setTokenStatus = (token: Address, status: boolean) =>
  viem(async () => {
    const hash = await chain.walletClients[0]!.writeContract({
      address: deployment.payment,
      abi: lighthousePaymentAbi,
      functionName: "updateERC20Token",
      args: [token, status]
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
  })

const transactionCount = (address: Address) => viem(() => chain.publicClient.getTransactionCount({ address }))

const allowance = (token: Address, owner: Address) =>
  viem(() =>
    chain.publicClient.readContract({
      address: token,
      abi: mockStablecoinAbi,
      functionName: "allowance",
      args: [owner, deployment.payment]
    })
  )

// =============================================================================
// Paying
// =============================================================================

describe("Payment.fund on the local chain", () => {
  for (const [token, decimals, amount] of [
    ["usdc", 6, 3906n],
    ["dai", 18, 3_906_250_000_000_000n]
  ] as const) {
    it.effect(`${token} (${decimals} decimals): approve, then receiveToken, with the price of 1 MB`, () =>
      run((payment) =>
        Effect.gen(function* () {
          const key = chain.privateKeys[1]!
          const payer = chain.accounts[1]!
          const tokenAddress = deployment[token]
          yield* mint(chain, tokenAddress, payer, 10n ** BigInt(decimals))

          const price = yield* payment.price({ size: MB, token })
          assert.strictEqual(price.amount, amount)
          const before = yield* payment.balance({ address: payer, token })
          const heldBefore = yield* payment.contractBalance({ token })
          const countBefore = yield* payment.paymentCount()
          const gasPrice = yield* viem(() => chain.publicClient.getGasPrice())

          const result = yield* payment.fund({ amount: price.amount, token, privateKey: Redacted.make(key) })

          // Two transactions from the payer, mined in order: approve(contract, amount), receiveToken(amount, token).
          const approval = result.approval!
          assert.strictEqual(approval.receipt.status, "success")
          assert.strictEqual(result.receipt.status, "success")
          assert.strictEqual(approval.receipt.to?.toLowerCase(), tokenAddress.toLowerCase())
          assert.strictEqual(result.receipt.to?.toLowerCase(), deployment.payment.toLowerCase())
          assert.isTrue(approval.receipt.blockNumber < result.receipt.blockNumber)
          assert.strictEqual(result.explorerUrl, undefined)
          for (const hash of [approval.hash, result.hash]) {
            const tx = yield* viem(() => chain.publicClient.getTransaction({ hash }))
            assert.strictEqual(tx.from.toLowerCase(), payer.toLowerCase())
            // Legacy pricing from the fee data, and an estimated limit the transaction fits in.
            assert.strictEqual(tx.type, "legacy")
            assert.strictEqual(tx.gasPrice, gasPrice)
            const receipt = hash === result.hash ? result.receipt : approval.receipt
            assert.isTrue(tx.gas >= receipt.gasUsed)
            assert.isTrue(tx.gas < 200_000n)
          }

          assert.deepStrictEqual(result.payment, {
            sender: payer,
            tokenAddress: getAddress(tokenAddress),
            txId: countBefore + 1n,
            amount,
            timestamp: result.payment!.timestamp,
            data: "0x"
          })
          const block = yield* viem(() => chain.publicClient.getBlock({ blockNumber: result.receipt.blockNumber }))
          assert.strictEqual(result.payment!.timestamp, block.timestamp)

          assert.strictEqual(yield* payment.balance({ address: payer, token }), before - amount)
          assert.strictEqual(yield* payment.contractBalance({ token }), heldBefore + amount)
          assert.strictEqual(yield* payment.paymentCount(), countBefore + 1n)
          // Exactly the amount was approved, and all of it spent: no standing allowance is left.
          assert.strictEqual(yield* allowance(tokenAddress, payer), 0n)
        })
      )
    )
  }

  it.effect("native: a plain value transfer to the contract, priced with the ticker", () =>
    run((payment) =>
      Effect.gen(function* () {
        const key = chain.privateKeys[2]!
        const payer = chain.accounts[2]!
        const price = yield* payment.price({ size: 100 * MB })
        // 0.390625 USD at 3000 USD per ETH.
        assert.strictEqual(price.amount, 130_208_333_333_333n)
        const heldBefore = yield* payment.contractBalance({})
        const countBefore = yield* payment.paymentCount()

        const result = yield* payment.fund({ amount: price.amount, privateKey: key })

        assert.strictEqual(result.approval, undefined)
        const tx = yield* viem(() => chain.publicClient.getTransaction({ hash: result.hash }))
        assert.strictEqual(tx.to?.toLowerCase(), deployment.payment.toLowerCase())
        assert.strictEqual(tx.value, price.amount)
        assert.strictEqual(tx.input, "0x")
        assert.strictEqual(tx.type, "legacy")
        assert.isTrue(tx.gas >= result.receipt.gasUsed)
        assert.deepStrictEqual(result.payment, {
          sender: payer,
          tokenAddress: zeroAddress,
          txId: countBefore + 1n,
          amount: price.amount,
          timestamp: result.payment!.timestamp,
          data: "0x"
        })
        assert.strictEqual(yield* payment.contractBalance({}), heldBefore + price.amount)
        assert.strictEqual(yield* payment.contractBalance({ token: "native" }), heldBefore + price.amount)
      })
    )
  )

  it.effect("every payer form: a viem local account, a JSON-RPC account, a wallet client", () =>
    run((payment) =>
      Effect.gen(function* () {
        const local = privateKeyToAccount(chain.privateKeys[3]!)
        const jsonRpc = { address: chain.accounts[4]!, type: "json-rpc" } as const
        const wallet = chain.walletClients[5]!
        const payers: ReadonlyArray<readonly [Payment.Payer, Address]> = [
          [{ account: local }, local.address],
          [{ account: jsonRpc }, jsonRpc.address],
          [{ walletClient: wallet }, wallet.account.address]
        ]
        for (const [payer, address] of payers) {
          yield* mint(chain, deployment.usdc, address, 1_000_000n)
          const native = yield* payment.fund({ ...payer, amount: 1000n })
          assert.strictEqual(native.payment?.sender, address)
          const usdc = yield* payment.fund({ ...payer, amount: 3906n, token: "usdc" })
          assert.strictEqual(usdc.payment?.sender, address)
          assert.strictEqual(usdc.payment?.amount, 3906n)
        }
      })
    )
  )

  it.effect("a network with an explorer links the transaction", () => {
    // The localhost row, but with an explorer prefix: the link is the prefix and the hash.
    const networks = localNetworks(deployment)
    const withScan = { ...networks, localhost: { ...networks.localhost!, scan: "https://explorer.test/tx/" } }
    return Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const result = yield* payment.fund({ amount: 1n, privateKey: chain.privateKeys[6]! })
      assert.strictEqual(result.explorerUrl, `https://explorer.test/tx/${result.hash}`)
    }).pipe(Effect.provide(layerWith({ networks: withScan })))
  })
})

// =============================================================================
// Reads
// =============================================================================

describe("Payment reads", () => {
  it.effect("token status follows the allow-list; the native coin is always accepted", () =>
    run((payment) =>
      Effect.gen(function* () {
        assert.isTrue(yield* payment.tokenStatus({ token: "usdc" }))
        assert.isTrue(yield* payment.tokenStatus({ token: "dai" }))
        assert.isTrue(yield* payment.tokenStatus({}))
        yield* setTokenStatus(deployment.dai, false)
        assert.isFalse(yield* payment.tokenStatus({ token: "DAI" }))
        yield* setTokenStatus(deployment.dai, true)
        assert.isTrue(yield* payment.tokenStatus({ token: "dai" }))
      })
    )
  )

  it.effect("balances of accounts: token and native", () =>
    run((payment) =>
      Effect.gen(function* () {
        const fresh = privateKeyToAccount(`0x${"77".repeat(32)}`).address
        assert.strictEqual(yield* payment.balance({ address: fresh, token: "usdc" }), 0n)
        assert.strictEqual(yield* payment.balance({ address: fresh }), 0n)
        yield* mint(chain, deployment.usdc, fresh, 42n)
        assert.strictEqual(yield* payment.balance({ address: fresh, token: "usdc" }), 42n)
        assert.strictEqual(yield* payment.balance({ address: chain.accounts[19]! }), parseEther("10000"))
      })
    )
  )
})

// =============================================================================
// Failures
// =============================================================================

describe("Payment.fund failures", () => {
  it.effect("a token the contract does not accept: TOKEN_NOT_SUPPORTED, before anything is sent", () =>
    run((payment) =>
      Effect.gen(function* () {
        const payer = chain.accounts[7]!
        yield* mint(chain, deployment.dai, payer, 10n ** 18n)
        yield* setTokenStatus(deployment.dai, false)
        const nonce = yield* transactionCount(payer)
        const error = yield* Effect.flip(
          payment.fund({ amount: 3_906_250_000_000_000n, token: "dai", privateKey: chain.privateKeys[7]! })
        )
        yield* setTokenStatus(deployment.dai, true)
        assert.strictEqual(error._tag, "ContractReverted")
        const reverted = error as ContractReverted
        assert.strictEqual(reverted.errorName, "TOKEN_NOT_SUPPORTED")
        assert.deepStrictEqual(reverted.args, [])
        assert.strictEqual(reverted.message, "TOKEN_NOT_SUPPORTED")
        // The payment was dry-run first: no approval was spent on a payment bound to fail.
        assert.strictEqual(yield* transactionCount(payer), nonce)
        assert.strictEqual(yield* allowance(deployment.dai, payer), 0n)
      })
    )
  )

  it.effect("a payer without the tokens: INSUFFICIENT_USER_BALANCE, before anything is sent", () =>
    run((payment) =>
      Effect.gen(function* () {
        const payer = chain.accounts[8]!
        const nonce = yield* transactionCount(payer)
        const error = yield* Effect.flip(
          payment.fund({ amount: 3906n, token: "usdc", privateKey: chain.privateKeys[8]! })
        )
        assert.strictEqual(error._tag, "ContractReverted")
        assert.strictEqual((error as ContractReverted).errorName, "INSUFFICIENT_USER_BALANCE")
        assert.strictEqual(error.message, "INSUFFICIENT_USER_BALANCE")
        assert.strictEqual(yield* transactionCount(payer), nonce)
      })
    )
  )

  it.effect("a payment that fails after its approval: the contract's error, from the payment itself", () => {
    // A node that lets the dry-run through (answers it as the allowance check) but then fails the
    // payment for real: the de-listing lands between the approval and the payment.
    let approvals = 0
    const racing = custom(
      {
        request: async (args: { readonly method: string; readonly params?: unknown }) => {
          const answer = await chain.provider.request(args as Parameters<typeof chain.provider.request>[0])
          if (args.method === "eth_getTransactionReceipt" && answer !== null && approvals++ === 0)
            await Effect.runPromise(setTokenStatus(deployment.usdc, false))
          return answer
        }
      },
      { retryCount: 0 }
    )
    return Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const payer = chain.accounts[15]!
      yield* mint(chain, deployment.usdc, payer, 10_000n)
      const error = yield* Effect.flip(
        payment.fund({ amount: 3906n, token: "usdc", privateKey: chain.privateKeys[15]! })
      )
      yield* setTokenStatus(deployment.usdc, true)
      assert.strictEqual((error as ContractReverted).errorName, "TOKEN_NOT_SUPPORTED")
      // The approval went through; the payment did not.
      assert.strictEqual(yield* allowance(deployment.usdc, payer), 3906n)
    }).pipe(Effect.provide(layerWith({ transport: racing })))
  })

  it.effect("a payer without enough coin: ChainError with viem's short message, the node's words in its cause", () =>
    run((payment) =>
      Effect.gen(function* () {
        const broke = `0x${"42".repeat(32)}` as Hex
        const error = yield* Effect.flip(payment.fund({ amount: 10n ** 18n, privateKey: broke }))
        assert.strictEqual(error._tag, "ChainError")
        const chainError = error as ChainError
        assert.strictEqual(
          chainError.message,
          "Missing or invalid parameters.\nDouble check you have provided the correct parameters."
        )
        assert.strictEqual(chainError.shortMessage, chainError.message)
        const cause = chainError.cause as BaseError
        assert.instanceOf(cause, BaseError)
        assert.isTrue(cause.details.startsWith("Sender doesn't have enough funds to send tx."), cause.details)
      })
    )
  )

  it.effect("a node that is down: ChainError, no secret in it", () => {
    const networks = localNetworks(deployment)
    const down = { ...networks, localhost: { ...networks.localhost!, rpc: "http://127.0.0.1:9/" } }
    return Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const key = chain.privateKeys[9]!
      const error = yield* Effect.flip(payment.fund({ amount: 1n, privateKey: key }))
      assert.strictEqual(error._tag, "ChainError")
      assert.strictEqual(error.message, "HTTP request failed.")
      assert.isFalse(String(error).includes(key.slice(2)))
      const read = yield* Effect.flip(payment.paymentCount())
      assert.strictEqual(read.message, "HTTP request failed.")
    }).pipe(Effect.provide(layerWith({ networks: down, transport: false })))
  })

  it.effect("a node on another chain than the network's: ChainError before anything is sent", () => {
    // The polygon row (chain 137), reached through the local chain (31337).
    const networks = localNetworks(deployment)
    const wrong = { ...networks, polygon: { ...networks.localhost!, chainId: 137 } }
    return Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const countBefore = yield* viem(() => chain.publicClient.getTransactionCount({ address: chain.accounts[10]! }))
      const error = yield* Effect.flip(
        payment.fund({ amount: 1n, network: "polygon", privateKey: chain.privateKeys[10]! })
      )
      assert.strictEqual(error._tag, "ChainError")
      assert.isTrue(
        error.message.startsWith("The current chain of the wallet (id: 31337) does not match"),
        error.message
      )
      const countAfter = yield* viem(() => chain.publicClient.getTransactionCount({ address: chain.accounts[10]! }))
      assert.strictEqual(countAfter, countBefore)
    }).pipe(Effect.provide(layerWith({ networks: wrong })))
  })

  it.effect("a transaction mined but reverted: ChainError naming it, not a success", () => {
    // A node whose gas estimates are too low: the value transfer runs out of gas in `receive()`.
    // Hardhat mines the failed transaction but also answers the send with an error; a public node
    // answers with the hash, so this node does too.
    const stingy = custom(
      {
        request: async (args: { readonly method: string; readonly params?: unknown }) => {
          if (args.method === "eth_estimateGas") return "0x5300"
          if (args.method !== "eth_sendRawTransaction")
            return chain.provider.request(args as Parameters<typeof chain.provider.request>[0])
          const [raw] = args.params as [Hex]
          return chain.provider
            .request(args as Parameters<typeof chain.provider.request>[0])
            .catch(() => keccak256(raw))
        }
      },
      { retryCount: 0 }
    )
    return Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const error = yield* Effect.flip(payment.fund({ amount: 1000n, privateKey: chain.privateKeys[14]! }))
      assert.strictEqual(error._tag, "ChainError")
      assert.match(error.message, /^Transaction 0x[0-9a-f]{64} reverted$/)
      const hash = error.message.split(" ")[1] as Hex
      const receipt = yield* viem(() => chain.publicClient.getTransactionReceipt({ hash }))
      assert.strictEqual(receipt.status, "reverted")
      assert.strictEqual(receipt.gasUsed, 0x5300n)
    }).pipe(Effect.provide(layerWith({ transport: stingy })))
  })
})

// =============================================================================
// Decoding reverts
// =============================================================================

describe("fromViemError on the payment contract", () => {
  const abi = [...lighthousePaymentAbi, ...mockStablecoinAbi]
  const decode = (f: () => Promise<unknown>) =>
    Effect.tryPromise({ try: f, catch: fromViemError(abi) }).pipe(Effect.flip)

  it.effect("an owner function called by someone else: OwnableUnauthorizedAccount(caller)", () =>
    Effect.gen(function* () {
      const stranger = chain.walletClients[11]!
      const error = yield* decode(() =>
        stranger.writeContract({
          address: deployment.payment,
          abi: lighthousePaymentAbi,
          functionName: "updateERC20Token",
          args: [deployment.usdc, false]
        })
      )
      assert.strictEqual(error._tag, "ContractReverted")
      assert.strictEqual((error as ContractReverted).errorName, "OwnableUnauthorizedAccount")
      assert.deepStrictEqual((error as ContractReverted).args, [stranger.account.address])
    })
  )

  it.effect("the contract's additive errors: OtherContractError", () =>
    Effect.gen(function* () {
      const owner = chain.walletClients[0]!
      const renounce = yield* decode(() =>
        owner.writeContract({
          address: deployment.payment,
          abi: lighthousePaymentAbi,
          functionName: "renounceOwnership"
        })
      )
      assert.strictEqual(renounce._tag, "OtherContractError")
      assert.strictEqual((renounce as OtherContractError).errorName, "RENOUNCE_DISABLED")
      assert.strictEqual(renounce.message, "RENOUNCE_DISABLED")

      // Not contract calls: a value-less transfer and an unknown selector. viem leaves their revert
      // data raw; it is decoded all the same.
      const empty = yield* decode(() =>
        chain.publicClient.estimateGas({ account: chain.accounts[12]!, to: deployment.payment, value: 0n })
      )
      assert.strictEqual((empty as OtherContractError).errorName, "INVALID_AMOUNT")
      const unknown = yield* decode(() => owner.sendTransaction({ to: deployment.payment, data: "0xdeadbeef" }))
      assert.strictEqual((unknown as OtherContractError).errorName, "FUNCTION_NOT_FOUND")
      assert.deepStrictEqual((unknown as OtherContractError).args, ["0xdeadbeef"])
    })
  )

  it.effect("a token's own error: ERC20InsufficientBalance", () =>
    Effect.gen(function* () {
      const payer = chain.walletClients[13]!
      const error = yield* decode(() =>
        payer.writeContract({
          address: deployment.usdc,
          abi: mockStablecoinAbi,
          functionName: "transfer",
          args: [chain.accounts[0]!, 5n]
        })
      )
      assert.strictEqual((error as OtherContractError).errorName, "ERC20InsufficientBalance")
      assert.deepStrictEqual((error as OtherContractError).args, [payer.account.address, 0n, 5n])
    })
  )
})
