/**
 * Interoperability with the provider's own client, `@lighthouse-web3/sdk` 0.4.7 (unmodified), on
 * the same mock network: files this library uploads encrypted decrypt with the SDK's
 * `fetchEncryptionKey` + `decryptFile`; files the SDK uploads encrypted (`uploadEncrypted`)
 * decrypt here; a folder gets the same CID from both. The SDK's key-node calls sleep 1 s between
 * nodes in real time, so these tests run on the live clock.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import lighthouse from "@lighthouse-web3/sdk"
import { Effect } from "effect"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, aliceSigner, makeHarness } from "../upload/harness.ts"

const { network, layer } = makeHarness({ captureBodies: false })
const { Input } = Upload

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "interop-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const content = (size: number) => {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * 7 + (i >> 10)) & 0xff
  return out
}

/** What the SDK's users pass as `signedMessage`: a signature of the key nodes' auth message. */
const sdkSignature = Effect.promise(async () => {
  const { data } = await lighthouse.getAuthMessage(alice.address)
  return alice.signMessage({ message: data.message as string })
})

describe("interop with @lighthouse-web3/sdk", () => {
  it.live(
    "this library encrypts and uploads; the SDK recovers the key and decrypts",
    () =>
      Effect.gen(function* () {
        const { apiKey } = network.seedAccount(alice.address)
        const auth = yield* Auth.Auth
        const token = yield* auth.token(aliceSigner)
        const plaintext = content(150 * 1024 + 3)
        const upload = yield* Upload.Upload
        const entry = yield* upload.encryptedFile(Input.bytes(plaintext, "ours.bin"), {
          apiKey,
          address: alice.address,
          token
        })
        const signature = yield* sdkSignature
        const { data } = yield* Effect.promise(() =>
          lighthouse.fetchEncryptionKey(entry.Hash, alice.address, signature)
        )
        const decrypted = yield* Effect.promise(() => lighthouse.decryptFile(entry.Hash, data.key as string))
        assert.deepStrictEqual(new Uint8Array(decrypted as ArrayBuffer), plaintext)
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live(
    "the SDK encrypts and uploads; this library recovers the key and decrypts, in memory and to a file",
    () =>
      Effect.gen(function* () {
        const { apiKey } = network.seedAccount(alice.address)
        const dir = yield* tempDir
        const source = nodePath.join(dir, "theirs.bin")
        const plaintext = content(200 * 1024 + 11)
        yield* Effect.promise(() => fs.writeFile(source, plaintext))
        const signature = yield* sdkSignature
        const uploaded = yield* Effect.promise(() =>
          lighthouse.uploadEncrypted(source, apiKey, alice.address, signature)
        )
        const cid = (uploaded.data as ReadonlyArray<{ Hash: string }>)[0]!.Hash

        const download = yield* Download.Download
        assert.deepStrictEqual(yield* download.bytes(cid, { decrypt: { signer: aliceSigner } }), plaintext)
        const target = nodePath.join(dir, "back.bin")
        yield* download.toFile(cid, target, { decrypt: { signer: aliceSigner } })
        assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), plaintext)
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live(
    "a folder gets the same CID from the SDK's upload and from this library",
    () =>
      Effect.gen(function* () {
        const { apiKey } = network.seedAccount(alice.address)
        const dir = yield* tempDir
        const folder = nodePath.join(dir, "album")
        yield* Effect.promise(async () => {
          await fs.mkdir(nodePath.join(folder, "2024"), { recursive: true })
          await fs.writeFile(nodePath.join(folder, "cover.jpg"), content(70_000))
          await fs.writeFile(nodePath.join(folder, "2024", "a.jpg"), content(300_000))
        })
        const theirs = yield* Effect.promise(() => lighthouse.upload(folder, apiKey))
        const upload = yield* Upload.Upload
        const ours = yield* upload.folder(Input.directory(folder), { apiKey })
        assert.deepStrictEqual(ours, theirs.data)
      }).pipe(Effect.provide(layer)),
    60_000
  )
})
