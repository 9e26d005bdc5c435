/**
 * What the payment operations take and give back, and how they fail.
 *
 * @since 0.1.0
 */
import type * as Redacted from "effect/Redacted"
import type { Account, Address, Hex, TransactionReceipt, WalletClient } from "viem"
import type {
  ChainError,
  ContractReverted,
  InvalidPaymentInput,
  InvalidPrivateKey,
  OtherContractError,
  PrivateKeyNotFound,
  TickerPriceFailed,
  TokenNotProvided,
  UnsupportedNetwork,
  UnsupportedToken
} from "../Errors.ts"
import type { TokenSymbol } from "../Networks.ts"
import type * as Quote from "./Quote.ts"

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

/** Per-file metadata (name, size, MIME type, as the provider's quote listed them) and the price of the total. */
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

/** Why a network or token could not be chosen. */
export type TargetFailure = TokenNotProvided | UnsupportedNetwork | UnsupportedToken

/** Why a price could not be given. */
export type PriceFailure = TargetFailure | InvalidPaymentInput | TickerPriceFailed

/** Why a chain call failed. */
export type ChainFailure = ContractReverted | OtherContractError | ChainError

/** Why a payment failed. */
export type FundFailure = TargetFailure | InvalidPaymentInput | PrivateKeyNotFound | InvalidPrivateKey | ChainFailure

/** @deprecated use `TargetFailure` (removed in the next release). */
export type TargetError = TargetFailure

/** @deprecated use `PriceFailure` (removed in the next release). */
export type PriceError = PriceFailure

/** @deprecated use `FundFailure` (removed in the next release). */
export type FundError = FundFailure
