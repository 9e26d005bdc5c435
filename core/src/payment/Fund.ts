/**
 * Paying the network's payment contract. For a token: `approve(contract, amount)` then
 * `receiveToken(amount, token)`, dry-run first so a refused token or a short balance fails before
 * the approval spends gas; for the native coin, a plain value transfer to the contract. The node's
 * chain id is checked against the network's before anything is signed; each transaction's gas
 * limit is estimated, its gas price read from the node (`eth_gasPrice`, sent as a legacy
 * `gasPrice` as the provider does), and its receipt awaited.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import {
  type Account,
  type Address,
  ChainMismatchError,
  erc20Abi,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
  type Chain as ViemChain,
  type WalletClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { ChainError, InvalidPaymentInput, PrivateKeyNotFound } from "../Errors.ts"
import { parsePrivateKey } from "../schema/Address.ts"
import { paymentAbi } from "./Abi.ts"
import * as Chain from "./Chain.ts"
import { chainCall, clientOf, fromViem } from "./ChainCall.ts"
import type { FundInput, FundResult, Payer, ReceivedPayment, SentTransaction } from "./Models.ts"
import type { ChainDeps } from "./Reads.ts"
import { resolve } from "./Target.ts"

/** Everything one payment transaction needs. */
interface Sender {
  readonly network: Chain.NamedNetwork
  readonly chain: ViemChain
  readonly client: PublicClient
  readonly wallet: WalletClient
  readonly account: Account
  readonly contract: Address
  readonly amount: bigint
  readonly gasPrice: bigint
}

/** The wallet that pays and its account: the caller's wallet client, account, or private key. */
const walletOf = Effect.fnUntraced(function* (deps: ChainDeps, network: Chain.NamedNetwork, payer: Payer) {
  if (payer.walletClient !== undefined) {
    if (payer.walletClient.account === undefined) return yield* new PrivateKeyNotFound({})
    return { wallet: payer.walletClient, account: payer.walletClient.account }
  }
  let account = payer.account
  if (account === undefined) {
    if (payer.privateKey === undefined) return yield* new PrivateKeyNotFound({})
    const key = yield* parsePrivateKey(payer.privateKey)
    account = privateKeyToAccount(Redacted.value(key))
  }
  return { wallet: Chain.walletClient(network, deps.transportOf(network), account), account }
})

/** Waits for a transaction's receipt; a mined but failed transaction is a `ChainError`. */
const mined = (network: Chain.NamedNetwork, client: PublicClient, hash: Hex) =>
  Effect.flatMap(
    chainCall(() => client.waitForTransactionReceipt({ hash })),
    (receipt): Effect.Effect<SentTransaction, ChainError> =>
      receipt.status === "success"
        ? Effect.succeed({ hash, receipt, explorerUrl: Chain.explorerUrl(network, hash) })
        : // Mined, but failed: the chain moved between estimate and inclusion, or the estimate was short.
          Effect.fail(new ChainError({ shortMessage: `Transaction ${hash} reverted`, cause: receipt }))
  )

const sameChain = (chain: ViemChain, current: () => Promise<number>) =>
  Effect.flatMap(chainCall(current), (currentChainId) =>
    currentChainId === chain.id
      ? Effect.void
      : Effect.fail(fromViem(new ChainMismatchError({ chain, currentChainId })) as ChainError)
  )

const receivedPayment = (network: Chain.NamedNetwork, receipt: TransactionReceipt): ReceivedPayment | undefined => {
  const events = parseEventLogs({ abi: paymentAbi, logs: receipt.logs, eventName: "ReceivedPayment" })
  const event = events.find((log) => isAddressEqual(log.address, network.paymentContract as Address))
  if (event === undefined) return undefined
  const { sender, tokenAddress, txId, amount, timestamp, data } = event.args
  return { sender, tokenAddress, txId, amount, timestamp, data }
}

/** A plain value transfer with no calldata: the contract's `receive()` records it. */
const payNative = Effect.fnUntraced(function* (s: Sender) {
  const { client, wallet, account, chain, contract, amount, gasPrice } = s
  const gas = yield* chainCall(() => client.estimateGas({ account, to: contract, value: amount }))
  const hash = yield* chainCall(() =>
    wallet.sendTransaction({ account, chain, to: contract, value: amount, gas, gasPrice })
  )
  const sent = yield* mined(s.network, client, hash)
  return { ...sent, payment: receivedPayment(s.network, sent.receipt) }
})

const payToken = Effect.fnUntraced(function* (s: Sender, tokenAddress: Address) {
  const { client, wallet, account, chain, contract, amount, gasPrice } = s
  const pay = {
    address: contract,
    abi: paymentAbi,
    functionName: "receiveToken",
    args: [amount, tokenAddress]
  } as const
  // Dry-run the payment before approving, so a token the contract refuses or a balance too small
  // fails before any gas is spent, with the contract's own error. Without the allowance yet, the
  // contract's last check (TOKEN_APPROVAL_FAILED) is the expected answer: every earlier one passed.
  yield* chainCall(() => client.simulateContract({ ...pay, account })).pipe(
    Effect.catchIf(
      (error) => error._tag === "ContractReverted" && error.errorName === "TOKEN_APPROVAL_FAILED",
      () => Effect.void
    )
  )
  // Approve exactly the amount, as the provider does: no standing allowance is left behind.
  const approve = { address: tokenAddress, abi: erc20Abi, functionName: "approve", args: [contract, amount] } as const
  const approveGas = yield* chainCall(() => client.estimateContractGas({ ...approve, account }))
  const approveHash = yield* chainCall(() =>
    wallet.writeContract({ ...approve, account, chain, gas: approveGas, gasPrice })
  )
  const approval = yield* mined(s.network, client, approveHash)
  const payGas = yield* chainCall(() => client.estimateContractGas({ ...pay, account }))
  const hash = yield* chainCall(() => wallet.writeContract({ ...pay, account, chain, gas: payGas, gasPrice }))
  const sent = yield* mined(s.network, client, hash)
  return { ...sent, approval, payment: receivedPayment(s.network, sent.receipt) }
})

const checkAmount = (amount: number | bigint) =>
  (typeof amount === "bigint" ? amount <= 0n : !Number.isSafeInteger(amount) || amount <= 0)
    ? Effect.fail(
        new InvalidPaymentInput({
          detail: `amount must be a positive whole number of the token's smallest unit, got ${amount}`
        })
      )
    : Effect.succeed(BigInt(amount))

export const fund = Effect.fn("Payment.fund")(function* (deps: ChainDeps, input: FundInput) {
  const { network, tokenAddress } = yield* resolve(deps.config, input)
  const amount = yield* checkAmount(input.amount)
  const { wallet, account } = yield* walletOf(deps, network, input)
  const client = clientOf(deps.transportOf, network)
  const chain = Chain.toChain(network)
  // Refuse to sign for a node (or a wallet) on another chain than the network's: the provider never
  // checked, and a transaction signed for one chain id is at best rejected by a node on another.
  yield* sameChain(chain, () => client.getChainId())
  if (input.walletClient !== undefined) yield* sameChain(chain, () => wallet.getChainId())
  // Legacy pricing from the node's fee data, as the provider sent it (ethers' `feeData.gasPrice`).
  const gasPrice = yield* chainCall(() => client.getGasPrice())
  const sender: Sender = {
    network,
    chain,
    client,
    wallet,
    account,
    contract: network.paymentContract as Address,
    amount,
    gasPrice
  }
  const result: FundResult =
    tokenAddress === undefined ? yield* payNative(sender) : yield* payToken(sender, tokenAddress)
  return result
})
