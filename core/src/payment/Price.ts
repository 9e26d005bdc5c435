/**
 * What storage costs: the price of a size in a token, and quotes of files by size or on disk.
 * The native coin is priced through the API's ticker (`GET {api}/api/lighthouse/get_ticker`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { formatUnits } from "viem"
import {
  type HttpStatusError,
  type InvalidResponse,
  type NetworkError,
  type RequestTimedOut,
  TickerPriceFailed
} from "../Errors.ts"
import { executeJson, url } from "../internal/http.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import type { Price, PriceInput, QuoteInput, QuotePathsInput } from "./Models.ts"
import * as Pricing from "./Pricing.ts"
import * as Quote from "./Quote.ts"
import { type Resolved, resolve } from "./Target.ts"

/** What pricing needs: the configuration, and the HTTP client for the ticker. */
export interface PriceDeps {
  readonly config: LighthouseConfig.Options
  readonly http: HttpClient.HttpClient
}

const TickerBody = Schema.Union([Schema.Number, Schema.String])

/** The USD price of a network's native coin, from the API's ticker. */
const tickerPrice = ({ config, http }: PriceDeps, symbol: string) =>
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

/** The price of `size` bytes in a resolved token. */
const priceOf = Effect.fnUntraced(function* (
  deps: PriceDeps,
  resolved: Resolved,
  size: bigint
): Effect.fn.Return<Price, TickerPriceFailed> {
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
  const ticker = yield* tickerPrice(deps, network.symbol)
  const amount = Pricing.nativeUnits(size, decimals, ticker.ratio)
  return {
    ...common,
    amount,
    formatted: formatUnits(amount, decimals),
    ticker: { symbol: network.symbol, usd: ticker.usd }
  }
})

const quoteOf = (deps: PriceDeps, resolved: Resolved, metaData: ReadonlyArray<Quote.FileMetadata>) =>
  Effect.map(
    priceOf(
      deps,
      resolved,
      metaData.reduce((sum, file) => sum + BigInt(file.fileSize), 0n)
    ),
    (price) => ({ metaData, totalSize: Number(price.size), price })
  )

export const price = Effect.fn("Payment.price")(function* (deps: PriceDeps, input: PriceInput) {
  const resolved = yield* resolve(deps.config, input)
  const size = yield* Quote.checkSize(input.size)
  return yield* priceOf(deps, resolved, size)
})

// The target is resolved first: a missing network is reported before anything else, as the provider did.
export const quote = Effect.fn("Payment.quote")(function* (deps: PriceDeps, input: QuoteInput) {
  const resolved = yield* resolve(deps.config, input)
  return yield* quoteOf(deps, resolved, yield* Quote.fromSizes(input.files))
})

export const quotePaths = Effect.fn("Payment.quotePaths")(function* (deps: PriceDeps, input: QuotePathsInput) {
  const resolved = yield* resolve(deps.config, input)
  const paths = typeof input.paths === "string" ? [input.paths] : input.paths
  return yield* quoteOf(deps, resolved, yield* Quote.fromPaths(paths))
})
