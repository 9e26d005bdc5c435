/**
 * The composed network end to end with the provider's SDK, unmodified: `uploadEncrypted` sends the
 * cipher text to the upload node (`Encryption: true`, JSON-array answer) and saves the key shards
 * on the 5 key nodes; `fetchEncryptionKey` recovers the key from 3 nodes, and `decryptFile` fetches
 * the cipher text from the gateway and decrypts it back to the original bytes. Also
 * `textUploadEncrypted`. Kavach's 1 s pauses run on faked `setTimeout`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import lighthouse from "@lighthouse-web3/sdk"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { startMockNetwork } from "../src/node.ts"

const running = startMockNetwork({ onUnhandledFrame: "error" })
const { network } = running
const wallet = privateKeyToAccount(generatePrivateKey())
let apiKey: string
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lighthouse-sdk-enc-"))
})
afterAll(async () => {
  running.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => {
  network.reset()
  apiKey = network.seedAccount(wallet.address).apiKey
  vi.useFakeTimers({ toFake: ["setTimeout"] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** Awaits `promise` while moving faked time on a second at a time (kavach sleeps between nodes). */
const settle = async <A>(promise: Promise<A>): Promise<A> => {
  let done = false
  const tracked = promise.finally(() => {
    done = true
  })
  tracked.catch(() => undefined)
  while (!done) {
    await vi.advanceTimersByTimeAsync(1000)
    // Real time for real I/O (setInterval is not faked).
    await new Promise<void>((resolve) => {
      const id = setInterval(() => {
        clearInterval(id)
        resolve()
      }, 5)
    })
  }
  return tracked
}

/** A fresh signature of the key nodes' auth message, as the SDK's docs do it. */
const signedMessage = async () => {
  const { data } = await lighthouse.getAuthMessage(wallet.address)
  return wallet.signMessage({ message: data.message as string })
}

describe("@lighthouse-web3/sdk encrypted uploads across the composed network", () => {
  it("uploadEncrypted, then fetchEncryptionKey and decryptFile give the file back", async () => {
    const plain = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 13) % 256)
    const path = join(dir, "secret.bin")
    await writeFile(path, plain)

    const uploaded = await settle(lighthouse.uploadEncrypted(path, apiKey, wallet.address, await signedMessage()))
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
      lighthouse.textUploadEncrypted("a secret note", apiKey, wallet.address, await signedMessage(), "note")
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
    const path = join(dir, "other.txt")
    await writeFile(path, "other")
    await expect(
      settle(lighthouse.uploadEncrypted(path, "not-a-key", wallet.address, await signedMessage()))
    ).rejects.toThrow("Error: Authentication failed")
    for (const node of network.state.keyNodes.nodes) expect(node.files.size).toBe(0)

    const uploaded = await settle(lighthouse.uploadEncrypted(path, apiKey, wallet.address, await signedMessage()))
    const cid = uploaded.data[0]!.Hash
    const { data: key } = await settle(lighthouse.fetchEncryptionKey(cid, wallet.address, await signedMessage()))
    network.faults.status({ host: "gateway" }, 502)
    await expect(settle(lighthouse.decryptFile(cid, key.key as string))).rejects.toThrow("HTTP error! status: 502")
  })
})
