/**
 * The served network answering before a request body has ended (a refusal) keeps reading the
 * rest, as real servers do, rather than resetting the connection under a client still sending:
 * a raw socket client reads the whole answer, sends 16 MiB more without a reset, and the
 * connection ends cleanly once the body has.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"

const MiB = 1024 * 1024
let served: ServedMockNetwork

beforeAll(async () => {
  served = await serveMockNetwork()
})
afterAll(async () => {
  await served.close()
})

interface Outcome {
  readonly answer: string
  readonly sentAfterAnswer: number
  readonly error: string | undefined
  readonly closedCleanly: boolean
}

/** POSTs a `bodyMiB` MiB multipart body with `apiKey`, writing on after the answer has come. */
const sendThrough = (apiKey: string, bodyMiB: number) =>
  new Promise<Outcome>((resolve) => {
    const url = new URL(served.urls.node)
    const socket = connect(Number(url.port), url.hostname)
    const boundary = "early-answer-test"
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`
    const tail = `\r\n--${boundary}--\r\n`
    const length = head.length + bodyMiB * MiB + tail.length
    let received = ""
    let answeredAt: number | undefined
    let sent = 0
    let error: string | undefined
    socket.setEncoding("utf8")
    socket.on("data", (text: string) => {
      received += text
      if (answeredAt === undefined && /\r\n\r\n[\s\S]*\}$/.test(received)) answeredAt = sent
    })
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message
    })
    socket.on("close", (hadError) =>
      resolve({
        answer: received,
        sentAfterAnswer: answeredAt === undefined ? 0 : sent - answeredAt,
        error,
        closedCleanly: !hadError
      })
    )
    socket.write(
      `POST /api/v0/add?cid-version=1 HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n${head}`
    )
    const chunk = new Uint8Array(MiB).fill(1)
    const writeOn = () => {
      while (sent < bodyMiB * MiB) {
        sent += MiB
        if (!socket.write(chunk)) return void socket.once("drain", writeOn)
      }
      socket.end(tail)
    }
    writeOn()
  })

describe("served network: an answer before the request body has ended", () => {
  it.each([
    { status: 401, key: () => "wrong-key", text: '{"error":"Authentication failed"}' },
    {
      status: 402,
      key: () => served.network.seedAccount("0x00000000000000000000000000000000000000e4", { dataLimit: MiB }).apiKey,
      text: '{"error":"Storage quota exceeded: 0 of 1048576 bytes used, this upload needs more than the 1048576 left"}'
    }
  ])("$status: the whole answer, then the rest of the body is read, and the connection ends cleanly", async (c) => {
    served.network.reset()
    const outcome = await sendThrough(c.key(), 64)
    expect(outcome.answer).toMatch(new RegExp(`^HTTP/1\\.1 ${c.status} `))
    expect(outcome.answer.endsWith(`\r\n\r\n${c.text}`)).toBe(true)
    expect(outcome.error).toBeUndefined()
    expect(outcome.closedCleanly).toBe(true)
    expect(outcome.sentAfterAnswer).toBeGreaterThanOrEqual(16 * MiB)
    expect(served.network.state.files.of("0x00000000000000000000000000000000000000e4").length).toBe(0)
  })
})
