/**
 * The served x402 upload route against unpaid and oversized uploads, over a real socket: the
 * payment is read before the body, so an unpaid 512 MiB upload of declared size is answered 402
 * before a byte of it is sent; one of undeclared size (chunked) is counted, not kept (the server's
 * memory grows far less than the body); a refused payment of declared size is answered before the
 * body too; and the route's size limit is 413, before the body or as soon as the count passes it.
 * None of these touch the chain: the facilitator's clients point at a closed port.
 */
import { request as httpRequest, type IncomingMessage } from "node:http"
import { base64 } from "multiformats/bases/base64"
import { type Address, createPublicClient, createWalletClient, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"

const MiB = 1024 * 1024
const payTo: Address = "0x1111111111111111111111111111111111111111"
const asset: Address = "0x2222222222222222222222222222222222222222"
const nowhere = http("http://127.0.0.1:9", { retryCount: 0 })
const x402 = (maxUploadBytes?: number) => ({
  publicClient: createPublicClient({ chain: hardhat, transport: nowhere }),
  settler: createWalletClient({
    account: privateKeyToAccount(`0x${"11".repeat(32)}`),
    chain: hardhat,
    transport: nowhere
  }),
  asset,
  payTo,
  ...(maxUploadBytes === undefined ? {} : { maxUploadBytes })
})

let served: ServedMockNetwork
let small: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork({ x402: x402() })
  small = await serveMockNetwork({ x402: x402(MiB) })
})
afterAll(async () => {
  await served.close()
  await small.close()
})

const boundary = "x402-test-boundary"
const partHead = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
    "Content-Type: application/octet-stream\r\n\r\n"
)
const partTail = Buffer.from(`\r\n--${boundary}--\r\n`)

interface Answer {
  readonly status: number
  readonly body: { readonly error: string; readonly accepts?: ReadonlyArray<Record<string, unknown>> }
}

/** An answer, read whole; fails after `withinMs` (the route kept waiting for the body). */
const answerOf = (response: Promise<IncomingMessage>, withinMs: number) =>
  new Promise<Answer>((resolve, reject) => {
    const late = setTimeout(() => reject(new Error(`no answer within ${withinMs} ms`)), withinMs)
    response.then((incoming) => {
      const chunks: Array<Buffer> = []
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
      incoming.on("end", () => {
        clearTimeout(late)
        resolve({ status: incoming.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) as Answer["body"] })
      })
    }, reject)
  })

/** A POST to the route, headers sent at once; the body is the caller's to write. */
const open = (base: string, headers: Record<string, string>) => {
  const request = httpRequest(`${base}/api/x402/upload`, {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${boundary}`, ...headers }
  })
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once("response", resolve)
    request.once("error", reject)
  })
  request.flushHeaders()
  return { request, response }
}

/**
 * Writes `total` file bytes (one reused 1 MiB buffer) as one part, with back-pressure, until done
 * or `answer` came (a server that answered early stops reading: no `drain` then).
 */
const writePart = async (request: ReturnType<typeof open>["request"], total: number, answer: Promise<unknown>) => {
  let answered = false
  const settled = answer.then(
    () => {
      answered = true
    },
    () => {
      answered = true
    }
  )
  const chunk = Buffer.alloc(MiB, 7)
  const drained = () => new Promise((resolve) => request.once("drain", resolve))
  request.write(partHead)
  for (let sent = 0; sent < total && !answered && !request.destroyed; sent += MiB) {
    if (!request.write(chunk.subarray(0, Math.min(MiB, total - sent)))) await Promise.race([drained(), settled])
  }
  if (!answered && !request.destroyed) request.end(partTail)
}

/** The declared size of a one-part body of `fileBytes`. */
const declared = (fileBytes: number) => String(partHead.byteLength + fileBytes + partTail.byteLength)

/** Base units of the test USDC for `bytes` (0.00390625 USD per MiB, rounded up). */
const price = (bytes: number) => String((BigInt(bytes) * 1_000_000n + 2n ** 28n - 1n) / 2n ** 28n)

describe("POST /api/x402/upload served: the payment before the body", () => {
  it("an unpaid 512 MiB upload of declared size is answered 402 before any of its body is sent", async () => {
    const length = declared(512 * MiB)
    const { request, response } = open(served.urls.api, { "content-length": length })
    try {
      const answer = await answerOf(response, 15_000)
      expect(answer.status).toBe(402)
      expect(answer.body.error).toBe("X-PAYMENT header is required")
      expect(answer.body.accepts?.[0]).toMatchObject({
        maxAmountRequired: price(Number(length)),
        description: `Store an upload of ${length} bytes`,
        payTo,
        asset
      })
    } finally {
      request.destroy()
    }
  })

  it("a refused payment of declared size is answered 402 before the body", async () => {
    const authorization = {
      from: "0x3333333333333333333333333333333333333333",
      to: payTo,
      value: "1",
      validAfter: "0",
      validBefore: String(2 ** 40),
      nonce: `0x${"00".repeat(32)}`
    }
    const header = base64.baseEncode(
      new TextEncoder().encode(
        JSON.stringify({
          x402Version: 1,
          scheme: "exact",
          network: "localhost",
          payload: { signature: `0x${"00".repeat(65)}`, authorization }
        })
      )
    )
    const { request, response } = open(served.urls.api, { "content-length": declared(512 * MiB), "x-payment": header })
    try {
      const answer = await answerOf(response, 15_000)
      expect(answer.status).toBe(402)
      expect(answer.body.error).toBe("invalid_exact_evm_payload_authorization_value")
    } finally {
      request.destroy()
    }
  })

  it("an unpaid 512 MiB upload of undeclared size is counted, not kept: 402, the server grew far less than the body", async () => {
    const before = process.memoryUsage().rss
    let peak = before
    const sampling = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 10)
    const { request, response } = open(served.urls.api, { "transfer-encoding": "chunked" })
    const answer = answerOf(response, 120_000)
    let answered: Answer
    try {
      await writePart(request, 512 * MiB, answer)
      answered = await answer
    } finally {
      clearInterval(sampling)
      request.destroy()
    }
    peak = Math.max(peak, process.memoryUsage().rss)
    expect((peak - before) / MiB).toBeLessThan(64)
    expect(answered.status).toBe(402)
    expect(answered.body.accepts?.[0]?.maxAmountRequired).toBe(price(Number(declared(512 * MiB))))
  })
})

describe("POST /api/x402/upload served: the size limit", () => {
  it("a declared size above the limit is 413 before the body", async () => {
    const { request, response } = open(small.urls.api, { "content-length": declared(2 * MiB) })
    try {
      expect(await answerOf(response, 15_000)).toEqual({
        status: 413,
        body: { error: `an x402 upload takes at most ${MiB} bytes` }
      })
    } finally {
      request.destroy()
    }
  })

  it("an undeclared size is 413 once the count passes the limit, the rest never read", async () => {
    const { request, response } = open(small.urls.api, { "transfer-encoding": "chunked" })
    const answer = answerOf(response, 60_000)
    try {
      await writePart(request, 64 * MiB, answer)
      expect(await answer).toEqual({ status: 413, body: { error: `an x402 upload takes at most ${MiB} bytes` } })
    } finally {
      request.destroy()
    }
  })

  it("within the limit, an unpaid upload is still 402", async () => {
    const { request, response } = open(small.urls.api, { "content-length": declared(1000) })
    const answer = answerOf(response, 15_000)
    await writePart(request, 1000, answer)
    const { status, body } = await answer
    expect(status).toBe(402)
    expect(body.accepts?.[0]?.maxAmountRequired).toBe(price(MiB))
  })
})
