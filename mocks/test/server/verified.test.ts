/**
 * The served network on disk (`serveMockNetwork({ stateDir })`, real sockets on 127.0.0.1) read by
 * an independent client that checks every block against its CID: `@helia/verified-fetch` over a
 * Helia built on `@helia/http`, whose only gateway and router is the served gateway. Multi-block
 * files, files in folders by path, byte ranges and IPNS names all come back verified; the
 * provider's own SDK uploads, lists, signs in and manages IPNS keys over HTTP; and 32 clients at
 * once upload and download with every byte intact.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type DelegatedRoutingV1HttpApiClient,
  delegatedRoutingV1HttpApiClient
} from "@helia/delegated-routing-v1-http-api-client"
import { withHTTP } from "@helia/http"
import { createVerifiedFetch, type VerifiedFetch } from "@helia/verified-fetch"
import { generateKeyPair } from "@libp2p/crypto/keys"
import lighthouse from "@lighthouse-web3/sdk"
import { createHeliaLight } from "helia"
import { createIPNSRecord, marshalIPNSRecord } from "ipns"
import { base36 } from "multiformats/bases/base36"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pointProviderSdkAt } from "../../src/server/providerSdk.ts"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"
import { addFile, addFiles } from "../support/upload.ts"

const MiB = 1024 * 1024
// Hardhat's account #3: a throw-away key for the local network only.
const owner = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804e8ab365a")

const bytesOf = pseudoRandomBytes

let dir: string
let served: ServedMockNetwork
let apiKey: string
let verifiedFetch: VerifiedFetch
let routing: DelegatedRoutingV1HttpApiClient
let restoreSdk: () => void
const big = bytesOf(3 * MiB + 5, 1)
const nested = bytesOf(300_000, 2)
let bigCid: string
let siteCid: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "verified-"))
  served = await serveMockNetwork({ stateDir: join(dir, "state") })
  apiKey = served.network.seedAccount(owner.address, { dataLimit: 512 * MiB }).apiKey
  const node = served.urls.node
  const one = await addFile(apiKey, "big.bin", new Blob([big as BlobPart]), { node, query: "cid-version=1" })
  bigCid = ((await one.json()) as { Hash: string }).Hash
  const folder = await addFiles(
    apiKey,
    [
      ["site/index.html", new Blob(["<h1>site</h1>"])],
      ["site/a/b.bin", new Blob([nested as BlobPart])]
    ],
    { node, query: "cid-version=1" }
  )
  siteCid = ((await folder.json()) as { Hash: string }).Hash
  const helia = await withHTTP(createHeliaLight({}), {
    recursiveGateways: [served.urls.gateway],
    delegatedRouters: [served.urls.gateway],
    allowInsecure: true,
    allowLocal: true
  }).start()
  verifiedFetch = await createVerifiedFetch(helia)
  routing = delegatedRoutingV1HttpApiClient({ url: served.urls.gateway, cacheTTL: 0 })({ logger: helia.logger })
  restoreSdk = pointProviderSdkAt(served.urls)
})

afterAll(async () => {
  restoreSdk?.()
  await verifiedFetch?.stop()
  await served?.close()
  await rm(dir, { recursive: true, force: true })
})

const bytes = async (response: Response) => new Uint8Array(await response.arrayBuffer())

describe("an independent verifying client", () => {
  it("fetches a multi-block file, each block checked against its CID", async () => {
    const response = await verifiedFetch(`ipfs://${bigCid}`)
    expect(response.status).toBe(200)
    expect(await bytes(response)).toEqual(big)
  })

  it("fetches a file inside a folder by its path", async () => {
    const response = await verifiedFetch(`ipfs://${siteCid}/a/b.bin`)
    expect(response.status).toBe(200)
    expect(await bytes(response)).toEqual(nested)
  })

  it("fetches a byte range", async () => {
    const response = await verifiedFetch(`ipfs://${bigCid}`, { headers: { range: "bytes=1048570-1048600" } })
    expect(response.status).toBe(206)
    expect(await bytes(response)).toEqual(big.slice(1_048_570, 1_048_601))
  })

  it("resolves an IPNS name through the signed record the routing API serves", async () => {
    const key = await lighthouse.generateKey(apiKey)
    await lighthouse.publishRecord(siteCid, key.data.ipnsName, apiKey)
    const response = await verifiedFetch(`ipns://${key.data.ipnsId}/a/b.bin`)
    expect(response.status).toBe(200)
    expect(await bytes(response)).toEqual(nested)
  })

  it("publishes a name of its own with Helia's routing client (PUT), then resolves it", async () => {
    const key = await generateKeyPair("Ed25519")
    const record = await createIPNSRecord(key, `/ipfs/${bigCid}`, 1n, 60 * 60 * 1000)
    await routing.putIPNS(key.publicKey.toCID(), marshalIPNSRecord(record))
    const response = await verifiedFetch(`ipns://${key.publicKey.toCID().toString(base36)}`)
    expect(response.status).toBe(200)
    expect(await bytes(response)).toEqual(big)
  })
})

describe("the provider's SDK over HTTP", () => {
  it("signs in for an API key, uploads, lists uploads and manages IPNS keys", async () => {
    // The API key's message comes from the API host (the SDK leaves fetching it to the caller).
    const message = await (
      await fetch(`${served.urls.api}/api/auth/get_auth_message?publicKey=${owner.address}`)
    ).json()
    const signature = await owner.signMessage({ message: message as string })
    const { data: created } = await lighthouse.getApiKey(owner.address, signature)
    const key = created.apiKey
    // Its key-node sign-in message comes from the served encryption host, through kavach.
    const { data: auth } = await lighthouse.getAuthMessage(owner.address)
    expect(auth.message).toMatch(/^Please sign this message to prove you are owner of this account: /)
    const path = join(dir, "hello.txt")
    await writeFile(path, "hello world\n")
    const { data: uploaded } = await lighthouse.upload(path, key, 0)
    expect(uploaded).toEqual({ Name: "hello.txt", Hash: "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o", Size: "20" })
    const { data: list } = await lighthouse.getUploads(key)
    expect(list.fileList.map((file) => file.cid)).toContain("QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
    const ipns = await lighthouse.generateKey(key)
    await lighthouse.publishRecord(uploaded.Hash, ipns.data.ipnsName, key)
    const { data: keys } = await lighthouse.getAllKeys(key)
    expect(keys.find((entry) => entry.ipnsName === ipns.data.ipnsName)?.cid).toBe(uploaded.Hash)
    const routed = await fetch(`${served.urls.gateway}/routing/v1/ipns/${ipns.data.ipnsId}`, {
      headers: { accept: "application/vnd.ipfs.ipns-record" }
    })
    expect(routed.status).toBe(200)
    await lighthouse.removeKey(ipns.data.ipnsName, key)
    expect((await lighthouse.getAllKeys(key)).data.map((entry) => entry.ipnsName)).not.toContain(ipns.data.ipnsName)
  })
})

describe("load", () => {
  it("32 clients upload and download at once for ~5 s: nothing lost, every byte intact", async () => {
    const until = Date.now() + 5_000
    const failures: Array<string> = []
    let roundTrips = 0
    const client = async (id: number) => {
      for (let round = 0; Date.now() < until; round++) {
        const content = bytesOf(64 * 1024 + id * 97 + round, id * 1_000 + round + 7)
        const response = await addFile(apiKey, `load-${id}-${round}.bin`, new Blob([content as BlobPart]), {
          node: served.urls.node,
          query: "cid-version=1"
        })
        if (response.status !== 200) {
          failures.push(`upload ${id}/${round}: ${response.status}`)
          continue
        }
        const { Hash } = (await response.json()) as { Hash: string }
        const back = await bytes(await fetch(`${served.urls.gateway}/ipfs/${Hash}`))
        if (back.byteLength !== content.byteLength || !back.every((byte, i) => byte === content[i])) {
          failures.push(`download ${id}/${round}: bytes differ`)
        }
        roundTrips += 1
      }
    }
    await Promise.all(Array.from({ length: 32 }, (_, id) => client(id)))
    expect(failures).toEqual([])
    expect(roundTrips).toBeGreaterThanOrEqual(32)
    // Every upload is listed, and the server still answers.
    const listed = await fetch(`${served.urls.api}/api/user/files_uploaded?lastKey=null`, {
      headers: { Authorization: `Bearer ${apiKey}` }
    })
    expect(((await listed.json()) as { totalFiles: number }).totalFiles).toBeGreaterThanOrEqual(roundTrips + 2)
  })
})
