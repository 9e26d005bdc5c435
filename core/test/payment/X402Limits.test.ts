/**
 * A hostile or mistaken x402 server against the client's limits, through the public Promise
 * facade: a `402` whose terms exceed what the caller allows (amount, chain, asset, validity
 * window) or are malformed is refused with its typed error, and nothing is signed (the account
 * records every signature asked of it) nor sent with `X-PAYMENT`. Within the limits the client
 * signs once; `x402Quote` shows the terms without an account.
 */
import fc from "fast-check"
import { createLighthouseNode } from "lighthouse-effect/node"
import { HttpResponse, http } from "msw"
import { setupServer } from "msw/node"
import { type Address, getAddress, type LocalAccount } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

const api = "https://x402.hostile.test"
const baseUsdc = getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
const mainnetUsdc = getAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
const baseWeth = getAddress("0x4200000000000000000000000000000000000006")
const dead = "0x000000000000000000000000000000000000dEaD"
const payee = getAddress("0x1111111111111111111111111111111111111111")

/** What the hostile server asks, as JSON text (so a term can be a literal such as `1e400`). */
let asked = ""
/** `X-PAYMENT` headers the server received. */
const payments: Array<string> = []

const server = setupServer(
  http.post(`${api}/api/x402/upload`, ({ request }) => {
    const payment = request.headers.get("x-payment")
    if (payment !== null) {
      payments.push(payment)
      return new HttpResponse(asked.replace('"X-PAYMENT header is required"', '"insufficient_funds"'), {
        status: 402,
        headers: { "content-type": "application/json" }
      })
    }
    return new HttpResponse(asked, { status: 402, headers: { "content-type": "application/json" } })
  })
)
const lighthouse = createLighthouseNode({ hosts: { api } })
beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
afterEach(() => {
  payments.length = 0
})
afterAll(async () => {
  server.close()
  await lighthouse.dispose()
})

/** The terms of a fair `402` on Base; `raw` replaces a field's JSON text. */
const fairTerms = {
  scheme: "exact",
  network: "base",
  maxAmountRequired: "3907",
  resource: `${api}/api/x402/upload`,
  description: "Store note.txt (26 bytes)",
  mimeType: "application/json",
  payTo: payee as string,
  maxTimeoutSeconds: 300,
  asset: baseUsdc as string,
  extra: { name: "USD Coin", version: "2" }
}
type Terms = typeof fairTerms

const ask = (terms: Partial<Terms>, raw: Partial<Record<keyof Terms, string>> = {}) => {
  const marked = { ...fairTerms, ...terms } as Record<string, unknown>
  for (const key of Object.keys(raw)) marked[key] = `@@${key}@@`
  let text = JSON.stringify({ x402Version: 1, error: "X-PAYMENT header is required", accepts: [marked] })
  for (const [key, value] of Object.entries(raw)) text = text.replace(`"@@${key}@@"`, value)
  asked = text
}

/** A viem account that records every signature asked of it. */
const recordingAccount = () => {
  const real = privateKeyToAccount(generatePrivateKey())
  const signed: Array<unknown> = []
  const account: LocalAccount = {
    ...real,
    signTypedData: (parameters) => {
      signed.push(parameters)
      return real.signTypedData(parameters)
    }
  }
  return { account, signed }
}

const file = () => new File(["paid per upload"], "note.txt", { type: "text/plain" })

/** The upload's failure, with what was signed and sent meanwhile. */
const refusal = async (limits: Record<string, unknown> = {}) => {
  const { account, signed } = recordingAccount()
  const error = await lighthouse.payment.x402Upload({ file: file(), account, ...limits }).then(
    () => undefined,
    (e: { readonly _tag: string; readonly message: string }) => ({ _tag: e._tag, message: e.message })
  )
  return { error, signed: signed.length, sent: payments.length }
}

describe("x402 terms beyond the caller's limits: typed refusal, nothing signed", () => {
  it("no limits given (the CLI's first example): 10^30 base units to 0x…dEaD is above the 0.1 USDC default", async () => {
    ask({ maxAmountRequired: `1${"0".repeat(30)}`, payTo: dead })
    expect(await refusal()).toEqual({
      error: {
        _tag: "X402PriceAboveMaximum",
        message: `x402 payment of 1${"0".repeat(30)} asked, above the 100000 allowed (raise maxAmount to pay it)`
      },
      signed: 0,
      sent: 0
    })
  })

  it("Ethereum mainnet USDC though the caller named no chain: another network", async () => {
    ask({ network: "eip155:1", asset: mainnetUsdc })
    expect(await refusal()).toEqual({
      error: { _tag: "X402WrongNetwork", message: "x402 payment asked on eip155:1, expected base" },
      signed: 0,
      sent: 0
    })
  })

  it("a window of 1e10 seconds (317 years) is above the one-hour default", async () => {
    ask({}, { maxTimeoutSeconds: "1e10" })
    expect(await refusal()).toEqual({
      error: {
        _tag: "X402WindowTooLong",
        message: "x402 authorisation valid for 10000000000 s asked, above the 3600 s allowed"
      },
      signed: 0,
      sent: 0
    })
  })

  it("WETH instead of USDC: another asset", async () => {
    ask({ asset: baseWeth })
    expect(await refusal()).toEqual({
      error: { _tag: "X402WrongAsset", message: `x402 payment asked in ${baseWeth}, offered ${baseUsdc}` },
      signed: 0,
      sent: 0
    })
  })

  it("malformed terms are refused with the field and the reason", async () => {
    const cases: ReadonlyArray<readonly [Partial<Terms>, Partial<Record<keyof Terms, string>>, string]> = [
      [{}, { maxTimeoutSeconds: "1e400" }, "maxTimeoutSeconds Infinity is not a whole number of seconds above 0"],
      [{}, { maxTimeoutSeconds: "1.5" }, "maxTimeoutSeconds 1.5 is not a whole number of seconds above 0"],
      [{}, { maxTimeoutSeconds: "-1000" }, "maxTimeoutSeconds -1000 is not a whole number of seconds above 0"],
      ...["abc", "1e6", "0x10"].map(
        (amount) =>
          [
            { maxAmountRequired: amount },
            {},
            `maxAmountRequired ${amount} is not a whole number of base units in decimal digits`
          ] as const
      ),
      [{ payTo: "nope" }, {}, "payTo nope is not an address"]
    ]
    for (const [terms, raw, reason] of cases) {
      ask(terms, raw)
      expect(await refusal()).toEqual({
        error: { _tag: "X402MalformedTerms", message: `x402 terms refused: ${reason}` },
        signed: 0,
        sent: 0
      })
    }
  })

  it("within the limits the client signs once and sends the payment (the refusals above are not a broken signer)", async () => {
    ask({})
    expect(await refusal()).toMatchObject({ error: { _tag: "X402InsufficientFunds" }, signed: 1, sent: 1 })
    payments.length = 0
    ask({ maxAmountRequired: "2000000", network: "base-sepolia", asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" })
    expect(await refusal({ network: "base-sepolia", maxAmount: 2_000_000n })).toMatchObject({
      error: { _tag: "X402InsufficientFunds" },
      signed: 1,
      sent: 1
    })
  })

  it("an amount above the caller's own ceiling is refused before any request", async () => {
    ask({})
    expect(await refusal({ amount: 200_000n })).toEqual({
      error: {
        _tag: "InvalidArgument",
        message: "Invalid argument to payment.x402Upload: amount 200000 is above maxAmount 100000"
      },
      signed: 0,
      sent: 0
    })
  })

  it("x402Quote shows price, payee, chain, token and window without an account; it refuses as the upload does", async () => {
    ask({})
    expect(await lighthouse.payment.x402Quote({ file: file() })).toEqual({
      x402Version: 1,
      network: "base",
      chainId: 8453,
      asset: baseUsdc,
      token: { name: "USD Coin", version: "2" },
      amount: 3907n,
      payTo: payee,
      maxTimeoutSeconds: 300,
      resource: `${api}/api/x402/upload`,
      description: "Store note.txt (26 bytes)"
    })
    ask({ maxAmountRequired: "100001" })
    await expect(lighthouse.payment.x402Quote({ file: file() })).rejects.toMatchObject({
      _tag: "X402PriceAboveMaximum"
    })
    expect(payments).toEqual([])
  })

  it("property: any 402 beyond the limits or malformed signs nothing and fails typed", async () => {
    const limit = fc.record({
      maxAmount: fc.bigInt({ min: 0n, max: 10n ** 12n }),
      maxTimeoutSeconds: fc.integer({ min: 1, max: 86_400 })
    })
    const otherAddress = fc
      .uint8Array({ minLength: 20, maxLength: 20 })
      .map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`) as Address)
      .filter((address) => address !== baseUsdc)
    const notDecimal = fc.oneof(
      fc.constantFrom("abc", "1e6", "0x10", "-1", "+1", "01", " 1", "1.0", ""),
      fc.string().filter((s) => !/^(0|[1-9]\d*)$/.test(s))
    )
    const notSeconds = fc.oneof(
      fc.constantFrom("1e400", "-1e400", "1.5", "-1000", "0", "-0.5", "9007199254740993"),
      fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .filter((x) => !Number.isSafeInteger(x) || x <= 0)
        .map(String)
    )
    const notAddress = fc.string().filter((s) => !/^0x[0-9a-fA-F]{40}$/.test(s))
    type Hostile = { readonly tag: string; readonly terms: Partial<Terms>; readonly raw?: Record<string, string> }
    const hostile = (l: { maxAmount: bigint; maxTimeoutSeconds: number }): fc.Arbitrary<Hostile> =>
      fc.oneof(
        fc
          .bigInt({ min: l.maxAmount + 1n, max: 2n ** 256n - 1n })
          .map((a) => ({ tag: "X402PriceAboveMaximum", terms: { maxAmountRequired: String(a) } })),
        fc
          .integer({ min: l.maxTimeoutSeconds + 1, max: Number.MAX_SAFE_INTEGER })
          .map((s) => ({ tag: "X402WindowTooLong", terms: { maxTimeoutSeconds: s } })),
        fc
          .oneof(fc.constantFrom("eip155:1", "base-sepolia", "polygon", "eip155:137", "localhost"), fc.string())
          .filter((n) => n !== "base" && n !== "eip155:8453")
          .map((network) => ({ tag: "X402WrongNetwork", terms: { network } })),
        otherAddress.map((asset) => ({ tag: "X402WrongAsset", terms: { asset } })),
        notDecimal.map((amount) => ({ tag: "X402MalformedTerms", terms: { maxAmountRequired: amount } })),
        notSeconds.map((text) => ({ tag: "X402MalformedTerms", terms: {}, raw: { maxTimeoutSeconds: text } })),
        notAddress.map((payTo) => ({ tag: "X402MalformedTerms", terms: { payTo } }))
      )
    const cases = limit.chain((l) => fc.tuple(fc.constant(l), hostile(l)))
    await fc.assert(
      fc.asyncProperty(cases, async ([limits, { tag, terms, raw }]) => {
        payments.length = 0
        // Every other term within the limits: the price at the ceiling.
        ask({ maxAmountRequired: String(limits.maxAmount), ...terms }, raw)
        const result = await refusal(limits)
        expect(result).toMatchObject({ error: { _tag: tag }, signed: 0, sent: 0 })
      }),
      { numRuns: 150 }
    )
  })
})
