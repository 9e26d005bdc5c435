/**
 * The HTTP server mode over real sockets on 127.0.0.1 (no msw in this process): every host on its
 * own port, streamed uploads and downloads, errors, faults (a `down` host drops the connection),
 * CORS, and the provider's SDK pointed at the server through its config object.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import lighthouse from "@lighthouse-web3/sdk"
import { lighthouseConfig } from "@lighthouse-web3/sdk/dist/lighthouse.config.js"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { ContentStore } from "../../src/storage/ContentStore.ts"
import { addAll } from "../../src/storage/Unixfs.ts"
import { addFile } from "../support/upload.ts"

let served: ServedMockNetwork
let apiKey: string
const owner = privateKeyToAccount(generatePrivateKey())

beforeAll(async () => {
  served = await serveMockNetwork()
})
afterAll(async () => {
  await served.close()
})
beforeEach(() => {
  served.network.reset()
  apiKey = served.network.seedAccount(owner.address, { dataLimit: 64 * 1024 * 1024 }).apiKey
})

const upload = (bytes: Uint8Array, name: string, key = apiKey) =>
  addFile(key, name, new Blob([bytes as BlobPart]), { node: served.urls.node, query: "cid-version=1" })

describe("serveMockNetwork", () => {
  it("listens on 127.0.0.1, one port per host", () => {
    const urls = Object.values(served.urls)
    expect(new Set(urls).size).toBe(4)
    for (const url of urls) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it("uploads through the socket with kubo's CIDs and reads the bytes back", async () => {
    const bytes = Uint8Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 31) % 256)
    let expected = ""
    for await (const entry of addAll([{ path: "big.bin", content: bytes }], new ContentStore().staging(), {
      cidVersion: 1
    }))
      expected = entry.cid.toString()
    const response = await upload(bytes, "big.bin")
    expect(response.status).toBe(200)
    const added = await response.json()
    expect(added).toMatchObject({ Name: "big.bin", Hash: expected })

    const cat = await fetch(`${served.urls.gateway}/api/v0/cat/${added.Hash}`, { method: "POST" })
    expect(cat.headers.get("content-length")).toBe(String(bytes.length))
    expect(new Uint8Array(await cat.arrayBuffer())).toEqual(bytes)
    const head = await fetch(`${served.urls.gateway}/ipfs/${added.Hash}`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("content-length")).toBe(String(bytes.length))

    const usage = await fetch(`${served.urls.api}/api/user/user_data_usage`, {
      headers: { Authorization: `Bearer ${apiKey}` }
    })
    expect((await usage.json()).dataUsed).toBe(bytes.length)
  })

  it("answers errors as the hosts do: 401, 404, and the key nodes' own answers", async () => {
    const refused = await upload(new Uint8Array([1]), "x", "wrong")
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: "Authentication failed" })
    expect((await fetch(`${served.urls.api}/api/nothing/here`)).status).toBe(404)
    const message = await fetch(`${served.urls.encryption}/api/message/${owner.address}`)
    expect((await message.json())[0].message).toMatch(/^Please sign this message to prove/)
  })

  it("applies faults: down drops the connection, status and slow answer", async () => {
    served.network.faults.down({ host: "gateway" })
    await expect(fetch(`${served.urls.gateway}/ipfs/QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o`)).rejects.toThrow(
      TypeError
    )
    served.network.faults.clear()
    served.network.faults.status({ host: "api" }, 503)
    expect((await fetch(`${served.urls.api}/api/lighthouse/get_ticker?symbol=FIL`)).status).toBe(503)
    served.network.faults.clear()
    served.network.faults.slow({ host: "api" }, 120)
    const started = performance.now()
    expect(await (await fetch(`${served.urls.api}/api/lighthouse/get_ticker?symbol=FIL`)).json()).toBe(5)
    expect(performance.now() - started).toBeGreaterThanOrEqual(110)
    served.network.faults.clear()
  })

  it("answers CORS preflights and exposes the gateway headers", async () => {
    const preflight = await fetch(`${served.urls.node}/api/v0/add`, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:6006", "Access-Control-Request-Method": "POST" }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*")
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization")
    const ticker = await fetch(`${served.urls.api}/api/lighthouse/get_ticker?symbol=ETH`)
    expect(ticker.headers.get("access-control-allow-origin")).toBe("*")
  })

  it("serves the provider's SDK, pointed at it through its config, over real sockets", async () => {
    const saved = { ...lighthouseConfig }
    Object.assign(lighthouseConfig, {
      lighthouseAPI: served.urls.api,
      lighthouseNode: served.urls.node,
      lighthouseGateway: served.urls.gateway
    })
    const dir = await mkdtemp(join(tmpdir(), "lighthouse-serve-"))
    try {
      const path = join(dir, "hello.txt")
      await writeFile(path, "hello world\n")
      // The SDK's Node upload writes its own multipart stream with http.request.
      const { data } = await lighthouse.upload(path, apiKey, 0)
      expect(data).toEqual({ Name: "hello.txt", Hash: "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o", Size: "20" })
      const balance = await lighthouse.getBalance(apiKey)
      expect(balance.data.dataUsed).toBe(12)
      const key = await lighthouse.generateKey(apiKey)
      expect(key.data.ipnsId).toMatch(/^k51/)
    } finally {
      Object.assign(lighthouseConfig, saved)
      await rm(dir, { recursive: true, force: true })
    }
  })
})
