/**
 * `Payment`: what storage costs, and paying for it on chain (spec §4, §5, §9; issue #7).
 *
 * - `price` — the cost of a size in a stablecoin (usdc, usdt, dai) or in the network's native
 *   coin, in the token's smallest unit. Exact integer arithmetic on the provider's formula
 *   (see `payment/Pricing.ts` for the rounding); the native coin is priced through the API's
 *   ticker (`GET {api}/api/lighthouse/get_ticker?symbol=<network symbol>`).
 * - `quote` / `quotePaths` — the per-file metadata of sizes, named files or paths on disk, and the
 *   price of their total.
 * - `fund` — pays the network's payment contract: for a token, `approve(contract, amount)` then
 *   `receiveToken(amount, token)` (dry-run first, so a refused token or a short balance fails
 *   before the approval spends gas); for the native coin, a plain value transfer to the contract.
 *   The node's chain id is checked against the network's before anything is signed.
 *   Each transaction's gas limit is estimated, its gas price read from the node's fee data
 *   (`eth_gasPrice`, sent as a legacy `gasPrice` as the provider does), and its receipt awaited.
 * - `tokenStatus`, `contractBalance`, `balance`, `paymentCount` — reads of the contract and tokens.
 *
 * The payer is a private key (kept `Redacted`), a viem `Account` or a viem `WalletClient`, given
 * per call: the service does not depend on `Signer`, which only signs messages, because a payment
 * needs a transaction sender on the right chain. Chains come from the network table through viem;
 * `ChainTransport` (see `payment/Chain.ts`) points a network at another node or a test chain.
 *
 * Failures are catalogue errors: `Token not provided!!!` (no network), `Unsupported Network!!!`,
 * `Failed to get ticker price: {detail}`, `Private Key not found!!!`, the contract's custom errors
 * as `ContractReverted` (`TOKEN_NOT_SUPPORTED`…), and any other chain failure as `ChainError`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import {
  type Abi,
  type Account,
  type Address,
  type Chain as ViemChain,
  ChainMismatchError,
  erc20Abi,
  formatUnits,
  type Hex,
  isAddressEqual,
  parseEventLogs,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { paymentAbi, tokenAbi } from "./payment/Abi.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import {
  ChainError,
  type ContractReverted,
  type HttpStatusError,
  type InvalidPaymentInput,
  type InvalidPrivateKey,
  type InvalidResponse,
  type NetworkError,
  type OtherContractError,
  PrivateKeyNotFound,
  type RequestTimedOut,
  TickerPriceFailed,
  TokenNotProvided,
  UnsupportedNetwork,
  UnsupportedToken,
  InvalidPaymentInput as InvalidPaymentInputError
} from "./Errors.ts"
import { executeJson, url } from "./internal/http.ts"
import type { TokenSymbol } from "./Networks.ts"
import * as Chain from "./payment/Chain.ts"
import * as Pricing from "./payment/Pricing.ts"
import * as Quote from "./payment/Quote.ts"
import { parsePrivateKey } from "./schema/Address.ts"

// =============================================================================
// Models
// =============================================================================

/** What a payment is made in: the network's native coin, or one of its stablecoins. */
export type PaymentToken = "native" | TokenSymbol

/** Which network and token; names are case-insensitive, as the provider's were. */
export interface Target {
  /**
   * A network of the table. Omitted: the configuration's `defaultNetwork` ("polygon"). Given but
   * empty (or `null` from untyped code): `Token not provided!!!`, the provider's wording for a
   * missing network.
   */
  readonly network?: string | undefined
  /** `native`, `usdc`, `usdt` or `dai`. @default "native" */
  readonly token?: string | undefined
}

/** What `price` takes: a size, and which network and token. */
export interface PriceInput extends Target {
  /** Bytes to store. Below 1 MB the price of 1 MB is charged. */
  readonly size: number | bigint
}

/** The cost of storing `size` bytes, in one token on one network. */
export interface Price {
  readonly network: string
  readonly token: PaymentToken
  /** The size asked about, and the size charged (at least 1 MB). */
  readonly size: bigint
  readonly chargeableBytes: bigint
  /** The cost in USD, as an exact decimal (`"0.00390625"` for 1 MB). */
  readonly usd: string
  /** The amount to pay, in the token's smallest unit: what `fund` takes. */
  readonly amount: bigint
  readonly decimals: number
  /** `amount` in whole tokens, e.g. `"0.003906"`. */
  readonly formatted: string
  /** The token contract; absent for the native coin. */
  readonly tokenAddress?: Address | undefined
  /** For the native coin: the ticker symbol and its USD price used. */
  readonly ticker?: { readonly symbol: string; readonly usd: number | string } | undefined
}

/** What `quote` takes: files known by size, and which network and token. */
export interface QuoteInput extends Target {
  /** Sizes, or files with a size and optionally a name and MIME type. */
  readonly files: ReadonlyArray<number | bigint | Quote.SizedFile>
}

/** What `quotePaths` takes: paths on disk, and which network and token. */
export interface QuotePathsInput extends Target {
  /** Files or directories on disk; directories are walked recursively. */
  readonly paths: string | ReadonlyArray<string>
}

/** Per-file metadata (spec §3 "Quote data") and the price of the total. */
export interface QuoteResult {
  readonly metaData: ReadonlyArray<Quote.FileMetadata>
  readonly totalSize: number
  /** The price of `totalSize` as one upload: one 1 MB floor, not one per file. */
  readonly price: Price
}

/** Who pays: exactly one of a private key, a viem account, or a viem wallet client with an account. */
export interface Payer {
  /** 64 hex characters, `0x` optional. Held `Redacted`; never logged. */
  readonly privateKey?: string | Redacted.Redacted<string> | undefined
  /** A local account signs in process; a JSON-RPC account is signed for by the node. */
  readonly account?: Account | undefined
  /** A wallet client with an account (a browser wallet, say); its chain must be the network's. */
  readonly walletClient?: WalletClient | undefined
}

/** What `fund` takes: an amount, which network and token, and who pays. */
export interface FundInput extends Target, Payer {
  /** In the token's smallest unit, e.g. `Price.amount`. */
  readonly amount: number | bigint
}

/** The `ReceivedPayment` event the contract emitted for a payment. */
export interface ReceivedPayment {
  readonly sender: Address
  /** The zero address for the native coin. */
  readonly tokenAddress: Address
  readonly txId: bigint
  readonly amount: bigint
  readonly timestamp: bigint
  readonly data: Hex
}

/** A mined transaction. */
export interface SentTransaction {
  readonly hash: Hex
  readonly receipt: TransactionReceipt
  /** The explorer page of the transaction; absent on a network without an explorer (localhost). */
  readonly explorerUrl: string | undefined
}

/** The payment transaction, the token approval before it, and the event it emitted. */
export interface FundResult extends SentTransaction {
  /** The `approve` transaction of a token payment. */
  readonly approval?: SentTransaction | undefined
  readonly payment: ReceivedPayment | undefined
}

/** What `balance` takes: an address, and which network and token. */
export interface BalanceInput extends Target {
  /** Whose balance. */
  readonly address: Address
}

// =============================================================================
// Errors
// =============================================================================

/** Why a network or token could not be chosen. */
export type TargetError = TokenNotProvided | UnsupportedNetwork | UnsupportedToken

/** Why a price could not be given. */
export type PriceError = TargetError | InvalidPaymentInput | TickerPriceFailed

/** Why a chain call failed. */
export type ChainFailure = ContractReverted | OtherContractError | ChainError

/** Why a payment failed. */
export type FundError = TargetError | InvalidPaymentInput | PrivateKeyNotFound | InvalidPrivateKey | ChainFailure

// =============================================================================
// Service
// =============================================================================

/** The operations of the `Payment` service. */
export interface Service {
  /** The cost of `size` bytes in the token's smallest unit. */
  readonly price: (input: PriceInput) => Effect.Effect<Price, PriceError>
  /** Metadata of files known by size, and the price of their total. */
  readonly quote: (input: QuoteInput) => Effect.Effect<QuoteResult, PriceError>
  /** Metadata of the files under paths on disk, and the price of their total. */
  readonly quotePaths: (
    input: QuotePathsInput
  ) => Effect.Effect<QuoteResult, PriceError | PlatformError.PlatformError, FileSystem.FileSystem | Path.Path>
  /** Pays `amount` to the network's payment contract and waits for the receipt. */
  readonly fund: (input: FundInput) => Effect.Effect<FundResult, FundError>
  /** Whether the payment contract accepts the token (`getTokenStatus`). */
  readonly tokenStatus: (input: Target) => Effect.Effect<boolean, TargetError | ChainFailure>
  /** What the payment contract holds of the token (`getERC20Balance` / `getNativeBalance`). */
  readonly contractBalance: (input: Target) => Effect.Effect<bigint, TargetError | ChainFailure>
  /** What `address` holds of the token (`balanceOf`, or the native balance). */
  readonly balance: (input: BalanceInput) => Effect.Effect<bigint, TargetError | ChainFailure>
  /** The txId of the latest payment to the contract; 0 before the first. */
  readonly paymentCount: (input?: Omit<Target, "token">) => Effect.Effect<bigint, TargetError | ChainFailure>
}

/**
 * Prices storage and pays for it on chain.
 *
 * @category services
 */
export class Payment extends Context.Service<Payment, Service>()("lighthouse-effect/Payment") {}

// =============================================================================
// Implementation
// =============================================================================

const paymentTokens: ReadonlyArray<PaymentToken> = ["native", "usdc", "usdt", "dai"]

// Every ABI whose custom errors a payment can revert with: the contract's and the tokens'.
const errorAbi: Abi = [...paymentAbi, ...tokenAbi]
const fromViem = Chain.fromViemError(errorAbi)

const TickerBody = Schema.Union([Schema.Number, Schema.String])

interface Resolved {
  readonly network: Chain.NamedNetwork
  readonly token: PaymentToken
  /** The token contract, for a stablecoin. */
  readonly tokenAddress: Address | undefined
  readonly decimals: number
}

/**
 * Builds the service.
 *
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const config = yield* LighthouseConfig
  const http = yield* HttpClient.HttpClient
  const transportOf = yield* Chain.ChainTransport

  const resolveNetwork = (name: string | null | undefined): Effect.Effect<Chain.NamedNetwork, TargetError> => {
    // An omitted network is the configured default; one given empty (or null, from untyped code) is
    // the provider's missing network, which it reported with this very wording.
    if (name === undefined) name = config.defaultNetwork
    if (name === null || name.trim() === "") return Effect.fail(new TokenNotProvided({}))
    const key = name.trim().toLowerCase()
    const network = Object.hasOwn(config.networks, key) ? config.networks[key] : undefined
    return network === undefined
      ? Effect.fail(new UnsupportedNetwork({ network: name }))
      : Effect.succeed({ ...network, name: key })
  }

  const resolve = (target: Target): Effect.Effect<Resolved, TargetError> =>
    Effect.flatMap(resolveNetwork(target.network), (network): Effect.Effect<Resolved, UnsupportedToken> => {
      const token = (target.token ?? "native").trim().toLowerCase()
      if (!(paymentTokens as ReadonlyArray<string>).includes(token))
        return Effect.fail(new UnsupportedToken({ network: network.name, token }))
      if (token === "native")
        return Effect.succeed({
          network,
          token: "native",
          tokenAddress: undefined,
          decimals: Chain.nativeDecimals(network)
        })
      const listed = network.tokens[token as TokenSymbol]
      return listed === undefined
        ? Effect.fail(new UnsupportedToken({ network: network.name, token }))
        : Effect.succeed({
            network,
            token: token as TokenSymbol,
            tokenAddress: listed.address as Address,
            decimals: listed.decimals
          })
    })

  const tickerPrice = (symbol: string) =>
    executeJson(
      http,
      HttpClientRequest.get(url(config.hosts.api, "/api/lighthouse/get_ticker", { symbol })),
      TickerBody,
      { style: "http-error", timeout: config.requestTimeout }
    ).pipe(
      Effect.mapError(
        (e: HttpStatusError | NetworkError | RequestTimedOut | InvalidResponse) =>
          new TickerPriceFailed({ detail: e.message })
      ),
      Effect.flatMap((usd) => {
        const ratio = Pricing.parseTickerPrice(usd)
        return ratio === undefined
          ? Effect.fail(new TickerPriceFailed({ detail: `not a positive price: ${JSON.stringify(usd)}` }))
          : Effect.succeed({ usd, ratio })
      })
    )

  const priceOf = (resolved: Resolved, size: bigint): Effect.Effect<Price, TickerPriceFailed> =>
    Effect.gen(function* () {
      const { network, token, decimals, tokenAddress } = resolved
      const common = {
        network: network.name,
        token,
        size,
        chargeableBytes: Pricing.chargeableBytes(size),
        usd: Pricing.usdCostText(size),
        decimals
      }
      if (token !== "native") {
        const amount = Pricing.tokenUnits(size, decimals)
        return { ...common, amount, formatted: formatUnits(amount, decimals), tokenAddress }
      }
      const ticker = yield* tickerPrice(network.symbol)
      const amount = Pricing.nativeUnits(size, decimals, ticker.ratio)
      return {
        ...common,
        amount,
        formatted: formatUnits(amount, decimals),
        ticker: { symbol: network.symbol, usd: ticker.usd }
      }
    })

  const price = Effect.fn("Payment.price")(function* (input: PriceInput) {
    const resolved = yield* resolve(input)
    const size = yield* Quote.checkSize(input.size)
    return yield* priceOf(resolved, size)
  })

  const quoteOf = (resolved: Resolved, metaData: ReadonlyArray<Quote.FileMetadata>) =>
    Effect.map(
      priceOf(
        resolved,
        metaData.reduce((sum, file) => sum + BigInt(file.fileSize), 0n)
      ),
      (price) => ({
        metaData,
        totalSize: Number(price.size),
        price
      })
    )

  // The target is resolved first: a missing network is reported before anything else, as the provider did.
  const quote = Effect.fn("Payment.quote")(function* (input: QuoteInput) {
    const resolved = yield* resolve(input)
    return yield* quoteOf(resolved, yield* Quote.fromSizes(input.files))
  })

  const quotePaths = Effect.fn("Payment.quotePaths")(function* (input: QuotePathsInput) {
    const resolved = yield* resolve(input)
    const paths = typeof input.paths === "string" ? [input.paths] : input.paths
    return yield* quoteOf(resolved, yield* Quote.fromPaths(paths))
  })

  // ---------------------------------------------------------------------------
  // Chain
  // ---------------------------------------------------------------------------

  const clientOf = (network: Chain.NamedNetwork): PublicClient => Chain.publicClient(network, transportOf(network))

  const chainCall = <A>(run: () => Promise<A>): Effect.Effect<A, ChainFailure> =>
    Effect.tryPromise({ try: run, catch: fromViem })

  const walletOf = (network: Chain.NamedNetwork, payer: Payer) =>
    Effect.gen(function* () {
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
      return { wallet: Chain.walletClient(network, transportOf(network), account), account }
    })

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

  const fund = Effect.fn("Payment.fund")(function* (input: FundInput) {
    const resolved = yield* resolve(input)
    if (
      typeof input.amount === "bigint" ? input.amount <= 0n : !Number.isSafeInteger(input.amount) || input.amount <= 0
    )
      return yield* new InvalidPaymentInputError({
        detail: `amount must be a positive whole number of the token's smallest unit, got ${input.amount}`
      })
    const amount = BigInt(input.amount)
    const { network, tokenAddress } = resolved
    const contract = network.paymentContract as Address
    const { wallet, account } = yield* walletOf(network, input)
    const client = clientOf(network)
    const chain = Chain.toChain(network)
    // Refuse to sign for a node (or a wallet) on another chain than the network's: the provider never
    // checked, and a transaction signed for one chain id is at best rejected by a node on another.
    yield* sameChain(chain, () => client.getChainId())
    if (input.walletClient !== undefined) yield* sameChain(chain, () => wallet.getChainId())
    // Legacy pricing from the node's fee data, as the provider sent it (ethers' `feeData.gasPrice`).
    const gasPrice = yield* chainCall(() => client.getGasPrice())

    if (tokenAddress === undefined) {
      // A plain value transfer with no calldata: the contract's `receive()` records it.
      const gas = yield* chainCall(() => client.estimateGas({ account, to: contract, value: amount }))
      const hash = yield* chainCall(() =>
        wallet.sendTransaction({ account, chain, to: contract, value: amount, gas, gasPrice })
      )
      const sent = yield* mined(network, client, hash)
      return { ...sent, payment: receivedPayment(network, sent.receipt) }
    }

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
    const approval = yield* mined(network, client, approveHash)

    const payGas = yield* chainCall(() => client.estimateContractGas({ ...pay, account }))
    const hash = yield* chainCall(() => wallet.writeContract({ ...pay, account, chain, gas: payGas, gasPrice }))
    const sent = yield* mined(network, client, hash)
    return { ...sent, approval, payment: receivedPayment(network, sent.receipt) }
  })

  // ---------------------------------------------------------------------------
  // Reads
  // ---------------------------------------------------------------------------

  const tokenStatus = Effect.fn("Payment.tokenStatus")(function* (input: Target) {
    const { network, tokenAddress } = yield* resolve(input)
    // The zero address stands for the native coin, which the contract always takes.
    if (tokenAddress === undefined) return true
    return yield* chainCall(() =>
      clientOf(network).readContract({
        address: network.paymentContract as Address,
        abi: paymentAbi,
        functionName: "getTokenStatus",
        args: [tokenAddress]
      })
    )
  })

  const contractBalance = Effect.fn("Payment.contractBalance")(function* (input: Target) {
    const { network, tokenAddress } = yield* resolve(input)
    const address = network.paymentContract as Address
    const client = clientOf(network)
    return yield* tokenAddress === undefined
      ? chainCall(() => client.readContract({ address, abi: paymentAbi, functionName: "getNativeBalance" }))
      : chainCall(() =>
          client.readContract({ address, abi: paymentAbi, functionName: "getERC20Balance", args: [tokenAddress] })
        )
  })

  const balance = Effect.fn("Payment.balance")(function* (input: BalanceInput) {
    const { network, tokenAddress } = yield* resolve(input)
    const client = clientOf(network)
    return yield* tokenAddress === undefined
      ? chainCall(() => client.getBalance({ address: input.address }))
      : chainCall(() =>
          client.readContract({
            address: tokenAddress,
            abi: erc20Abi,
            functionName: "balanceOf",
            args: [input.address]
          })
        )
  })

  const paymentCount = Effect.fn("Payment.paymentCount")(function* (input: Omit<Target, "token"> = {}) {
    const network = yield* resolveNetwork(input.network)
    return yield* chainCall(() =>
      clientOf(network).readContract({
        address: network.paymentContract as Address,
        abi: paymentAbi,
        functionName: "paymentCount"
      })
    )
  })

  return Payment.of({ price, quote, quotePaths, fund, tokenStatus, contractBalance, balance, paymentCount })
})

/**
 * The payment service; needs `LighthouseConfig` and an `HttpClient` (for the ticker), and reads
 * `ChainTransport` once when built.
 *
 * @category layers
 */
export const layer: Layer.Layer<Payment, never, LighthouseConfig | HttpClient.HttpClient> = Layer.effect(Payment, make)
