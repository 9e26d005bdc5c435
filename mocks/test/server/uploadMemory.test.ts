/**
 * A big upload to the served network (blocks on disk) keeps little memory in buffers: the body's
 * chunks and the leaves made of them are freed as soon as they are done with. Left to the garbage
 * collector they piled up (V8 starts a collection only once some 64 MiB more of them are held),
 * and the server grew by that much on its first big upload.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"

const MiB = 1024 * 1024
let served: ServedMockNetwork
let stateDir: string

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "upload-memory-"))
  served = await serveMockNetwork({ stateDir })
})
afterAll(async () => {
  await served.close()
  await rm(stateDir, { recursive: true, force: true })
})

/**
 * POSTs a file of `mib` MiB (one pseudo-random MiB over and over, written from that one buffer:
 * the client allocates nothing as it sends) over a raw socket; answers the node's reply.
 */
const upload = (apiKey: string, mib: number) =>
  new Promise<string>((resolve, reject) => {
    const url = new URL(served.urls.node)
    const socket = connect(Number(url.port), url.hostname)
    const boundary = "upload-memory-test"
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`
    const tail = `\r\n--${boundary}--\r\n`
    const chunk = pseudoRandomBytes(MiB, 7)
    let reply = ""
    socket.setEncoding("utf8")
    socket.on("data", (text: string) => {
      reply += text
    })
    socket.on("error", reject)
    // `Connection: close`: the server closes once it has answered.
    socket.on("close", () => resolve(reply))
    socket.write(
      `POST /api/v0/add?cid-version=1 HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nConnection: close\r\n` +
        `Content-Length: ${head.length + mib * MiB + tail.length}\r\n\r\n${head}`
    )
    let sent = 0
    const writeOn = () => {
      while (sent < mib) {
        sent += 1
        if (!socket.write(chunk)) return void socket.once("drain", writeOn)
      }
      // Not half-closed: the server would take that for a client gone, as curl never does.
      socket.write(tail)
    }
    writeOn()
  })

describe("served network: memory while it takes a big upload", () => {
  it("holds a few MiB of buffers, not the collector's 64 MiB of dead ones", { timeout: 120_000 }, async () => {
    const apiKey = served.network.seedAccount("0x00000000000000000000000000000000000000b1", {
      dataLimit: 1024 * MiB
    }).apiKey
    const before = process.memoryUsage().arrayBuffers
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers)
    }, 5)
    const reply = await upload(apiKey, 192).finally(() => clearInterval(sampler))
    expect(reply).toMatch(/^HTTP\/1\.1 200 /)
    expect(reply).toContain(`"Name":"big.bin"`)
    expect((peak - before) / MiB).toBeLessThan(24)
  })
})
