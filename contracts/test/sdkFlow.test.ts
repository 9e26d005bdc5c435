// Replays the provider SDK's exact payment flow (reference §4) against the contract on a local
// chain: approve exactly `amount`, estimate gas, send `receiveToken(amount, token)` with the
// estimate as the gas limit (no margin) and an explicit legacy gas price; native payments are a
// plain value transfer, estimated the same way. Events and errors are decoded with the SDK's ABI.
import assert from "node:assert/strict"
import { readFileSync } from "node:fs"
import { after, before, describe, it } from "node:test"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import {
  type Abi,
  type Account,
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  encodeFunctionData,
  erc20Abi,
  type Hash,
  parseEventLogs,
  type Transport,
  type WalletClient,
  zeroAddress
} from "viem"
import { deployLocal, type LocalDeployment, lighthousePaymentAbi, mockStablecoinAbi } from "../abi/index.ts"

const sdkAbi = JSON.parse(readFileSync(new URL("./fixtures/sdk-abi.json", import.meta.url), "utf8")) as Abi

// The SDK's price formula ($4/GiB, 1 MiB minimum) in each token's base units.
const ONE_MIB_USDC = 3906n
const ONE_GIB_USDC = 4_000_000n
const ONE_MIB_DAI = 3_906_250_000_000_000n

type Wallet = WalletClient<Transport, Chain, Account>

describe("the provider SDK's payment flow, with unpadded gas estimates", () => {
  let chain: LocalChain
  let deployment: LocalDeployment
  let payers: ReadonlyArray<Wallet>

  before(async () => {
    chain = await startLocalChain()
    deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
    payers = chain.walletClients.slice(1, 5)
    for (const wallet of payers) {
      for (const [token, amount] of [
        [deployment.usdc, 1_000_000_000n],
        [deployment.dai, 10n ** 24n]
      ] as const) {
        await confirm(
          await chain.walletClients[0]!.writeContract({
            address: token,
            abi: mockStablecoinAbi,
            functionName: "mint",
            args: [wallet.account.address, amount]
          })
        )
      }
    }
  })
  after(() => chain.stop())

  const confirm = async (hash: Hash) => {
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, "success", `transaction ${hash} reverted`)
    return receipt
  }

  /** SDK steps 1-3 up to the `receiveToken` estimate: fee data, approve (estimated, waited), estimate. */
  const prepareTokenPayment = async (wallet: Wallet, token: Address, amount: bigint) => {
    const gasPrice = await chain.publicClient.getGasPrice()
    const approveData = encodeFunctionData({
      abi: erc20Abi,
      functionName: "approve",
      args: [deployment.payment, amount]
    })
    const approveGas = await chain.publicClient.estimateGas({ account: wallet.account, to: token, data: approveData })
    await confirm(await wallet.sendTransaction({ to: token, data: approveData, gas: approveGas, gasPrice }))

    const data = encodeFunctionData({ abi: sdkAbi, functionName: "receiveToken", args: [amount, token] })
    const gas = await chain.publicClient.estimateGas({ account: wallet.account, to: deployment.payment, data })
    return { gas, send: () => wallet.sendTransaction({ to: deployment.payment, data, gas, gasPrice }) }
  }

  const prepareNativePayment = async (wallet: Wallet, value: bigint) => {
    const gasPrice = await chain.publicClient.getGasPrice()
    const gas = await chain.publicClient.estimateGas({ account: wallet.account, to: deployment.payment, value })
    return { gas, send: () => wallet.sendTransaction({ to: deployment.payment, value, gas, gasPrice }) }
  }

  /** Sends, waits, and decodes the one ReceivedPayment with the SDK's ABI. */
  const settle = async (prepared: { readonly gas: bigint; readonly send: () => Promise<Hash> }) => {
    const receipt = await confirm(await prepared.send())
    assert.ok(receipt.gasUsed <= prepared.gas)
    const events = parseEventLogs({ abi: sdkAbi, logs: receipt.logs, eventName: "ReceivedPayment" })
    assert.equal(events.length, 1)
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })
    const args = events[0]!.args as {
      sender: Address
      tokenAddress: Address
      txId: bigint
      amount: bigint
      timestamp: bigint
      data: string
    }
    assert.equal(args.timestamp, block.timestamp)
    assert.equal(args.data, "0x")
    return args
  }

  const paymentCount = () =>
    chain.publicClient.readContract({
      address: deployment.payment,
      abi: lighthousePaymentAbi,
      functionName: "paymentCount"
    })

  it("pays 1 MiB in 6-decimal USDC (3906) as the contract's first payment ever", async () => {
    const payer = payers[0]!
    const args = await settle(await prepareTokenPayment(payer, deployment.usdc, ONE_MIB_USDC))
    assert.deepEqual(
      [args.sender, args.tokenAddress, args.txId, args.amount],
      [payer.account.address, deployment.usdc, 1n, ONE_MIB_USDC]
    )
    const held = await chain.publicClient.readContract({
      address: deployment.payment,
      abi: sdkAbi,
      functionName: "getERC20Balance",
      args: [deployment.usdc]
    })
    assert.equal(held, ONE_MIB_USDC)
  })

  it("pays 1 MiB in 18-decimal DAI (3906250000000000), the first DAI payment", async () => {
    const payer = payers[1]!
    const args = await settle(await prepareTokenPayment(payer, deployment.dai, ONE_MIB_DAI))
    assert.deepEqual([args.tokenAddress, args.txId, args.amount], [deployment.dai, 2n, ONE_MIB_DAI])
  })

  it("pays natively with a plain value transfer", async () => {
    const payer = payers[2]!
    const before = await chain.publicClient.getBalance({ address: deployment.payment })
    const args = await settle(await prepareNativePayment(payer, 10n ** 16n))
    assert.deepEqual(
      [args.sender, args.tokenAddress, args.txId, args.amount],
      [payer.account.address, zeroAddress, 3n, 10n ** 16n]
    )
    assert.equal(await chain.publicClient.getBalance({ address: deployment.payment }), before + 10n ** 16n)
  })

  it("a token payment estimated before another user's payment lands still succeeds", async () => {
    const [a, b] = [payers[2]!, payers[3]!]
    const pending = await prepareTokenPayment(a, deployment.usdc, ONE_GIB_USDC)
    const other = await settle(await prepareTokenPayment(b, deployment.usdc, ONE_MIB_USDC))
    const late = await settle(pending)
    assert.equal(late.txId, other.txId + 1n)
    assert.equal(late.amount, ONE_GIB_USDC)
  })

  it("a native payment estimated before another user's payment lands still succeeds", async () => {
    const [a, b] = [payers[0]!, payers[1]!]
    const pending = await prepareNativePayment(a, 123n)
    const other = await settle(await prepareNativePayment(b, 456n))
    const late = await settle(pending)
    assert.equal(late.txId, other.txId + 1n)
  })

  it("a token payment estimated before an owner sweep that leaves one unit still succeeds", async () => {
    const owner = chain.walletClients[0]!
    await confirm(
      await owner.writeContract({
        address: deployment.payment,
        abi: lighthousePaymentAbi,
        functionName: "setEndowment",
        args: [owner.account.address]
      })
    )
    const pending = await prepareTokenPayment(payers[1]!, deployment.dai, ONE_MIB_DAI)
    const held = await chain.publicClient.readContract({
      address: deployment.payment,
      abi: lighthousePaymentAbi,
      functionName: "getERC20Balance",
      args: [deployment.dai]
    })
    await confirm(
      await owner.writeContract({
        address: deployment.payment,
        abi: lighthousePaymentAbi,
        functionName: "transferToEndowment",
        args: [deployment.dai, held - 1n]
      })
    )
    const late = await settle(pending)
    assert.equal(late.amount, ONE_MIB_DAI)
  })

  it("operator caveat: a sweep of the whole balance between estimate and send starves the unpadded estimate", async () => {
    // The contract's token balance goes back to zero, so the payment pays for a zero-to-non-zero
    // write its estimate did not include. Documented in LighthousePayment.sol: sweep all but one unit.
    const owner = chain.walletClients[0]!
    const pending = await prepareTokenPayment(payers[0]!, deployment.dai, ONE_MIB_DAI)
    const held = await chain.publicClient.readContract({
      address: deployment.payment,
      abi: lighthousePaymentAbi,
      functionName: "getERC20Balance",
      args: [deployment.dai]
    })
    await confirm(
      await owner.writeContract({
        address: deployment.payment,
        abi: lighthousePaymentAbi,
        functionName: "transferToEndowment",
        args: [deployment.dai, held]
      })
    )
    // Hardhat mines the starved transaction and rejects the send.
    await assert.rejects(pending.send())
    const block = await chain.publicClient.getBlock({ includeTransactions: true })
    const mined = block.transactions.at(-1)!
    assert.equal(mined.gas, pending.gas)
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: mined.hash })
    assert.equal(receipt.status, "reverted")
    // Why: with the estimate's gas, the token's transferFrom runs out of gas inside the payment,
    // which reports that as TOKEN_PAYMENT_FAILED.
    assert.equal(
      await revertName({ account: payers[0]!.account, args: [ONE_MIB_DAI, deployment.dai], gas: pending.gas }),
      "TOKEN_PAYMENT_FAILED"
    )
  })

  it("counts every successful payment, and only those", async () => {
    assert.equal(await paymentCount(), 8n)
  })

  it("reverts decode with the SDK's ABI (no approval → TOKEN_APPROVAL_FAILED)", async () => {
    assert.equal(
      await revertName({ account: payers[3]!.account, args: [ONE_MIB_USDC, deployment.usdc] }),
      "TOKEN_APPROVAL_FAILED"
    )
  })

  /** Simulates `receiveToken` and returns the custom error it reverts with, decoded with the SDK's ABI. */
  const revertName = async (call: {
    readonly account: Account
    readonly args: readonly [bigint, Address]
    readonly gas?: bigint
  }) => {
    const error = await chain.publicClient
      .simulateContract({ ...call, address: deployment.payment, abi: sdkAbi, functionName: "receiveToken" })
      .then(
        () => assert.fail("expected a revert"),
        (e: unknown) => e
      )
    assert.ok(error instanceof BaseError)
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError)
    assert.ok(reverted instanceof ContractFunctionRevertedError)
    return reverted.data?.errorName
  }
})
