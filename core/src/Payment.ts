/**
 * `Payment`: what storage costs, and paying for it on chain.
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
 * The work lives in `payment/`: `Target.ts` (network and token), `Price.ts` (prices and quotes),
 * `Fund.ts` (payments), `Reads.ts` (contract and token reads), `Models.ts` (inputs and results).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import type { UnreadableEntry } from "./Errors.ts"
import * as Hosts from "./internal/Hosts.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import * as Chain from "./payment/Chain.ts"
import * as Fund from "./payment/Fund.ts"
import type {
  BalanceInput,
  ChainFailure,
  FundFailure,
  FundInput,
  FundResult,
  NetworkInput,
  Price,
  PriceFailure,
  PriceInput,
  QuoteInput,
  QuotePathsInput,
  QuoteResult,
  Target,
  TargetFailure,
  X402PriceInput,
  X402QuoteInput,
  X402RenewInput,
  X402RenewPriceInput,
  X402UploadInput
} from "./payment/Models.ts"
import * as PriceOps from "./payment/Price.ts"
import * as Reads from "./payment/Reads.ts"
import * as X402 from "./payment/X402.ts"
import type { X402PriceQuote } from "./payment/X402Price.ts"
import * as X402Renew from "./payment/X402Renew.ts"

export * from "./payment/Models.ts"
export type {
  X402Limits,
  X402PaymentRequired,
  X402PaymentRequiredV2,
  X402Quote,
  X402Requirements,
  X402RequirementsV2,
  X402Settlement,
  X402StoredFile,
  X402Terms,
  X402UploadResult
} from "./payment/X402.ts"
export { defaultX402Routes, TransferWithAuthorization, x402UploadPaths } from "./payment/X402.ts"
export {
  baseUnitsOfDollars,
  providerTariff as x402ProviderTariff,
  walrusEncodedSize,
  walrusMainnetShards,
  walrusTariff as x402WalrusTariff,
  type X402LocalPrice,
  type X402LocalRenewPrice,
  X402PriceQuote,
  type X402Tariff,
  x402PriceOf,
  x402RenewPriceOf
} from "./payment/X402Price.ts"
export { X402Renewal, X402RenewQuote, type X402RenewResult } from "./payment/X402Renew.ts"
export {
  defaultMaxAmount as x402DefaultMaxAmount,
  defaultMaxTimeoutSeconds as x402DefaultMaxTimeoutSeconds,
  defaultX402Network as x402DefaultNetwork,
  x402Networks
} from "./payment/X402Terms.ts"

/** What an x402 upload can fail with (nothing is stored or settled in any case). */
export type X402UploadError = Effect.Error<ReturnType<typeof X402.upload>>
/** What an x402 quote can fail with (nothing is signed in any case). */
export type X402QuoteError = Effect.Error<ReturnType<typeof X402.quote>>
/** What the price route can fail with. */
export type X402PriceError = Effect.Error<ReturnType<typeof X402.price>>
/** What the renewal price route can fail with. */
export type X402RenewPriceError = Effect.Error<ReturnType<typeof X402Renew.renewPrice>>
/** What a renewal can fail with (nothing is settled in any case, and the expiry stays). */
export type X402RenewError = Effect.Error<ReturnType<typeof X402Renew.renew>>

// =============================================================================
// Service
// =============================================================================

/**
 * The operations of the `Payment` service.
 *
 * @category models
 */
export interface Service {
  /** The cost of `size` bytes in the token's smallest unit. */
  readonly price: (input: PriceInput) => Effect.Effect<Price, PriceFailure>
  /** Metadata of files known by size, and the price of their total. */
  readonly quote: (input: QuoteInput) => Effect.Effect<QuoteResult, PriceFailure>
  /** Metadata of the files under paths on disk (read with the `FileSystem` in context), and the price of their total. */
  readonly quotePaths: (
    input: QuotePathsInput
  ) => Effect.Effect<QuoteResult, PriceFailure | PlatformError.PlatformError | UnreadableEntry, FileSystem.FileSystem>
  /** Pays `amount` to the network's payment contract and waits for the receipt. */
  readonly fund: (input: FundInput) => Effect.Effect<FundResult, FundFailure>
  /** Whether the payment contract accepts the token (`getTokenStatus`). */
  readonly tokenStatus: (input: Target) => Effect.Effect<boolean, TargetFailure | ChainFailure>
  /** What the payment contract holds of the token (`getERC20Balance` / `getNativeBalance`). */
  readonly contractBalance: (input: Target) => Effect.Effect<bigint, TargetFailure | ChainFailure>
  /** What `address` holds of the token (`balanceOf`, or the native balance). */
  readonly balance: (input: BalanceInput) => Effect.Effect<bigint, TargetFailure | ChainFailure>
  /** The txId of the latest payment to the contract; 0 before the first. */
  readonly paymentCount: (input?: NetworkInput) => Effect.Effect<bigint, TargetFailure | ChainFailure>
  /**
   * Uploads a file paid per upload over x402 (`POST /api/x402/upload`, or `POST /api/upload` with
   * `routes: "current"`; x402 version 1 or 2, as the `402` speaks): USDC, EIP-3009, no API key.
   * Signs only terms within the caller's limits (network, asset, `maxAmount`, `maxTimeoutSeconds`).
   */
  readonly x402Upload: (input: X402UploadInput) => Effect.Effect<X402.X402UploadResult, X402UploadError>
  /** What `x402Upload` would pay for the file (price, payee, chain, token, window), checked the same way; nothing signed. */
  readonly x402Quote: (input: X402QuoteInput) => Effect.Effect<X402.X402Quote, X402QuoteError>
  /** The provider's x402 price for `size` bytes, from its price route (`x402PriceOf` computes the same here). */
  readonly x402Price: (input: X402PriceInput) => Effect.Effect<X402PriceQuote, X402PriceError>
  /**
   * The provider's price for a year more of Walrus storage of an x402 upload (`GET
   * /api/renew/price?id=`; `x402RenewPriceOf` computes the same here), and its current expiry.
   */
  readonly x402RenewPrice: (input: X402RenewPriceInput) => Effect.Effect<X402Renew.X402RenewQuote, X402RenewPriceError>
  /**
   * Pays for a year more of an x402 upload (`POST /api/renew`, `x-file-id`), signed by the account
   * that uploaded it, within the same limits as `x402Upload`; another account is refused.
   */
  readonly x402Renew: (input: X402RenewInput) => Effect.Effect<X402Renew.X402RenewResult, X402RenewError>
}

/**
 * Prices storage and pays for it on chain.
 *
 * @category services
 */
export class Payment extends Context.Service<Payment, Service>()("lighthouse-effect/Payment") {}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the service.
 *
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const config = yield* LighthouseConfig
  const client = yield* HttpClient.HttpClient
  const hosts = Hosts.make(config, client)
  const chain: Reads.ChainDeps = { config, transportOf: yield* Chain.ChainTransport }
  const x402: X402.X402Deps = { hosts, client }
  return Payment.of({
    price: (input) => PriceOps.price(hosts, input),
    quote: (input) => PriceOps.quote(hosts, input),
    quotePaths: (input) => PriceOps.quotePaths(hosts, input),
    fund: (input) => Fund.fund(chain, input),
    tokenStatus: (input) => Reads.tokenStatus(chain, input),
    contractBalance: (input) => Reads.contractBalance(chain, input),
    balance: (input) => Reads.balance(chain, input),
    paymentCount: (input) => Reads.paymentCount(chain, input),
    x402Upload: (input) => X402.upload(x402, input),
    x402Quote: (input) => X402.quote(x402, input),
    x402Price: (input) => X402.price(x402, input),
    x402RenewPrice: (input) => X402Renew.renewPrice(x402, input),
    x402Renew: (input) => X402Renew.renew(x402, input)
  })
})

/**
 * The payment service; needs `LighthouseConfig` and an `HttpClient` (for the ticker), and reads
 * `ChainTransport` once when built.
 *
 * @category layers
 */
export const layer: Layer.Layer<Payment, never, LighthouseConfig | HttpClient.HttpClient> = Layer.effect(Payment, make)
