/**
 * A client that goes away while the upload node in this process reads its body. The body is in
 * memory whole (a `Blob` sent with `fetch`), as no socket would deliver it: the node still reads
 * it a piece at a time, giving the event loop a turn between pieces, so the client's timer fires
 * during the import, its abort reaches the node, and nothing of the upload is kept.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeEach, describe, expect, it } from "vitest"
import { startMockNetwork } from "../../src/node.ts"
import { uploadHost } from "../support/upload.ts"

const running = startMockNetwork({ onUnhandledFrame: "error" })
const { network, server } = running
afterAll(() => running.close())

const owner = privateKeyToAccount(generatePrivateKey())
const address = owner.address.toLowerCase()
let apiKey: string
beforeEach(() => {
  network.reset()
  apiKey = network.seedAccount(owner.address, { dataLimit: 1024 * 1024 * 1024 }).apiKey
})

describe("upload node: a client that aborts", () => {
  it("an abort from a timer set when the request arrives stops a 16 MiB in-memory upload; nothing is kept", async () => {
    const controller = new AbortController()
    const abortOnArrival = () => setTimeout(() => controller.abort(), 0)
    server.events.on("request:start", abortOnArrival)
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array(16 * 1024 * 1024).fill(7)]), "large.bin")
    const outcome = await fetch(`${uploadHost}/api/v0/add`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}` },
      body: form,
      signal: controller.signal
    }).then(
      (response) => response.status,
      (error: unknown) => (error instanceof Error ? error.name : error)
    )
    server.events.removeListener("request:start", abortOnArrival)
    expect(outcome).toBe("AbortError")
    // The node sees the abort at its next piece and gives the upload up.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(network.state.files.of(address)).toEqual([])
    expect(network.state.accounts.get(address)!.dataUsed).toBe(0)
    expect(await network.state.content.blockCount()).toBe(0)
  })
})
