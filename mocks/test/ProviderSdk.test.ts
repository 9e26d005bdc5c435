/**
 * The provider's own published client, `@lighthouse-web3/sdk` 0.4.7, unmodified, against the mock
 * network through msw `setupServer`, with its built-in production hosts: uploads (the Node path's
 * raw `https` streaming, text, buffer, folder, CAR), account and metadata calls, deals, IPNS and
 * the API key flow signed with a viem account.
 */
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { CarWriter } from "@ipld/car"
import lighthouse from "@lighthouse-web3/sdk"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { ContentStore } from "../src/storage/ContentStore.ts"
import { addAll } from "../src/storage/Unixfs.ts"
import { sdkHarness } from "./support/sdk.ts"

const account = privateKeyToAccount(generatePrivateKey())
const sdk = sdkHarness(account, "lighthouse-sdk-")
const { network } = sdk

const encoder = new TextEncoder()

const rawCid = async (bytes: Uint8Array) => CID.createV1(raw.code, await sha256.digest(bytes)).toString()

describe("@lighthouse-web3/sdk against the mock network", () => {
  it("upload streams a file from disk (Node https path) and gets kubo's CIDs", async () => {
    const path = join(sdk.dir, "hello.txt")
    await writeFile(path, "hello world\n")

    const v0 = await lighthouse.upload(path, sdk.apiKey, 0)
    expect(v0.data).toEqual({ Name: "hello.txt", Hash: "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o", Size: "20" })

    // The SDK's default is CID v1: raw leaves, so a one-chunk file is a raw block.
    const v1 = await lighthouse.upload(path, sdk.apiKey)
    expect(v1.data).toEqual({ Name: "hello.txt", Hash: await rawCid(encoder.encode("hello world\n")), Size: "12" })
    expect(v1.data.Hash).toBe("bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4")
  })

  it("upload of a folder answers one entry: the root directory, named after the folder", async () => {
    const folder = join(sdk.dir, "testImages")
    await mkdir(join(folder, "nested"), { recursive: true })
    await writeFile(join(folder, "a.txt"), "alpha\n")
    await writeFile(join(folder, "nested", "b.json"), '{"b":1}\n')
    await writeFile(join(folder, "nested", "c.bin"), new Uint8Array(300_000).fill(7))

    const { data } = await lighthouse.upload(folder, sdk.apiKey, 0)

    const expected = []
    const store = new ContentStore().staging()
    for await (const entry of addAll(
      [
        { path: "testImages/a.txt", content: encoder.encode("alpha\n") },
        { path: "testImages/nested/b.json", content: encoder.encode('{"b":1}\n') },
        { path: "testImages/nested/c.bin", content: new Uint8Array(300_000).fill(7) }
      ],
      store,
      { cidVersion: 0 }
    ))
      expected.push(entry)
    const root = expected.at(-1)!
    expect(root.path).toBe("testImages")
    expect(data).toEqual({ Name: "testImages", Hash: root.cid.toString(), Size: root.size.toString() })

    // The folder is browsable through the gateway by path.
    const file = await fetch(`https://gateway.lighthouse.storage/ipfs/${data.Hash}/nested/b.json`)
    expect(file.headers.get("content-type")).toBe("application/json")
    expect(await file.text()).toBe('{"b":1}\n')
    const info = await lighthouse.getFileInfo(data.Hash)
    expect(info.data).toMatchObject({
      fileName: "testImages",
      fileSizeInBytes: String(6 + 8 + 300_000),
      mimeType: null
    })
  })

  it("uploadText and uploadBuffer", async () => {
    const text = await lighthouse.uploadText("some text", sdk.apiKey, "sample")
    expect(text.data).toEqual({ Name: "sample", Hash: await rawCid(encoder.encode("some text")), Size: "9" })

    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i % 251)
    const buffer = await lighthouse.uploadBuffer(bytes, sdk.apiKey)
    // FormData names an unnamed Blob part "blob".
    expect(buffer.data).toEqual({ Name: "blob", Hash: await rawCid(bytes), Size: "1000" })

    const gateway = await fetch(`https://gateway.lighthouse.storage/api/v0/cat/${buffer.data.Hash}`, { method: "POST" })
    expect(new Uint8Array(await gateway.arrayBuffer())).toEqual(bytes)
  })

  it("uploadCAR imports the blocks and answers the root", async () => {
    const store = new ContentStore()
    const staging = store.staging()
    let root: CID | undefined
    for await (const entry of addAll([{ path: "big.bin", content: new Uint8Array(600_000).fill(1) }], staging, {
      cidVersion: 1
    }))
      root = entry.cid
    staging.commit()
    const { writer, out } = CarWriter.create([root!])
    const chunks: Array<Uint8Array> = []
    const reading = (async () => {
      for await (const chunk of out) chunks.push(chunk)
    })()
    for await (const block of store.walk(root!)) await writer.put(block)
    await writer.close()
    await reading
    const path = join(sdk.dir, "big.car")
    await writeFile(path, Buffer.concat(chunks))

    const { data } = await lighthouse.uploadCAR(path, sdk.apiKey)
    expect(data).toMatchObject({ Hash: root!.toString(), Name: "big.car", Root: { Cid: { "/": root!.toString() } } })
    const back = await fetch(`https://gateway.lighthouse.storage/api/v0/cat/${root}`, { method: "POST" })
    expect((await back.arrayBuffer()).byteLength).toBe(600_000)
  })

  it("getBalance, getUploads and getFileInfo follow what was uploaded", async () => {
    network.setQuota(account.address, { dataLimit: 5_000_000 })
    const first = await lighthouse.uploadText("first", sdk.apiKey, "first.txt")
    const second = await lighthouse.uploadText("second!", sdk.apiKey, "second.txt")

    const balance = await lighthouse.getBalance(sdk.apiKey)
    expect(balance.data).toMatchObject({ dataLimit: 5_000_000, dataUsed: 5 + 7 })

    const uploads = await lighthouse.getUploads(sdk.apiKey)
    expect(uploads.data.totalFiles).toBe(2)
    expect(uploads.data.fileList.map((file: { cid: string }) => file.cid)).toEqual([second.data.Hash, first.data.Hash])
    expect(uploads.data.fileList[0]).toMatchObject({
      publicKey: account.address.toLowerCase(),
      fileName: "second.txt",
      fileSizeInBytes: "7",
      encryption: false,
      mimeType: "text/plain"
    })

    const info = await lighthouse.getFileInfo(first.data.Hash)
    expect(info.data).toEqual({
      fileSizeInBytes: "5",
      cid: first.data.Hash,
      encryption: false,
      fileName: "first.txt",
      mimeType: "text/plain",
      txHash: ""
    })
  })

  it("deleteFile removes an upload and frees its bytes", async () => {
    await lighthouse.uploadText("to delete", sdk.apiKey, "gone.txt")
    const { data } = await lighthouse.getUploads(sdk.apiKey)
    const id = data.fileList[0]!.id
    const deleted = await lighthouse.deleteFile(sdk.apiKey, id)
    expect(deleted.data).toEqual({ message: "File deleted successfully." })
    expect((await lighthouse.getUploads(sdk.apiKey)).data.totalFiles).toBe(0)
    expect((await lighthouse.getBalance(sdk.apiKey)).data.dataUsed).toBe(0)
    await expect(lighthouse.deleteFile(sdk.apiKey, id)).rejects.toThrow("Request failed with status code 404")
  })

  it("dealStatus is empty until a deal is simulated, then lists DealID and Provider", async () => {
    const { data } = await lighthouse.uploadText("deal me", sdk.apiKey, "deal.txt")
    expect((await lighthouse.dealStatus(data.Hash)).data).toEqual([])
    await network.simulateDeal(data.Hash, { copies: 2 })
    // The SDK's declared element type predates DealID/Provider; its tests and CLI read those keys.
    const deals = (await lighthouse.dealStatus(data.Hash)).data as unknown as Array<{ Provider: string }>
    expect(deals).toHaveLength(2)
    expect(deals[0]).toMatchObject({ DealID: expect.any(Number), Provider: expect.stringMatching(/^f0\d+$/) })
    expect(deals[0]!.Provider).not.toBe(deals[1]!.Provider)
  })

  it("IPNS: generateKey, publishRecord, getAllKeys, removeKey", async () => {
    const { data: key } = await lighthouse.generateKey(sdk.apiKey)
    expect(key.ipnsName).toMatch(/^[0-9a-f]{32}$/)
    expect(key.ipnsId).toMatch(/^k51[0-9a-z]+$/)

    const { data: file } = await lighthouse.uploadText("ipns target", sdk.apiKey, "target.txt")
    const published = await lighthouse.publishRecord(file.Hash, key.ipnsName, sdk.apiKey)
    expect(published.data).toEqual({ Name: key.ipnsId, Value: `/ipfs/${file.Hash}` })
    const resolved = await fetch(`https://gateway.lighthouse.storage/ipns/${key.ipnsId}`)
    expect(await resolved.text()).toBe("ipns target")

    const { data: other } = await lighthouse.generateKey(sdk.apiKey)
    const all = await lighthouse.getAllKeys(sdk.apiKey)
    expect(all.data).toHaveLength(2)
    expect(all.data[0]).toMatchObject({
      ipnsName: key.ipnsName,
      ipnsId: key.ipnsId,
      publicKey: account.address.toLowerCase(),
      cid: file.Hash
    })
    expect(all.data[1]).toMatchObject({ ipnsName: other.ipnsName, cid: null })

    const removed = await lighthouse.removeKey(key.ipnsName, sdk.apiKey)
    expect(removed.data).toEqual({ Keys: [{ Name: key.ipnsName, Id: key.ipnsId }] })
    expect((await lighthouse.getAllKeys(sdk.apiKey)).data).toHaveLength(1)
    await expect(lighthouse.removeKey(key.ipnsName, sdk.apiKey)).rejects.toThrow("Request failed with status code 500")
    await expect(lighthouse.publishRecord(file.Hash, "nope", sdk.apiKey)).rejects.toThrow(
      "Request failed with status code 500"
    )
  })

  it("getApiKey: the API's message signed with a viem account gives a working key", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const message = await (
      await fetch(`https://api.lighthouse.storage/api/auth/get_auth_message?publicKey=${wallet.address}`)
    ).json()
    expect(message).toMatch(/^Please prove you are the owner/)
    const { data } = await lighthouse.getApiKey(wallet.address, await wallet.signMessage({ message }))
    expect(data.apiKey).toEqual(expect.any(String))
    const balance = await lighthouse.getBalance(data.apiKey)
    expect(balance.data).toMatchObject({ dataLimit: 1024 * 1024 * 1024, dataUsed: 0 })
  })

  it("a bad API key is refused with 401 everywhere", async () => {
    const path = join(sdk.dir, "refused.txt")
    await writeFile(path, "nope")
    await expect(lighthouse.upload(path, "not-a-key")).rejects.toThrow("Error: Request failed with status code 401")
    await expect(lighthouse.uploadText("x", "not-a-key")).rejects.toThrow("Error: Authentication failed")
    await expect(lighthouse.uploadBuffer(new Uint8Array([1]), "not-a-key")).rejects.toThrow(
      "Error: Authentication failed"
    )
    await expect(lighthouse.getBalance("not-a-key")).rejects.toThrow("Request failed with status code 401")
    await expect(lighthouse.getUploads("not-a-key")).rejects.toThrow("Request failed with status code 401")
    await expect(lighthouse.generateKey("not-a-key")).rejects.toThrow("Request failed with status code 401")
    expect(network.state.files.of(account.address.toLowerCase())).toHaveLength(0)
  })
})
