/**
 * The composed network end to end with the provider's SDK, unmodified: `uploadEncrypted` sends the
 * cipher text to the upload node (`Encryption: true`, JSON-array answer) and saves the key shards
 * on the 5 key nodes; `fetchEncryptionKey` recovers the key from 3 nodes, and `decryptFile` fetches
 * the cipher text from the gateway and decrypts it back to the original bytes. Also
 * `textUploadEncrypted`. Kavach's 1 s pauses run on faked `setTimeout`.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import lighthouse from "@lighthouse-web3/sdk"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { settle } from "./support/keyNodes.ts"
import { sdkHarness } from "./support/sdk.ts"

const wallet = privateKeyToAccount(generatePrivateKey())
const sdk = sdkHarness(wallet, "lighthouse-sdk-enc-")
const { network } = sdk
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout"] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** A fresh signature of the key nodes' auth message, as the SDK's docs do it. */
const signedMessage = async () => {
  const { data } = await lighthouse.getAuthMessage(wallet.address)
  return wallet.signMessage({ message: data.message as string })
}

describe("@lighthouse-web3/sdk encrypted uploads across the composed network", () => {
  it("uploadEncrypted, then fetchEncryptionKey and decryptFile give the file back", async () => {
    const plain = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 13) % 256)
    const path = join(sdk.dir, "secret.bin")
    await writeFile(path, plain)

    const uploaded = await settle(lighthouse.uploadEncrypted(path, sdk.apiKey, wallet.address, await signedMessage()))
    expect(uploaded.data).toHaveLength(1)
    const [entry] = uploaded.data
    // Salt, IV and GCM tag add 44 bytes; the CID is of the cipher text, not of the file.
    expect(entry).toMatchObject({ Name: "secret.bin", Size: String(50_000 + 44) })
    expect(network.state.files.byCid(entry!.Hash)).toMatchObject({ encryption: true, fileSizeInBytes: "50044" })
    for (const node of network.state.keyNodes.nodes) expect(node.files.get(entry!.Hash)).toBeDefined()

    const { data: key } = await settle(
      lighthouse.fetchEncryptionKey(entry!.Hash, wallet.address, await signedMessage())
    )
    const decrypted = await settle(lighthouse.decryptFile(entry!.Hash, key.key as string))
    expect(new Uint8Array(decrypted as ArrayBuffer)).toEqual(plain)

    const info = await lighthouse.getFileInfo(entry!.Hash)
    expect(info.data).toMatchObject({ encryption: true, fileName: "secret.bin" })
  })

  it("textUploadEncrypted sends Mime-Type text/plain and decrypts back", async () => {
    const uploaded = await settle(
      lighthouse.textUploadEncrypted("a secret note", sdk.apiKey, wallet.address, await signedMessage(), "note")
    )
    const [entry] = uploaded.data as Array<{ Name: string; Hash: string }>
    expect(entry!.Name).toBe("note")
    expect(network.state.files.byCid(entry!.Hash)).toMatchObject({ mimeType: "text/plain", encryption: true })
    const { data: key } = await settle(
      lighthouse.fetchEncryptionKey(entry!.Hash, wallet.address, await signedMessage())
    )
    const decrypted = await settle(lighthouse.decryptFile(entry!.Hash, key.key as string))
    expect(new TextDecoder().decode(decrypted as ArrayBuffer)).toBe("a secret note")
  })

  it("a failing gateway (502) fails decryptFile; a bad API key fails uploadEncrypted before any shard is saved", async () => {
    const path = join(sdk.dir, "other.txt")
    await writeFile(path, "other")
    await expect(
      settle(lighthouse.uploadEncrypted(path, "not-a-key", wallet.address, await signedMessage()))
    ).rejects.toThrow("Error: Authentication failed")
    for (const node of network.state.keyNodes.nodes) expect(node.files.size).toBe(0)

    const uploaded = await settle(lighthouse.uploadEncrypted(path, sdk.apiKey, wallet.address, await signedMessage()))
    const cid = uploaded.data[0]!.Hash
    const { data: key } = await settle(lighthouse.fetchEncryptionKey(cid, wallet.address, await signedMessage()))
    network.faults.status({ host: "gateway" }, 502)
    await expect(settle(lighthouse.decryptFile(cid, key.key as string))).rejects.toThrow("HTTP error! status: 502")
  })
})
