/**
 * The provider's own client, `@lighthouse-web3/sdk` 0.4.7, unmodified, storing on Walrus through
 * the mock network with its built-in hosts: uploads routed to the Walrus upload node by
 * `storageType: "walrus"` (file, folder, text, buffer, CAR), the Walrus quota in `getBalance` and
 * `getQuote`, the uploads list filtered by `fileType`, `walrusBlobs`, `deleteFileWalrus`, and the
 * Walrus gateway serving what was stored.
 */
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { CarWriter } from "@ipld/car"
import lighthouse from "@lighthouse-web3/sdk"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { beforeEach, describe, expect, it } from "vitest"
import { walrusBlobId } from "../src/api/WalrusBlobs.ts"
import { sdkHarness } from "./support/sdk.ts"

const account = privateKeyToAccount(generatePrivateKey())
const sdk = sdkHarness(account, "lighthouse-sdk-walrus-")
const { network } = sdk
const walrus = { storageType: "walrus" }
const address = account.address.toLowerCase()

beforeEach(() => {
  network.setQuota(account.address, { walrusDataLimit: 1_000_000 })
})

describe("@lighthouse-web3/sdk storing on Walrus", () => {
  it("upload, uploadText and uploadBuffer go to the Walrus node and are charged to the Walrus quota", async () => {
    const path = join(sdk.dir, "walrus.txt")
    await writeFile(path, "stored on walrus\n")
    const file = await lighthouse.upload(path, sdk.apiKey, { cidVersion: 1, headers: walrus })
    const text = await lighthouse.uploadText("walrus text", sdk.apiKey, "note.txt", { cidVersion: 1, headers: walrus })
    const bytes = await lighthouse.uploadBuffer(new Uint8Array([1, 2, 3]), sdk.apiKey, {
      cidVersion: 1,
      headers: walrus
    })
    expect(file.data).toMatchObject({ Name: "walrus.txt", Size: "17" })
    expect(text.data).toMatchObject({ Name: "note.txt", Size: "11" })

    const { data: balance } = await lighthouse.getBalance(sdk.apiKey)
    expect(balance).toMatchObject({ dataUsed: 0, walrusDataLimit: 1_000_000, walrusDataUsed: 17 + 11 + 3 })
    const stored = network.state.files.of(address).map((f) => [f.cid, f.storageType])
    expect(stored).toEqual([file.data.Hash, text.data.Hash, bytes.data.Hash].reverse().map((cid) => [cid, "walrus"]))

    const { blobIds } = await lighthouse.walrusBlobs(file.data.Hash)
    expect(blobIds).toEqual([walrusBlobId(file.data.Hash)])

    const served = await fetch(`https://gateway-walrus.lighthouse.storage/ipfs/${file.data.Hash}`)
    expect(await served.text()).toBe("stored on walrus\n")
  })

  it("a folder: one blob per file; a CAR: its root", async () => {
    const folder = join(sdk.dir, "album")
    await mkdir(join(folder, "nested"), { recursive: true })
    await writeFile(join(folder, "a.txt"), "alpha\n")
    await writeFile(join(folder, "nested", "b.txt"), "beta\n")
    const { data } = await lighthouse.upload(folder, sdk.apiKey, { cidVersion: 1, headers: walrus })
    expect((await lighthouse.walrusBlobs(data.Hash)).blobIds).toHaveLength(2)

    const bytes = new TextEncoder().encode("one block")
    const root = CID.createV1(raw.code, await sha256.digest(bytes))
    const { writer, out } = CarWriter.create([root])
    const chunks: Array<Uint8Array> = []
    const collected = (async () => {
      for await (const chunk of out) chunks.push(chunk)
    })()
    await writer.put({ cid: root, bytes })
    await writer.close()
    await collected
    const carPath = join(sdk.dir, "one.car")
    await writeFile(carPath, Buffer.concat(chunks))
    const car = await lighthouse.uploadCAR(carPath, sdk.apiKey, { headers: walrus } as never)
    expect(car.data.Hash).toBe(root.toString())
    expect((await lighthouse.walrusBlobs(root.toString())).blobIds).toEqual([walrusBlobId(root.toString())])
  })

  it("getUploads filters by fileType; deleteFileWalrus frees the Walrus quota and the blobs", async () => {
    const onWalrus = await lighthouse.uploadText("on walrus", sdk.apiKey, "w.txt", { cidVersion: 1, headers: walrus })
    const onIpfs = await lighthouse.uploadText("on ipfs", sdk.apiKey, "i.txt")
    const listed = async (fileType: string) =>
      (await lighthouse.getUploads(sdk.apiKey, null, fileType)).data.fileList.map((f: { cid: string }) => f.cid)
    expect(await listed("walrus")).toEqual([onWalrus.data.Hash])
    expect(await listed("ipfs")).toEqual([onIpfs.data.Hash])
    expect(await listed("all")).toEqual([onIpfs.data.Hash, onWalrus.data.Hash])

    const [record] = (await lighthouse.getUploads(sdk.apiKey, null, "walrus")).data.fileList
    // An id that is not one of the caller's Walrus files: 404; nor does the IPFS route take a Walrus file.
    await expect(lighthouse.deleteFileWalrus(sdk.apiKey, "no-such-id")).rejects.toThrow(
      "Request failed with status code 404"
    )
    await expect(lighthouse.deleteFile(sdk.apiKey, record!.id)).rejects.toThrow("Request failed with status code 404")
    const ipfsRecord = (await lighthouse.getUploads(sdk.apiKey, null, "ipfs")).data.fileList[0]!
    await expect(lighthouse.deleteFileWalrus(sdk.apiKey, ipfsRecord.id)).rejects.toThrow(
      "Request failed with status code 404"
    )
    expect(await lighthouse.deleteFileWalrus(sdk.apiKey, record!.id)).toEqual({
      data: { message: "File deleted successfully." }
    })
    expect((await lighthouse.getBalance(sdk.apiKey)).data.walrusDataUsed).toBe(0)
    await expect(lighthouse.walrusBlobs(onWalrus.data.Hash)).rejects.toThrow("Request failed with status code 404")
    expect((await fetch(`https://gateway-walrus.lighthouse.storage/ipfs/${onWalrus.data.Hash}`)).status).toBe(404)
    expect(await listed("all")).toEqual([onIpfs.data.Hash])
  })

  it("past the Walrus quota the node refuses, whatever the IPFS quota says", async () => {
    network.setQuota(account.address, { walrusDataLimit: 4 })
    await expect(
      lighthouse.uploadText("more than four", sdk.apiKey, "big.txt", { cidVersion: 1, headers: walrus })
    ).rejects.toThrow(/Storage quota exceeded/)
    expect(network.state.files.of(address)).toEqual([])
  })

  it("getQuote reports the Walrus quota next to the IPFS one", async () => {
    network.setQuota(account.address, { walrusDataLimit: 5000, walrusDataUsed: 1200 })
    const path = join(sdk.dir, "quote.txt")
    await writeFile(path, "12345")
    const { data } = await lighthouse.getQuote(path, sdk.apiKey)
    expect(data).toMatchObject({ walrusDataLimit: 5000, walrusDataUsed: 1200, totalSize: 5 })
  })
})
