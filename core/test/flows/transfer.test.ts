/**
 * End-to-end transfer flows against the whole mock network, as an application would run them:
 * a folder up and back down through the gateway; several files encrypted with one JWT, each key
 * recovered from the key nodes and each file downloaded and decrypted; the uploads list walked
 * across all its pages; and a full quota refusing an upload with a typed error.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Stream } from "effect"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import type { UploadRejected } from "../../src/Errors.ts"
import * as Files from "../../src/Files.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, aliceSigner, bob, bobSigner, makeHarness } from "../upload/harness.ts"

const { network, layer } = makeHarness({ pageSize: 3, captureBodies: false })
const { Input } = Upload

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "flow-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const bytesOf = (seed: number, size: number) => {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * seed + 13) & 0xff
  return out
}

describe("transfer flows", () => {
  it.effect("a folder goes up as one CID and every file comes back through the gateway", () =>
    Effect.gen(function* () {
      const { apiKey } = network.seedAccount(alice.address)
      const dir = yield* tempDir
      const site = nodePath.join(dir, "site")
      const files: Record<string, Uint8Array> = {
        "index.html": new TextEncoder().encode("<h1>hello</h1>\n"),
        "img/logo.png": bytesOf(7, 600 * 1024),
        "img/icons/x.svg": new TextEncoder().encode("<svg/>"),
        ".well-known/security.txt": new TextEncoder().encode("Contact: me\n")
      }
      yield* Effect.promise(async () => {
        for (const [path, content] of Object.entries(files)) {
          await fs.mkdir(nodePath.dirname(nodePath.join(site, path)), { recursive: true })
          await fs.writeFile(nodePath.join(site, path), content)
        }
      })
      const upload = yield* Upload.Upload
      const progress: Array<number> = []
      const root = yield* upload.folder(Input.directory(site), {
        apiKey,
        onProgress: (p) => void progress.push(p.bytesSent)
      })
      assert.strictEqual(root.Name, "site")
      assert.isTrue(progress.length > 2)

      const download = yield* Download.Download
      for (const [path, content] of Object.entries(files)) {
        assert.deepStrictEqual(yield* download.bytes(root.Hash, { path }), content, path)
      }
      // Into files, too, as a user would mirror the folder.
      const mirror = nodePath.join(dir, "mirror")
      yield* Effect.promise(() => fs.mkdir(mirror))
      yield* download.toFile(root.Hash, nodePath.join(mirror, "logo.png"), { path: "img/logo.png" })
      assert.deepStrictEqual(
        new Uint8Array(yield* Effect.promise(() => fs.readFile(nodePath.join(mirror, "logo.png")))),
        files["img/logo.png"]
      )
      // The uploads list has the folder as one record.
      const records = yield* Stream.runCollect((yield* Files.Files).uploads(apiKey))
      assert.deepStrictEqual(
        records.map((r) => [r.fileName, r.cid]),
        [["site", root.Hash]]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("several files encrypted with one JWT; each key recovered and each file decrypted, shared with bob", () =>
    Effect.gen(function* () {
      const { apiKey } = network.seedAccount(alice.address)
      const auth = yield* Auth.Auth
      const token = yield* auth.token(aliceSigner)
      const plain = [
        Input.bytes(bytesOf(3, 256 * 1024 + 1), "big.bin"),
        Input.text("short note\n", "note.txt"),
        new File([bytesOf(5, 1000)], "picture.jpg", { type: "image/jpeg" })
      ]
      const upload = yield* Upload.Upload
      const entries = yield* upload.encryptedFiles(plain, {
        apiKey,
        address: alice.address,
        token,
        shareTo: [bob.address]
      })
      assert.deepStrictEqual(
        entries.map((e) => e.Name),
        ["big.bin", "note.txt", "picture.jpg"]
      )

      const shards = yield* KeyShards.KeyShards
      const download = yield* Download.Download
      const expected = [bytesOf(3, 256 * 1024 + 1), new TextEncoder().encode("short note\n"), bytesOf(5, 1000)]
      for (const [i, entry] of entries.entries()) {
        const key = yield* shards.fetchKey({ cid: entry.Hash, address: alice.address, token })
        assert.deepStrictEqual(yield* download.bytes(entry.Hash, { decrypt: { masterKey: key } }), expected[i])
        // Bob was given access as the shards were saved.
        assert.deepStrictEqual(yield* download.bytes(entry.Hash, { decrypt: { signer: bobSigner } }), expected[i])
        assert.isTrue(network.state.files.byCid(entry.Hash)!.encryption)
        assert.strictEqual(Redacted.value(key).length, 64)
      }
    }).pipe(Effect.provide(layer))
  )

  it.effect("the uploads stream walks every page", () =>
    Effect.gen(function* () {
      const { apiKey } = network.seedAccount(alice.address)
      const upload = yield* Upload.Upload
      const cids: Array<string> = []
      for (let i = 0; i < 10; i++) cids.push((yield* upload.text(`record ${i}`, { apiKey, name: `r${i}` })).Hash)
      const files = yield* Files.Files
      const all = yield* Stream.runCollect(files.uploads(apiKey))
      assert.deepStrictEqual(
        all.map((r) => r.cid),
        [...cids].reverse()
      )
      assert.strictEqual(new Set(all.map((r) => r.id)).size, 10)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a full quota refuses the upload with a typed error and stores nothing", () =>
    Effect.gen(function* () {
      const { apiKey } = network.seedAccount(alice.address, { dataLimit: 512 * 1024, dataUsed: 0 })
      const upload = yield* Upload.Upload
      const files = yield* Files.Files
      yield* upload.buffer(bytesOf(1, 400 * 1024), { apiKey, name: "first.bin" })
      const before = yield* files.usage(apiKey)
      assert.strictEqual(before.dataUsed, 400 * 1024)

      const refused = (yield* Effect.flip(
        upload.buffer(bytesOf(2, 200 * 1024), { apiKey, name: "second.bin" })
      )) as UploadRejected
      assert.strictEqual(refused._tag, "UploadRejected")
      assert.strictEqual(refused.status, 402)
      assert.isTrue(refused.reason.startsWith("Storage quota exceeded"))
      assert.deepStrictEqual(yield* files.usage(apiKey), before)
      assert.deepStrictEqual(
        (yield* Stream.runCollect(files.uploads(apiKey))).map((r) => r.fileName),
        ["first.bin"]
      )
      // The quote said so beforehand.
      const quote = yield* files.quote(apiKey, 200 * 1024)
      assert.isTrue(quote.dataUsed + quote.totalSize > quote.dataLimit)
    }).pipe(Effect.provide(layer))
  )
})
