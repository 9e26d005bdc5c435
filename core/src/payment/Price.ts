/**
 * What storage costs: the price of a size in a token, and quotes of files by size or on disk.
 * The native coin is priced through the API's ticker (`GET {api}/api/lighthouse/get_ticker`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Schema from "effect/Schema"
import { formatUnits } from "viem"
import { type HttpStatusError, TickerPriceFailed, type TransportFailure } from "../Errors.ts"
import { type Hosts, json } from "../internal/Hosts.ts"
import { Routes } from "../routes/Routes.ts"
import * as Sizing from "../upload/Sizing.ts"
import type { Price, PriceInput, QuoteInput, QuotePathsInput } from "./Models.ts"
import * as Pricing from "./Pricing.ts"
import * as Quote from "./Quote.ts"
import { type Resolved, resolve } from "./Target.ts"

const TickerBody = Schema.Union([Schema.Number, Schema.String])

/** The USD price of a network's native coin, from the API's ticker. */
const tickerPrice = (hosts: Hosts, symbol: string) =>
  json(
    hosts.apiHttpError,
    HttpClientRequest.get(Routes.files.getTicker.path, { urlParams: { symbol } }),
    TickerBody
  ).pipe(
    Effect.mapError((e: HttpStatusError | TransportFailure) => new TickerPriceFailed({ detail: e.message })),
    Effect.flatMap((usd) => {
      const ratio = Pricing.parseTickerPrice(usd)
      return ratio === undefined
        ? Effect.fail(new TickerPriceFailed({ detail: `not a positive price: ${JSON.stringify(usd)}` }))
        : Effect.succeed({ usd, ratio })
    })
  )

/** The price of `size` bytes in a resolved token. */
const priceOf = Effect.fnUntraced(function* (
  hosts: Hosts,
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
  const ticker = yield* tickerPrice(hosts, network.symbol)
  const amount = Pricing.nativeUnits(size, decimals, ticker.ratio)
  return {
    ...common,
    amount,
    formatted: formatUnits(amount, decimals),
    ticker: { symbol: network.symbol, usd: ticker.usd }
  }
})

const quoteOf = (hosts: Hosts, resolved: Resolved, metaData: ReadonlyArray<Sizing.FileMetadata>) =>
  Effect.map(
    priceOf(
      hosts,
      resolved,
      metaData.reduce((sum, file) => sum + BigInt(file.fileSize), 0n)
    ),
    (price) => ({ metaData, totalSize: Number(price.size), price })
  )

export const price = Effect.fn("Payment.price")(function* (hosts: Hosts, input: PriceInput) {
  const resolved = yield* resolve(hosts.config, input)
  const size = yield* Quote.checkSize(input.size)
  return yield* priceOf(hosts, resolved, size)
})

// The target is resolved first: a missing network is reported before anything else, as the provider did.
export const quote = Effect.fn("Payment.quote")(function* (hosts: Hosts, input: QuoteInput) {
  const resolved = yield* resolve(hosts.config, input)
  return yield* quoteOf(hosts, resolved, yield* Quote.fromSizes(input.files))
})

export const quotePaths = Effect.fn("Payment.quotePaths")(function* (hosts: Hosts, input: QuotePathsInput) {
  const resolved = yield* resolve(hosts.config, input)
  const paths = typeof input.paths === "string" ? [input.paths] : input.paths
  return yield* quoteOf(hosts, resolved, yield* Sizing.ofPaths(yield* FileSystem.FileSystem, paths))
})
