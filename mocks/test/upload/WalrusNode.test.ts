/**
 * The upload node and the gateway in their Walrus form, served on the provider's Walrus hosts:
 * the Walrus quota (not the IPFS one) decides and is charged, records carry storage type `walrus`,
 * every answered entry gets the blob ids of its files, and the Walrus gateway serves only what is
 * stored on Walrus.
 */
import { setupServer } from "msw/node"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Accounts } from "../../src/api/Accounts.ts"
import { Files } from "../../src/api/Files.ts"
import { IpnsKeys } from "../../src/api/Ipns.ts"
import { WalrusBlobs, walrusBlobId } from "../../src/api/WalrusBlobs.ts"
import { makeFaults } from "../../src/faults/index.ts"
import { gatewayHandlers } from "../../src/gateway/GatewayHost.ts"
import { PublishedRecords } from "../../src/ipns/PublishedRecords.ts"
import { ContentStore } from "../../src/storage/ContentStore.ts"
import { uploadNodeHandlers } from "../../src/upload/UploadNode.ts"
import { addFiles } from "../support/upload.ts"

const WALRUS_NODE = "https://upload-walrus.lighthouse.storage"
const WALRUS_GATEWAY = "https://gateway-walrus.lighthouse.storage"
const IPFS_NODE = "https://upload.lighthouse.storage"

const clock = () => 1_700_000_000_000
const accounts = new Accounts({ clock })
const files = new Files(clock)
const content = new ContentStore()
const walrus = new WalrusBlobs()
const faults = makeFaults()

const server = setupServer(
  ...uploadNodeHandlers({ host: WALRUS_NODE, accounts, files, content, faults, walrus }),
  ...uploadNodeHandlers({ host: IPFS_NODE, accounts, files, content, faults }),
  ...gatewayHandlers({
    host: WALRUS_GATEWAY,
    content,
    files,
    ipns: new IpnsKeys(clock),
    published: new PublishedRecords(),
    faults,
    clock,
    holds: (cid) => walrus.holds(cid.toString())
  })
)
beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
afterAll(() => server.close())

// A new owner per test: its own quotas and records.
let address = ""
let apiKey = ""
beforeEach(() => {
  const owner = privateKeyToAccount(generatePrivateKey())
  address = owner.address.toLowerCase()
  files.clear()
  walrus.reset()
  apiKey = accounts.addApiKey(owner.address)
  accounts.setQuota(owner.address, { dataLimit: 100, walrusDataLimit: 10_000 })
})

const encoder = new TextEncoder()
const add = (named: ReadonlyArray<readonly [string, string]>, node = WALRUS_NODE, query = "cid-version=1") =>
  addFiles(
    apiKey,
    named.map(([name, text]) => [name, new Blob([encoder.encode(text)])]),
    { node, query, headers: { "X-Storage-Type": "walrus" } }
  )

describe("the Walrus upload node", () => {
  it("charges the Walrus quota, records storage type walrus and the file's blob id", async () => {
    const answer = await add([["hello.txt", "hello walrus"]])
    expect(answer.status).toBe(200)
    const entry = await answer.json()
    expect(entry).toMatchObject({ Name: "hello.txt", Size: "12" })
    const account = accounts.get(address)!
    expect([account.walrusDataUsed, account.dataUsed]).toEqual([12, 0])
    expect(files.of(address).map((f) => [f.cid, f.storageType])).toEqual([[entry.Hash, "walrus"]])
    expect(walrus.blobIdsOf(entry.Hash)).toEqual([walrusBlobId(entry.Hash)])
  })

  it("a folder: one blob per file, in upload order; the same bytes give the same blob ids", async () => {
    const folder = [
      ["docs/a.txt", "alpha"],
      ["docs/sub/b.txt", "beta"]
    ] as const
    const entry = await (await add(folder)).json()
    expect(entry.Name).toBe("docs")
    const blobs = walrus.blobIdsOf(entry.Hash)
    expect(blobs).toHaveLength(2)
    const again = await (await add(folder)).json()
    expect(again.Hash).toBe(entry.Hash)
    expect(walrus.blobIdsOf(again.Hash)).toEqual(blobs)
    // A file of the folder, asked for by its own CID, is held too.
    const single = await (await add([["a.txt", "alpha"]])).json()
    expect(blobs).toContain(walrusBlobId(single.Hash))
  })

  it("refuses past the Walrus quota with 402, whatever the IPFS quota, and keeps nothing", async () => {
    accounts.setQuota(address, { dataLimit: 1_000_000, walrusDataLimit: 4 })
    const refused = await add([["big.txt", "more than four bytes"]])
    expect(refused.status).toBe(402)
    expect((await refused.json()).error).toBe(
      "Storage quota exceeded: 0 of 4 bytes used, this upload needs more than the 4 left"
    )
    expect(files.of(address)).toEqual([])
    expect(accounts.get(address)!.walrusDataUsed).toBe(0)
  })

  it("the IPFS node still charges the IPFS quota and records no blobs, even with the Walrus header", async () => {
    const entry = await (await add([["x.txt", "ipfs"]], IPFS_NODE)).json()
    expect(accounts.get(address)!.dataUsed).toBe(4)
    expect(accounts.get(address)!.walrusDataUsed).toBe(0)
    expect(walrus.blobIdsOf(entry.Hash)).toBeUndefined()
  })

  it("without a valid key: 401 and nothing stored", async () => {
    const answer = await fetch(`${WALRUS_NODE}/api/v0/add`, { method: "POST", headers: { Authorization: "Bearer x" } })
    expect(answer.status).toBe(401)
    expect(await answer.json()).toEqual({ error: "Authentication failed" })
  })
})

describe("the Walrus gateway", () => {
  it("serves content stored on Walrus, and a 404 for content stored only on IPFS", async () => {
    const onWalrus = await (await add([["w.txt", "on walrus"]])).json()
    const onIpfs = await (await add([["i.txt", "only on ipfs"]], IPFS_NODE)).json()
    const served = await fetch(`${WALRUS_GATEWAY}/ipfs/${onWalrus.Hash}`)
    expect(served.status).toBe(200)
    expect(await served.text()).toBe("on walrus")
    const refused = await fetch(`${WALRUS_GATEWAY}/ipfs/${onIpfs.Hash}`)
    expect(refused.status).toBe(404)
    expect(await refused.json()).toEqual({ error: `${onIpfs.Hash} is not stored on Walrus` })
    const cat = await fetch(`${WALRUS_GATEWAY}/api/v0/cat/${onWalrus.Hash}`, { method: "POST" })
    expect(await cat.text()).toBe("on walrus")
  })

  it("a forgotten upload is no longer served", async () => {
    const entry = await (await add([["gone.txt", "soon gone"]])).json()
    walrus.forget(entry.Hash)
    expect((await fetch(`${WALRUS_GATEWAY}/ipfs/${entry.Hash}`)).status).toBe(404)
  })
})
