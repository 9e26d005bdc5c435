/**
 * `Payment` off chain: the price of every row of the network table, the formula's boundaries
 * through the service, quotes, the ticker request, and every error text a price, a quote or a
 * payment can give before a chain is touched. The ticker is a fake `HttpClient` that records
 * what it was asked. The chain half is in `payment/Fund.test.ts` and `flows/payment.test.ts`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, FileSystem, Layer, Path, Redacted } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { createWalletClient, custom } from "viem"
import * as Config from "../src/LighthouseConfig.ts"
import { networks } from "../src/Networks.ts"
import * as Payment from "../src/Payment.ts"
import { tokenUnits } from "../src/payment/Pricing.ts"

// =============================================================================
// Harness
// =============================================================================

const api = "https://api.test"

/** The ticker's prices in USD, as the mock network's defaults are. */
const prices: Record<string, unknown> = { FIL: 5, tFIL: 5, MATIC: 0.5, ETH: 3000, BNB: 600, FTM: 0.5 }

type TickerAnswer = { readonly status: number; readonly body: string } | "transport-error" | "hang"

const tickerLayer = (answer?: (symbol: string) => TickerAnswer) => {
  const requests: Array<string> = []
  const client = HttpClient.make((request) => {
    requests.push(`${request.method} ${request.url}`)
    const symbol = new URL(request.url).searchParams.get("symbol") ?? ""
    const given = answer?.(symbol) ?? {
      status: symbol in prices ? 200 : 404,
      body: symbol in prices ? JSON.stringify(prices[symbol]) : "{}"
    }
    if (given === "hang") return Effect.never
    if (given === "transport-error")
      return Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, description: "connection refused" })
        })
      )
    return Effect.succeed(
      HttpClientResponse.fromWeb(
        request,
        new Response(given.body, { status: given.status, headers: { "content-type": "application/json" } })
      )
    )
  })
  const layer = Payment.layer.pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, client)),
    Layer.provide(Config.layer({ hosts: { api } }))
  )
  return { layer, requests }
}

const withPayment = <A, E>(
  f: (payment: Payment.Service) => Effect.Effect<A, E>,
  answer?: (symbol: string) => TickerAnswer
) =>
  Effect.gen(function* () {
    return yield* f(yield* Payment.Payment)
  }).pipe(Effect.provide(tickerLayer(answer).layer))

const MB = 1_048_576
const GB = 1_073_741_824

// =============================================================================
// Price of every row of the network table
// =============================================================================

describe("Payment.price", () => {
  // Every stablecoin of every row, with the decimals the table gives it, for 1 MB and 1 GB.
  const tokenRows: ReadonlyArray<readonly [string, "usdc" | "usdt" | "dai", number, bigint, bigint]> = [
    ["fantom", "usdt", 6, 3906n, 4_000_000n],
    ["fantom", "usdc", 6, 3906n, 4_000_000n],
    ["fantom", "dai", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["polygon", "usdt", 6, 3906n, 4_000_000n],
    ["polygon", "usdc", 6, 3906n, 4_000_000n],
    ["polygon", "dai", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["binance", "usdt", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["binance", "usdc", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["binance", "dai", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["optimism", "usdt", 6, 3906n, 4_000_000n],
    ["optimism", "usdc", 6, 3906n, 4_000_000n],
    ["optimism", "dai", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["filecoin", "usdc", 6, 3906n, 4_000_000n],
    ["calibration", "usdt", 18, 3_906_250_000_000_000n, 4_000_000_000_000_000_000n],
    ["polygon-testnet", "usdc", 6, 3906n, 4_000_000n]
  ]

  it.effect("covers every token of the table", () =>
    Effect.sync(() => {
      const listed = Object.entries(networks)
        .filter(([name]) => name !== "localhost")
        .flatMap(([name, network]) => Object.keys(network.tokens).map((token) => `${name}/${token}`))
      assert.deepStrictEqual(listed.sort(), tokenRows.map(([network, token]) => `${network}/${token}`).sort())
    })
  )

  for (const [network, token, decimals, oneMb, oneGb] of tokenRows) {
    it.effect(`${network} ${token} (${decimals} decimals)`, () =>
      withPayment((payment) =>
        Effect.gen(function* () {
          const small = yield* payment.price({ size: MB, network, token })
          assert.strictEqual(small.amount, oneMb)
          assert.strictEqual(small.decimals, decimals)
          assert.strictEqual(small.usd, "0.00390625")
          assert.strictEqual<string | undefined>(
            small.tokenAddress,
            networks[network as keyof typeof networks].tokens[token]?.address
          )
          assert.strictEqual(small.ticker, undefined)
          const large = yield* payment.price({ size: GB, network, token })
          assert.strictEqual(large.amount, oneGb)
          assert.strictEqual(large.formatted, "4")
        })
      )
    )
  }

  // The native coin of every row: 18 decimals where the table gives them, and 18 where it does not
  // (the provider priced those rows at 0). 1 MB = 0.00390625 USD at the ticker's price.
  const nativeRows: ReadonlyArray<readonly [string, string, bigint]> = [
    ["fantom", "FTM", 7_812_500_000_000_000n],
    ["polygon", "MATIC", 7_812_500_000_000_000n],
    ["binance", "BNB", 6_510_416_666_667n],
    ["optimism", "ETH", 1_302_083_333_333n],
    ["filecoin", "FIL", 781_250_000_000_000n],
    ["calibration", "FIL", 781_250_000_000_000n],
    ["fantom-testnet", "FTM", 7_812_500_000_000_000n],
    ["polygon-testnet", "MATIC", 7_812_500_000_000_000n],
    ["binance-testnet", "BNB", 6_510_416_666_667n],
    ["optimism-testnet", "ETH", 1_302_083_333_333n],
    ["wallaby-testnet", "tFIL", 781_250_000_000_000n],
    ["localhost", "ETH", 1_302_083_333_333n]
  ]

  it.effect("covers every network of the table", () =>
    Effect.sync(() =>
      assert.deepStrictEqual(Object.keys(networks).sort(), nativeRows.map(([network]) => network).sort())
    )
  )

  for (const [network, symbol, amount] of nativeRows) {
    it.effect(`${network} native (${symbol})`, () => {
      const { layer, requests } = tickerLayer()
      return Effect.gen(function* () {
        const payment = yield* Payment.Payment
        const price = yield* payment.price({ size: MB, network })
        assert.strictEqual(price.token, "native")
        assert.strictEqual(price.decimals, 18)
        assert.strictEqual(price.amount, amount)
        assert.deepStrictEqual(price.ticker, { symbol, usd: prices[symbol] as number })
        assert.deepStrictEqual(requests, [`GET ${api}/api/lighthouse/get_ticker?symbol=${symbol}`])
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("defaults to the configured network (polygon) and the native coin", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const price = yield* payment.price({ size: 0 })
        assert.strictEqual(price.network, "polygon")
        assert.strictEqual(price.token, "native")
        assert.strictEqual(price.formatted, "0.0078125")
      })
    )
  )

  it.effect("reads network and token names in any case", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const price = yield* payment.price({ size: MB, network: " Polygon ", token: "USDC" })
        assert.strictEqual(price.network, "polygon")
        assert.strictEqual(price.token, "usdc")
        assert.strictEqual(price.amount, 3906n)
        assert.strictEqual(price.formatted, "0.003906")
      })
    )
  )

  describe("boundaries", () => {
    const cases: ReadonlyArray<readonly [string, number | bigint, bigint, string, bigint, bigint, bigint]> = [
      // size, chargeable, usd, 6-decimal usdc, 18-decimal dai, native MATIC at $0.5 (18 decimals)
      ["0 bytes", 0, 1_048_576n, "0.00390625", 3906n, 3_906_250_000_000_000n, 7_812_500_000_000_000n],
      ["1 MB - 1", MB - 1, 1_048_576n, "0.00390625", 3906n, 3_906_250_000_000_000n, 7_812_500_000_000_000n],
      ["1 MB", MB, 1_048_576n, "0.00390625", 3906n, 3_906_250_000_000_000n, 7_812_500_000_000_000n],
      [
        "1 MB + 1",
        MB + 1,
        1_048_577n,
        "0.0039062537252902984619140625",
        3906n,
        3_906_253_725_290_298n,
        // 7 812 507 450 580 596.92… rounds up: twice the dai amount would be one unit short.
        7_812_507_450_580_597n
      ],
      ["1 GB", BigInt(GB), 1_073_741_824n, "4", 4_000_000n, 4_000_000_000_000_000_000n, 8_000_000_000_000_000_000n]
    ]
    for (const [name, size, chargeable, usd, usdc, dai, matic] of cases) {
      it.effect(name, () =>
        withPayment((payment) =>
          Effect.gen(function* () {
            const six = yield* payment.price({ size, network: "polygon", token: "usdc" })
            const eighteen = yield* payment.price({ size, network: "polygon", token: "dai" })
            const native = yield* payment.price({ size, network: "polygon" })
            assert.strictEqual(six.size, BigInt(size))
            assert.strictEqual(six.chargeableBytes, chargeable)
            assert.strictEqual(six.usd, usd)
            assert.strictEqual(six.amount, usdc)
            assert.strictEqual(eighteen.amount, dai)
            assert.strictEqual(native.amount, matic)
          })
        )
      )
    }
  })
})

// =============================================================================
// Errors
// =============================================================================

describe("Payment errors", () => {
  it.effect("a missing network: Token not provided!!!", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        for (const network of ["", "  "]) {
          const error = yield* Effect.flip(payment.price({ size: MB, network, token: "usdc" }))
          assert.strictEqual(error._tag, "TokenNotProvided")
          assert.strictEqual(error.message, "Token not provided!!!")
        }
        // Untyped callers may pass null: the provider's `!network`.
        const fromJs = yield* Effect.flip(payment.quote({ files: [1], network: null as unknown as string }))
        assert.strictEqual(fromJs.message, "Token not provided!!!")
        const funding = yield* Effect.flip(payment.fund({ amount: 1n, network: "", privateKey: "0x" }))
        assert.strictEqual(funding.message, "Token not provided!!!")
      })
    )
  )

  it.effect("an unknown network: Unsupported Network!!!", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        for (const network of ["mars", "ethereum", "toString", "__proto__"]) {
          const error = yield* Effect.flip(payment.price({ size: MB, network }))
          assert.strictEqual(error._tag, "UnsupportedNetwork")
          assert.strictEqual(error.message, "Unsupported Network!!!")
        }
        const funding = yield* Effect.flip(payment.fund({ amount: 1n, network: "mars" }))
        assert.strictEqual(funding.message, "Unsupported Network!!!")
        const reading = yield* Effect.flip(payment.paymentCount({ network: "mars" }))
        assert.strictEqual(reading.message, "Unsupported Network!!!")
      })
    )
  )

  it.effect("a token the network does not list", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const missing = yield* Effect.flip(payment.price({ size: MB, network: "filecoin", token: "usdt" }))
        assert.strictEqual(missing._tag, "UnsupportedToken")
        assert.strictEqual(missing.message, "Unsupported Token: usdt on filecoin")
        const unknown = yield* Effect.flip(payment.price({ size: MB, network: "polygon", token: "btc" }))
        assert.strictEqual(unknown.message, "Unsupported Token: btc on polygon")
      })
    )
  )

  it.effect("a size that is not a number of bytes", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const negative = yield* Effect.flip(payment.price({ size: -1, token: "usdc" }))
        assert.strictEqual(negative._tag, "InvalidPaymentInput")
        assert.strictEqual(negative.message, "Invalid payment input: size must be a whole number of bytes, got -1")
        const fraction = yield* Effect.flip(payment.price({ size: 1.5, token: "usdc" }))
        assert.strictEqual(fraction.message, "Invalid payment input: size must be a whole number of bytes, got 1.5")
        const big = yield* Effect.flip(payment.price({ size: -1n, token: "usdc" }))
        assert.strictEqual(big.message, "Invalid payment input: size must not be negative")
        const file = yield* Effect.flip(payment.quote({ files: [1, { fileSize: Number.NaN }], token: "usdc" }))
        assert.strictEqual(
          file.message,
          "Invalid payment input: files[1].fileSize must be a whole number of bytes, got NaN"
        )
      })
    )
  )

  describe("Failed to get ticker price", () => {
    const cases: ReadonlyArray<readonly [string, TickerAnswer, string]> = [
      ["a 500", { status: 500, body: "oops" }, "Failed to get ticker price: HTTP error! status 500"],
      ["a 404", { status: 404, body: "{}" }, "Failed to get ticker price: HTTP error! status 404"],
      ["no answer", "transport-error", "Failed to get ticker price: Network error"],
      ["a zero price", { status: 200, body: "0" }, "Failed to get ticker price: not a positive price: 0"],
      ["a negative price", { status: 200, body: "-3" }, "Failed to get ticker price: not a positive price: -3"],
      ["a word", { status: 200, body: '"soon"' }, 'Failed to get ticker price: not a positive price: "soon"']
    ]
    for (const [name, answer, text] of cases) {
      it.effect(name, () =>
        withPayment(
          (payment) =>
            Effect.gen(function* () {
              const error = yield* Effect.flip(payment.price({ size: MB, network: "filecoin" }))
              assert.strictEqual(error._tag, "TickerPriceFailed")
              assert.strictEqual(error.message, text)
            }),
          () => answer
        )
      )
    }

    it.effect("no answer within the request time-out (8 s)", () =>
      withPayment(
        (payment) =>
          Effect.gen(function* () {
            const fiber = yield* Effect.forkChild(Effect.flip(payment.price({ size: MB, network: "filecoin" })))
            yield* TestClock.adjust("7999 millis")
            assert.isUndefined(fiber.pollUnsafe())
            yield* TestClock.adjust("1 millis")
            const error = yield* Fiber.join(fiber)
            assert.strictEqual(error.message, "Failed to get ticker price: Request timed out")
          }),
        () => "hang"
      )
    )

    it.effect("a body that is not a price", () =>
      withPayment(
        (payment) =>
          Effect.gen(function* () {
            const error = yield* Effect.flip(payment.price({ size: MB, network: "filecoin" }))
            assert.strictEqual(error._tag, "TickerPriceFailed")
            assert.isTrue(error.message.startsWith("Failed to get ticker price: Invalid response from "))
          }),
        () => ({ status: 200, body: '{"price":5}' })
      )
    )

    it.effect("a numeric string is a price", () =>
      withPayment(
        (payment) =>
          Effect.gen(function* () {
            const price = yield* payment.price({ size: MB, network: "filecoin" })
            assert.strictEqual(price.amount, 781_250_000_000_000n)
          }),
        () => ({ status: 200, body: '"5.00"' })
      )
    )

    it.effect("stablecoins never ask the ticker", () => {
      const { layer, requests } = tickerLayer(() => "transport-error")
      return Effect.gen(function* () {
        const payment = yield* Payment.Payment
        const price = yield* payment.price({ size: MB, network: "filecoin", token: "usdc" })
        assert.strictEqual(price.amount, 3906n)
        assert.deepStrictEqual(requests, [])
      }).pipe(Effect.provide(layer))
    })
  })

  it.effect("funding without a payer: Private Key not found!!!", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        for (const token of ["native", "usdc"]) {
          const error = yield* Effect.flip(payment.fund({ amount: 3906n, network: "polygon", token }))
          assert.strictEqual(error._tag, "PrivateKeyNotFound")
          assert.strictEqual(error.message, "Private Key not found!!!")
        }
        // A wallet client with no account cannot send either.
        const accountless = createWalletClient({ transport: custom({ request: () => Promise.resolve(null) }) })
        const error = yield* Effect.flip(payment.fund({ amount: 1n, walletClient: accountless }))
        assert.strictEqual(error.message, "Private Key not found!!!")
      })
    )
  )

  it.effect("a malformed private key, never echoed", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const secret = "0x1234not-a-key"
        const error = yield* Effect.flip(payment.fund({ amount: 1n, privateKey: Redacted.make(secret) }))
        assert.strictEqual(error._tag, "InvalidPrivateKey")
        assert.strictEqual(error.message, "Private key must be 64 hex characters")
        assert.isFalse(JSON.stringify(error).includes("1234"))
        assert.isFalse(String(error).includes("1234"))
      })
    )
  )

  it.effect("an amount that is not a positive whole number", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        for (const amount of [0n, -5n, 0, 1.5]) {
          const error = yield* Effect.flip(payment.fund({ amount, network: "polygon" }))
          assert.strictEqual(error._tag, "InvalidPaymentInput")
          assert.strictEqual(
            error.message,
            `Invalid payment input: amount must be a positive whole number of the token's smallest unit, got ${amount}`
          )
        }
      })
    )
  )
})

// =============================================================================
// Quotes
// =============================================================================

describe("Payment.quote", () => {
  it.effect("sizes and named files: metadata, total, one price for the total", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const quote = yield* payment.quote({
          files: [
            1024,
            { fileSize: 2048n, fileName: "photo.JPG" },
            { fileSize: MB, fileName: "notes", mimeType: "x/y" }
          ],
          network: "filecoin",
          token: "usdc"
        })
        assert.deepStrictEqual(quote.metaData, [
          { fileSize: 1024, mimeType: null, fileName: "" },
          { fileSize: 2048, mimeType: "image/jpeg", fileName: "photo.JPG" },
          { fileSize: MB, mimeType: "x/y", fileName: "notes" }
        ])
        assert.strictEqual(quote.totalSize, MB + 3072)
        assert.strictEqual(quote.price.size, BigInt(MB + 3072))
        // (1 MB + 3 KB) × 10^6 / 2^28 = 3917.96… → 3918.
        assert.strictEqual(quote.price.amount, 3918n)
      })
    )
  )

  it.effect("no files: the 1 MB floor", () =>
    withPayment((payment) =>
      Effect.gen(function* () {
        const quote = yield* payment.quote({ files: [], network: "calibration", token: "usdt" })
        assert.deepStrictEqual(quote.metaData, [])
        assert.strictEqual(quote.totalSize, 0)
        assert.strictEqual(quote.price.amount, 3_906_250_000_000_000n)
      })
    )
  )

  it.effect("paths: a file and a folder walked recursively, counted by content", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.makeTempDirectoryScoped()
      yield* fs.makeDirectory(path.join(root, "site", "img"), { recursive: true })
      yield* fs.writeFileString(path.join(root, "site", "index.html"), "<h1>hi</h1>")
      yield* fs.writeFile(path.join(root, "site", "img", "logo.png"), new Uint8Array(5000))
      yield* fs.writeFile(path.join(root, "data.bin"), new Uint8Array(MB))
      const payment = yield* Payment.Payment
      const quote = yield* payment.quotePaths({
        paths: [path.join(root, "data.bin"), path.join(root, "site")],
        network: "polygon",
        token: "dai"
      })
      assert.deepStrictEqual(quote.metaData, [
        { fileSize: MB, mimeType: null, fileName: "data.bin" },
        { fileSize: 5000, mimeType: "image/png", fileName: "logo.png" },
        { fileSize: 11, mimeType: "text/html", fileName: "index.html" }
      ])
      assert.strictEqual(quote.totalSize, MB + 5011)
      assert.strictEqual(quote.price.amount, tokenUnits(BigInt(MB + 5011), 18))

      const missing = yield* Effect.flip(
        payment.quotePaths({ paths: path.join(root, "nope"), network: "polygon", token: "dai" })
      )
      assert.strictEqual(missing._tag, "PlatformError")
      const noNetwork = yield* Effect.flip(payment.quotePaths({ paths: root, network: "" }))
      assert.strictEqual(noNetwork.message, "Token not provided!!!")
    }).pipe(Effect.provide(Layer.merge(tickerLayer().layer, NodeServices.layer)))
  )
})
