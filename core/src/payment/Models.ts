/**
 * What the payment operations take and give back, and how they fail.
 *
 * @since 0.1.0
 */

import * as Schema from "effect/Schema"
import {
  type Account,
  type Address,
  type Hex,
  isAddress,
  type LocalAccount,
  type TransactionReceipt,
  type WalletClient
} from "viem"
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
import type { X402Routes } from "../LighthouseConfig.ts"
import type { TokenSymbol } from "../Networks.ts"
import { Credential } from "../schema/Credential.ts"
import type { FileMetadata } from "../upload/Sizing.ts"
import type { X402Limits } from "./X402Terms.ts"

/** What a payment is made in: the network's native coin, or one of its stablecoins. */
export type PaymentToken = "native" | TokenSymbol

/** A count of bytes or of a token's smallest unit: a number or a bigint. */
const Amount = Schema.Union([Schema.Number, Schema.BigInt])

const targetFields = {
  /**
   * A network of the table. Omitted: the configuration's `defaultNetwork` ("polygon"). Given but
   * empty: `Token not provided!!!`, the provider's wording for a missing network.
   */
  network: Schema.optional(Schema.String),
  /** `native`, `usdc`, `usdt` or `dai`. @default "native" */
  token: Schema.optional(Schema.String)
}

/**
 * Which network and token; names are case-insensitive, as the provider's were.
 *
 * @category schemas
 */
export const Target = Schema.Struct(targetFields)
/** @category models */
export type Target = typeof Target.Type

/**
 * What `paymentCount` takes: which network.
 *
 * @category schemas
 */
export const NetworkInput = Schema.Struct({ network: targetFields.network })
/** @category models */
export type NetworkInput = typeof NetworkInput.Type

/**
 * What `price` takes: a size, and which network and token.
 *
 * @category schemas
 */
export const PriceInput = Schema.Struct({
  ...targetFields,
  /** Bytes to store. Below 1 MB the price of 1 MB is charged. */
  size: Amount
})
/** @category models */
export type PriceInput = typeof PriceInput.Type

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

/**
 * A file known by its size, optionally with a name and a MIME type.
 *
 * @category schemas
 */
export const SizedFile = Schema.Struct({
  fileSize: Amount,
  fileName: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.NullOr(Schema.String))
})
/** @category models */
export type SizedFile = typeof SizedFile.Type

/**
 * What `quote` takes: files known by size, and which network and token.
 *
 * @category schemas
 */
export const QuoteInput = Schema.Struct({
  ...targetFields,
  /** Sizes, or files with a size and optionally a name and MIME type. */
  files: Schema.Array(Schema.Union([Amount, SizedFile]))
})
/** @category models */
export type QuoteInput = typeof QuoteInput.Type

/**
 * What `quotePaths` takes: paths on disk, and which network and token.
 *
 * @category schemas
 */
export const QuotePathsInput = Schema.Struct({
  ...targetFields,
  /** Files or directories on disk; directories are walked recursively. */
  paths: Schema.Union([Schema.String, Schema.Array(Schema.String)])
})
/** @category models */
export type QuotePathsInput = typeof QuotePathsInput.Type

/** Per-file metadata (name, size, MIME type, as the provider's quote listed them) and the price of the total. */
export interface QuoteResult {
  readonly metaData: ReadonlyArray<FileMetadata>
  readonly totalSize: number
  /** The price of `totalSize` as one upload: one 1 MB floor, not one per file. */
  readonly price: Price
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A viem account, taken as it is: viem checks it when it signs. */
const ViemAccount: Schema.declare<Account> = Schema.declare((u: unknown): u is Account => isObject(u), {
  expected: "a viem account"
})

/** A viem wallet client, taken as it is: its chain and account are checked before paying. */
const ViemWalletClient: Schema.declare<WalletClient> = Schema.declare((u: unknown): u is WalletClient => isObject(u), {
  expected: "a viem wallet client"
})

const payerFields = {
  /** 64 hex characters, `0x` optional. Held `Redacted`; never logged. */
  privateKey: Schema.optional(Credential),
  /** A local account signs in process; a JSON-RPC account is signed for by the node. */
  account: Schema.optional(ViemAccount),
  /** A wallet client with an account (a browser wallet, say); its chain must be the network's. */
  walletClient: Schema.optional(ViemWalletClient)
}

/**
 * Who pays: exactly one of a private key, a viem account, or a viem wallet client with an account.
 * An interface, not `typeof Payer.Type`: the declaration files must name viem's types, not
 * expand them.
 *
 * @category models
 */
export interface Payer {
  /** 64 hex characters, `0x` optional. Held `Redacted`; never logged. */
  readonly privateKey?: Credential | undefined
  /** A local account signs in process; a JSON-RPC account is signed for by the node. */
  readonly account?: Account | undefined
  /** A wallet client with an account (a browser wallet, say); its chain must be the network's. */
  readonly walletClient?: WalletClient | undefined
}

/**
 * Who pays, as an input schema.
 *
 * @category schemas
 */
export const Payer: Schema.Codec<Payer> = Schema.Struct(payerFields)

/**
 * What `fund` takes: an amount, which network and token, and who pays (an interface, as `Payer`).
 *
 * @category models
 */
export interface FundInput extends Target, Payer {
  /** In the token's smallest unit, e.g. `Price.amount`. */
  readonly amount: number | bigint
}

/**
 * What `fund` takes, as an input schema.
 *
 * @category schemas
 */
export const FundInput: Schema.Codec<FundInput> = Schema.Struct({ ...targetFields, ...payerFields, amount: Amount })

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

/**
 * What `balance` takes: an address, and which network and token.
 *
 * @category schemas
 */
export const BalanceInput = Schema.Struct({
  ...targetFields,
  /** Whose balance. */
  address: Schema.declare((u: unknown): u is Address => typeof u === "string", { expected: "an address" })
})
/** @category models */
export type BalanceInput = typeof BalanceInput.Type

/** Why a network or token could not be chosen. */
export type TargetFailure = TokenNotProvided | UnsupportedNetwork | UnsupportedToken

/** Why a price could not be given. */
export type PriceFailure = TargetFailure | InvalidPaymentInput | TickerPriceFailed

/** Why a chain call failed. */
export type ChainFailure = ContractReverted | OtherContractError | ChainError

/** Why a payment failed. */
export type FundFailure = TargetFailure | InvalidPaymentInput | PrivateKeyNotFound | InvalidPrivateKey | ChainFailure

/** Which of the provider's x402 routes an upload goes to (`LighthouseConfig`'s `X402Routes`). */
export type { X402Routes }

/** What an x402 quote takes: the file, the route set, and what the caller allows (`X402Terms.ts`). */
export interface X402QuoteInput extends X402Limits {
  /** The file (a `File` keeps its name). */
  readonly file: Blob
  /** The name it is stored under; default the `File`'s name, else `upload`. */
  readonly fileName?: string | undefined
  /** The provider's route set to use. @default the configuration's `x402Routes` ("documented" unless set) */
  readonly routes?: X402Routes | undefined
}

/** What an x402 price asks: the size in bytes (a whole number above 0). */
export interface X402PriceInput {
  readonly size: number
}

/**
 * What `x402Price` takes, as an input schema.
 *
 * @category schemas
 */
export const X402PriceInput: Schema.Codec<X402PriceInput> = Schema.Struct({
  size: Schema.Int.check(Schema.isGreaterThan(0))
})

/** What an x402 renewal price asks: the record id of the upload (its answer's `id`). */
export interface X402RenewPriceInput {
  readonly id: string
}

/**
 * What `x402RenewPrice` takes, as an input schema.
 *
 * @category schemas
 */
export const X402RenewPriceInput: Schema.Codec<X402RenewPriceInput> = Schema.Struct({
  id: Schema.NonEmptyString
})

/** What an x402 upload takes: a quote's input, the account that signs, and the optional amount and nonce. */
export interface X402UploadInput extends X402QuoteInput {
  /** Signs the authorisation: a viem local account (private key, mnemonic, HD key). */
  readonly account: LocalAccount
  /** Pay this many base units instead of the amount asked (a price agreed beforehand); at most `maxAmount`. */
  readonly amount?: bigint | undefined
  /** The authorisation's nonce; a fresh random one by default. Reusing one cannot pay twice. */
  readonly nonce?: Hex | undefined
}

const BaseUnits = Schema.BigInt.check(Schema.isGreaterThanOrEqualToBigInt(0n))

const quoteFields = {
  file: Schema.declare((u: unknown): u is Blob => typeof Blob !== "undefined" && u instanceof Blob, {
    expected: "a Blob or File"
  }),
  fileName: Schema.optional(Schema.String),
  routes: Schema.optional(Schema.Literals(["documented", "current"])),
  network: Schema.optional(Schema.String),
  asset: Schema.optional(
    Schema.declare((u: unknown): u is Address => typeof u === "string" && isAddress(u, { strict: false }), {
      expected: "an address"
    })
  ),
  maxAmount: Schema.optional(BaseUnits),
  maxTimeoutSeconds: Schema.optional(Schema.Int.check(Schema.isGreaterThan(0)))
}

/**
 * What `x402Quote` takes, as an input schema: a `Blob`, and the optional name, network, asset,
 * ceiling (`maxAmount`, base units, 0 or more) and window cap (`maxTimeoutSeconds`, above 0).
 *
 * @category schemas
 */
export const X402QuoteInput: Schema.Codec<X402QuoteInput> = Schema.Struct(quoteFields)

/**
 * What `x402Upload` takes, as an input schema: a quote's input, a viem local account (an object
 * that can sign typed data), and the optional amount (0 or more) and nonce.
 *
 * @category schemas
 */
/** The fields of an x402 payment: who signs, and the amount and nonce the caller may fix. */
const x402PayerFields = {
  account: Schema.declare(
    (u: unknown): u is LocalAccount =>
      isObject(u) && typeof u.address === "string" && typeof u.signTypedData === "function",
    { expected: "a viem local account" }
  ),
  amount: Schema.optional(BaseUnits),
  nonce: Schema.optional(Schema.declare((u: unknown): u is Hex => typeof u === "string", { expected: "a hex nonce" }))
}

export const X402UploadInput: Schema.Codec<X402UploadInput> = Schema.Struct({ ...quoteFields, ...x402PayerFields })

/** What an x402 renewal takes: the record id, the uploader's account that signs, and the caller's limits. */
export interface X402RenewInput extends X402Limits {
  /** The upload's record id (its answer's `id`). */
  readonly id: string
  /** Signs the authorisation: the account that paid for the upload. */
  readonly account: LocalAccount
  /** Pay this many base units instead of the amount asked; at most `maxAmount`. */
  readonly amount?: bigint | undefined
  /** The authorisation's nonce; a fresh random one by default. */
  readonly nonce?: Hex | undefined
}

/**
 * What `x402Renew` takes, as an input schema.
 *
 * @category schemas
 */
export const X402RenewInput: Schema.Codec<X402RenewInput> = Schema.Struct({
  id: Schema.NonEmptyString,
  network: quoteFields.network,
  asset: quoteFields.asset,
  maxAmount: quoteFields.maxAmount,
  maxTimeoutSeconds: quoteFields.maxTimeoutSeconds,
  ...x402PayerFields
})
