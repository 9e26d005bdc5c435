/**
 * The caller's limits hold whichever x402 version or route the server speaks, through the public
 * Promise facade: a server that answers `402` in version 1 (JSON body) or version 2
 * (`PAYMENT-REQUIRED`), on the documented or the current route, gets a signature only for a price
 * within the ceiling, on the expected chain, in the expected token; and the payment goes back in
 * the header of the version it spoke (`X-PAYMENT` or `PAYMENT-SIGNATURE`), signed for that chain.
 */
import fc from "fast-check"
import { createLighthouseNode } from "lighthouse-effect/node"
import { HttpResponse, http } from "msw"
import { setupServer } from "msw/node"
import { getAddress, type LocalAccount } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

const api = "https://x402.versions.test"
const baseUsdc = getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
const sepoliaUsdc = getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e")
const payee = getAddress("0x1111111111111111111111111111111111111111")

interface Requirement {
  readonly network: string
  readonly amount: string
  readonly asset: string
}

/** What the server asks and in which version; the payment headers it received. */
const state = {
  version: 1 as 1 | 2,
  requirement: { network: "base", amount: "5000", asset: baseUsdc } as Requirement,
  received: [] as Array<{ readonly name: string; readonly value: string }>
}

const toBase64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64")
const fromBase64 = (text: string) => JSON.parse(Buffer.from(text, "base64").toString()) as Record<string, unknown>

/** The `402` in the server's version; `error` is the reason (a refusal of a payment ends each upload). */
const paymentRequired = (error: string, resource: string) => {
  const { network, amount, asset } = state.requirement
  const common = { scheme: "exact", network, payTo: payee, maxTimeoutSeconds: 300, asset }
  const extra = { name: "USD Coin", version: "2" }
  if (state.version === 2) {
    const required = { x402Version: 2, error, resource: { url: resource }, accepts: [{ ...common, amount, extra }] }
    return HttpResponse.json({}, { status: 402, headers: { "PAYMENT-REQUIRED": toBase64(required) } })
  }
  const v1 = { ...common, maxAmountRequired: amount, resource, description: "", mimeType: "application/json", extra }
  return HttpResponse.json({ x402Version: 1, error, accepts: [v1] }, { status: 402 })
}

const route = (path: string) =>
  http.post(`${api}${path}`, ({ request }) => {
    for (const name of ["x-payment", "payment-signature"]) {
      const value = request.headers.get(name)
      if (value !== null) state.received.push({ name, value })
    }
    const paid = state.received.length > 0
    return paymentRequired(paid ? "insufficient_funds" : "payment required", `${api}${path}`)
  })

const server = setupServer(route("/api/x402/upload"), route("/api/upload"))
const lighthouse = createLighthouseNode({ hosts: { api } })
beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
afterEach(() => {
  state.received.length = 0
})
afterAll(async () => {
  server.close()
  await lighthouse.dispose()
})

/** A viem account that records the typed data it is asked to sign. */
const recordingAccount = () => {
  const real = privateKeyToAccount(generatePrivateKey())
  const signed: Array<{ readonly domain?: { readonly chainId?: unknown } }> = []
  const account: LocalAccount = {
    ...real,
    signTypedData: (parameters) => {
      signed.push(parameters as (typeof signed)[number])
      return real.signTypedData(parameters)
    }
  }
  return { account, signed }
}

const attempt = async (routes: "documented" | "current", maxAmount: bigint) => {
  const { account, signed } = recordingAccount()
  const file = new File(["paid per upload"], "note.txt")
  const error = await lighthouse.payment.x402Upload({ file, account, routes, maxAmount }).then(
    () => undefined,
    (e: { readonly _tag: string; readonly message: string }) => e
  )
  return { error, signed, payer: account.address }
}

describe("x402 versions 1 and 2: the same limits, the matching header", () => {
  it("a version 2 402 on the current route is paid in PAYMENT-SIGNATURE, repeating what it accepted", async () => {
    state.version = 2
    state.requirement = { network: "eip155:8453", amount: "5000", asset: baseUsdc }
    const { error, signed, payer } = await attempt("current", 100_000n)
    expect(error?.message).toBe(`x402 payer ${payer} holds less than 5000`)
    expect(signed.map((s) => s.domain?.chainId)).toEqual([8453])
    expect(state.received.map((r) => r.name)).toEqual(["payment-signature"])
    const sent = fromBase64(state.received[0]!.value)
    expect(sent.x402Version).toBe(2)
    expect(sent.resource).toEqual({ url: `${api}/api/upload` })
    expect(sent.accepted).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: "5000", asset: baseUsdc })
  })

  it("a version 1 402 is paid in X-PAYMENT, whichever route asked", async () => {
    state.version = 1
    state.requirement = { network: "base", amount: "5000", asset: baseUsdc }
    await attempt("current", 100_000n)
    expect(state.received.map((r) => r.name)).toEqual(["x-payment"])
    expect(fromBase64(state.received[0]!.value)).toMatchObject({ x402Version: 1, scheme: "exact", network: "base" })
  })

  it("property: no version, route or network spelling gets a price above the ceiling or another chain's terms signed", async () => {
    const requirement = fc.record({
      network: fc.constantFrom("base", "eip155:8453", "eip155:84532", "base-sepolia", "eip155:1", "polygon", "8453"),
      amount: fc.bigInt({ min: 0n, max: 200_000n }).map(String),
      asset: fc.constantFrom<string>(baseUsdc, sepoliaUsdc, baseUsdc.toLowerCase())
    })
    const cases = fc.tuple(
      fc.constantFrom<1 | 2>(1, 2),
      fc.constantFrom<"documented" | "current">("documented", "current"),
      requirement,
      fc.bigInt({ min: 0n, max: 200_000n })
    )
    await fc.assert(
      fc.asyncProperty(cases, async ([version, routes, asked, maxAmount]) => {
        state.received.length = 0
        state.version = version
        state.requirement = asked
        const { error, signed } = await attempt(routes, maxAmount)
        const onBase = asked.network === "base" || asked.network === "eip155:8453"
        const fair = onBase && getAddress(asked.asset) === baseUsdc && BigInt(asked.amount) <= maxAmount
        expect(signed.length).toBe(fair ? 1 : 0)
        expect(state.received.map((r) => r.name)).toEqual(
          fair ? [version === 2 ? "payment-signature" : "x-payment"] : []
        )
        if (fair) {
          expect(signed[0]!.domain?.chainId).toBe(8453)
          const sent = fromBase64(state.received[0]!.value) as { payload: { authorization: { value: string } } }
          expect(BigInt(sent.payload.authorization.value)).toBeLessThanOrEqual(maxAmount)
          expect(error?._tag).toBe("X402InsufficientFunds")
        } else {
          const expected = !onBase
            ? "X402WrongNetwork"
            : getAddress(asked.asset) !== baseUsdc
              ? "X402WrongAsset"
              : "X402PriceAboveMaximum"
          expect(error?._tag).toBe(expected)
        }
      }),
      { numRuns: 120 }
    )
  })
})
