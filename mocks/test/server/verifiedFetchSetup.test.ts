/**
 * The `@helia/verified-fetch` setup of docs/local-network.md, run as written there, against the served
 * network over real sockets: `createVerifiedFetch` with the gateway as its only gateway and router
 * finds the gateway through `GET /routing/v1/providers/{cid}` and fetches verified bytes at once
 * (when the gateway answered that route 404 the same call waited 30 s and failed). Also what that
 * route answers over a socket: the gateway's peer id and the address the client reached it at.
 */

import { readFile } from "node:fs/promises"
import { request as httpRequest } from "node:http"
import { createVerifiedFetch, type VerifiedFetch } from "@helia/verified-fetch"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"
import { addFile, addFiles } from "../support/upload.ts"

const big = pseudoRandomBytes(600 * 1024, 11)
const nested = pseudoRandomBytes(5_000, 12)
let served: ServedMockNetwork
let bigCid: string
let siteCid: string

const hashOf = async (response: Response) => ((await response.json()) as { Hash: string }).Hash

beforeAll(async () => {
  served = await serveMockNetwork()
  const { apiKey } = served.network.seedAccount("0x00000000000000000000000000000000000000e5", {
    dataLimit: 16 * 1024 * 1024
  })
  const node = served.urls.node
  bigCid = await hashOf(await addFile(apiKey, "big.bin", new Blob([big as BlobPart]), { node, query: "cid-version=1" }))
  siteCid = await hashOf(
    await addFiles(apiKey, [["site/a/b.bin", new Blob([nested as BlobPart])]], { node, query: "cid-version=1" })
  )
})
afterAll(() => served?.close())

/** The ```js block of docs/local-network.md that sets verified-fetch up, its import lines left out. */
const readmeSetup = async (): Promise<string> => {
  const readme = await readFile(new URL("../../../docs/local-network.md", import.meta.url), "utf8")
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .find((code) => code.includes('from "@helia/verified-fetch"'))
  if (block === undefined) throw new Error("docs/local-network.md has no ```js block using @helia/verified-fetch")
  return block
    .split("\n")
    .filter((line) => !line.startsWith("import "))
    .join("\n")
}

type Setup = (create: typeof createVerifiedFetch) => Promise<{ verifiedFetch: VerifiedFetch; bytes: ArrayBuffer }>

describe("the verified-fetch setup of docs/local-network.md", () => {
  it("fetches verified bytes from the served gateway, found through its providers route", {
    timeout: 20_000
  }, async () => {
    const code = (await readmeSetup())
      .replaceAll("http://127.0.0.1:8733", served.urls.gateway)
      .replaceAll("<cid>", bigCid)
    const AsyncFunction = (async () => undefined).constructor as new (...args: Array<string>) => Setup
    const run = new AsyncFunction("createVerifiedFetch", `${code}\nreturn { verifiedFetch, bytes }`)
    const { verifiedFetch, bytes } = await run(createVerifiedFetch)
    try {
      expect(new Uint8Array(bytes)).toEqual(big)
      const inFolder = await verifiedFetch(`ipfs://${siteCid}/a/b.bin`)
      expect(inFolder.status).toBe(200)
      expect(new Uint8Array(await inFolder.arrayBuffer())).toEqual(nested)
    } finally {
      await verifiedFetch.stop()
    }
  })
})

describe("the providers route over HTTP", () => {
  it("names the gateway at the address this socket reached, and no one for a block it does not hold", async () => {
    const found = await (await fetch(`${served.urls.gateway}/routing/v1/providers/${bigCid}`)).json()
    expect(found.Providers).toEqual([
      {
        Schema: "peer",
        ID: expect.stringMatching(/^12D3KooW/),
        Addrs: [`/ip4/127.0.0.1/tcp/${new URL(served.urls.gateway).port}/http`],
        Protocols: ["transport-ipfs-gateway-http"]
      }
    ])
    const absent = "bafkreidwyr2qhgawv3feo3jpzc7ryriknqkjfmvegclzrc6lgbi6c5dtha"
    const none = await fetch(`${served.urls.gateway}/routing/v1/providers/${absent}`)
    expect(none.status).toBe(200)
    expect(await none.json()).toEqual({ Providers: [] })
  })

  it("names the host the client used (its Host header), not the one it is bound to", async () => {
    const { port } = new URL(served.urls.gateway)
    const body = await new Promise<string>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: "127.0.0.1", port, path: `/routing/v1/providers/${bigCid}`, headers: { host: "devbox.test:9000" } },
        (incoming) => {
          let text = ""
          incoming.setEncoding("utf8")
          incoming.on("data", (chunk: string) => {
            text += chunk
          })
          incoming.on("end", () => resolve(text))
        }
      )
      outgoing.on("error", reject)
      outgoing.end()
    })
    expect(JSON.parse(body).Providers[0].Addrs).toEqual(["/dns/devbox.test/tcp/9000/http"])
  })
})
