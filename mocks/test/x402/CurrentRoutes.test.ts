/**
 * The provider's current x402 routes on the served network, over a real socket, without a chain
 * (the facilitator's clients point at a closed port, so only answers given before verification
 * are exercised here; core/test/flows/x402Current.test.ts pays on a chain): the price route's
 * answer and refusal, `Content-Length` required, the size limit, and version 2's `402` in
 * `PAYMENT-REQUIRED` (body `{}`), which a version 1 `X-PAYMENT` does not satisfy.
 */
import { type Address, createPublicClient, createWalletClient, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"

const MiB = 1024 * 1024
const payTo: Address = "0x1111111111111111111111111111111111111111"
const asset: Address = "0x2222222222222222222222222222222222222222"
const nowhere = http("http://127.0.0.1:9", { retryCount: 0 })
const x402 = (maxUploadBytes: number) => ({
  publicClient: createPublicClient({ chain: hardhat, transport: nowhere }),
  settler: createWalletClient({
    account: privateKeyToAccount(`0x${"11".repeat(32)}`),
    chain: hardhat,
    transport: nowhere
  }),
  asset,
  payTo,
  maxUploadBytes
})

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork({ x402: x402(MiB) })
})
afterAll(() => served.close())

const decoded = (header: string | null) =>
  JSON.parse(Buffer.from(header ?? "", "base64").toString()) as Record<string, unknown>

const upload = (body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(`${served.urls.api}/api/upload`, { method: "POST", body, headers, duplex: "half" } as RequestInit)

describe("the current x402 routes (POST /api/upload, GET /api/upload/price)", () => {
  it("the price route answers the server's fields; a size that is not above 0 is 400", async () => {
    const priced = await fetch(`${served.urls.api}/api/upload/price?size=${3 * MiB}`)
    expect(await priced.json()).toEqual({
      fileSizeBytes: 3 * MiB,
      fileSizeMB: 3,
      billableMB: 3,
      pricePerMB: "$0.004",
      totalPrice: "$0.013000",
      network: "eip155:31337",
      payTo
    })
    for (const query of ["", "?size=0", "?size=-5", "?size=abc"]) {
      const refused = await fetch(`${served.urls.api}/api/upload/price${query}`)
      expect(refused.status).toBe(400)
      expect(await refused.json()).toEqual({ error: "Provide 'size' query parameter (file size in bytes)" })
    }
  })

  it("unpaid: 402 with PAYMENT-REQUIRED (x402 version 2, CAIP-2 network, amount) and the body {}", async () => {
    const answer = await upload(new Uint8Array(10), { "x-file-name": "ten.bin" })
    expect(answer.status).toBe(402)
    expect(await answer.json()).toEqual({})
    expect(decoded(answer.headers.get("payment-required"))).toEqual({
      x402Version: 2,
      error: "Payment required",
      resource: {
        url: expect.stringMatching(/\/api\/upload$/),
        description: "Upload file to Lighthouse IPFS storage",
        mimeType: "application/json"
      },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:31337",
          amount: "5000",
          asset,
          payTo,
          maxTimeoutSeconds: 300,
          extra: { name: "USD Coin", version: "2" }
        }
      ]
    })
  })

  it("a version 1 X-PAYMENT is not read there; a PAYMENT-SIGNATURE that is no payment is invalid_payload", async () => {
    const v1 = await upload(new Uint8Array(10), { "x-payment": Buffer.from("{}").toString("base64") })
    expect(v1.status).toBe(402)
    expect(decoded(v1.headers.get("payment-required")).error).toBe("Payment required")
    const junk = await upload(new Uint8Array(10), { "payment-signature": "not base64 of json" })
    expect(junk.status).toBe(402)
    expect(decoded(junk.headers.get("payment-required")).error).toBe("invalid_payload")
  })

  it("Content-Length is required (it prices the upload); above the limit is 400 before the body", async () => {
    const chunked = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new Uint8Array(10))
        controller.close()
      }
    })
    const undeclared = await upload(chunked)
    expect(undeclared.status).toBe(400)
    expect(await undeclared.json()).toEqual({ error: "Content-Length header is required" })
    const large = await upload(new Uint8Array(MiB + 1))
    expect(large.status).toBe(400)
    expect(await large.json()).toEqual({ error: "File exceeds maximum size of 1 MB" })
  })
})
