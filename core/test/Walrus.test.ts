/**
 * Walrus storage through the library, against the mock network: uploads with
 * `storageType: "walrus"` go to the Walrus upload node with `X-Storage-Type: walrus` and count
 * against the Walrus quota (usage and quote report it), blob ids are listed and schema-checked,
 * downloads come from the Walrus gateway, and deleting a Walrus file frees its quota; each failure
 * is the typed error with the provider's wording.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Download from "../src/Download.ts"
import type { HttpStatusError, InvalidCid, RequestFailed, UploadRejected } from "../src/Errors.ts"
import * as Files from "../src/Files.ts"
import * as Upload from "../src/Upload.ts"
import { alice, aliceSigner, makeHarness, text } from "./upload/harness.ts"

const { network, log, layer } = makeHarness()

const WALRUS_NODE = "https://upload-walrus.lighthouse.storage"
const WALRUS_GATEWAY = "https://gateway-walrus.lighthouse.storage"
const API = "https://api.lighthouse.storage"
const blobIdPattern = /^[A-Za-z0-9_-]{43}$/

const seed = (walrusDataLimit: number) => {
  const { apiKey } = network.seedAccount(alice.address, { apiKey: "walrus-key" })
  network.setQuota(alice.address, { walrusDataLimit })
  return apiKey
}

describe("Walrus storage", () => {
  it.effect("text and bytes go to the Walrus node; usage, quote and the uploads list report Walrus", () =>
    Effect.gen(function* () {
      const apiKey = seed(10_000)
      const upload = yield* Upload.Upload
      const files = yield* Files.Files
      const note = yield* upload.text("kept on walrus\n", { apiKey, name: "note.txt", storageType: "walrus" })
      const [request] = log
      assert.strictEqual(request!.url.origin, WALRUS_NODE)
      assert.strictEqual(request!.url.pathname, "/api/v0/add")
      assert.strictEqual(request!.headers["x-storage-type"], "walrus")
      yield* upload.buffer(new Uint8Array([1, 2, 3, 4]), { apiKey, storageType: "walrus" })
      // Without the option, IPFS as before: no storage header, the IPFS node.
      yield* upload.text("on ipfs\n", { apiKey, name: "ipfs.txt" })
      assert.strictEqual(log.at(-1)!.url.origin, "https://upload.lighthouse.storage")
      assert.strictEqual(log.at(-1)!.headers["x-storage-type"], undefined)

      const usage = yield* files.usage(apiKey)
      assert.deepStrictEqual([usage.walrusDataLimit, usage.walrusDataUsed, usage.dataUsed], [10_000, 15 + 4, 8])
      const quote = yield* files.quote(apiKey, 2048)
      assert.deepStrictEqual([quote.walrusDataLimit, quote.walrusDataUsed, quote.totalSize], [10_000, 19, 2048])

      const blobIds = yield* files.walrusBlobs(note.Hash)
      assert.strictEqual(blobIds.length, 1)
      assert.match(blobIds[0]!, blobIdPattern)
      assert.strictEqual(log.at(-1)!.url.href, `${API}/api/lighthouse/walrus_blobs?cid=${note.Hash}`)
      const listed = yield* files.uploadsPage(apiKey, { fileType: "walrus" })
      assert.deepStrictEqual(listed.fileList.map((f) => f.fileName).sort(), ["blob", "note.txt"])
    }).pipe(Effect.provide(layer))
  )

  it.effect("files and folders go to the Walrus node too; encrypted uploads stay on IPFS whatever they are given", () =>
    Effect.gen(function* () {
      const apiKey = seed(10_000)
      const upload = yield* Upload.Upload
      const bytes = (s: string) => new TextEncoder().encode(s)
      const file = yield* upload.file(Upload.Input.bytes(bytes("one\n"), "one.txt"), { apiKey, storageType: "walrus" })
      const folder = yield* upload.folder(
        Upload.Input.files([
          Upload.Input.bytes(bytes("a\n"), "site/a.txt"),
          Upload.Input.bytes(bytes("b\n"), "site/b.txt")
        ]),
        { apiKey, storageType: "walrus" }
      )
      assert.deepStrictEqual(
        log.map((r) => [r.url.origin, r.url.search, r.headers["x-storage-type"]]),
        [
          [
            WALRUS_NODE,
            "?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false",
            "walrus"
          ],
          [
            WALRUS_NODE,
            "?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false",
            "walrus"
          ]
        ]
      )
      assert.deepStrictEqual([file.Name, folder.Name], ["one.txt", "site"])
      // The schema has no `storageType` for encrypted uploads; one passed anyway is not sent.
      log.length = 0
      const options = { apiKey, signer: aliceSigner, storageType: "walrus" } as Upload.EncryptedNamedOptions
      yield* upload.encryptedText("sealed\n", options)
      const sent = log.find((r) => r.url.pathname === "/api/v0/add")!
      assert.strictEqual(sent.url.origin, "https://upload.lighthouse.storage")
      assert.strictEqual(sent.headers["x-storage-type"], undefined)
      assert.strictEqual(sent.headers.encryption, "true")
    }).pipe(Effect.provide(layer))
  )

  it.effect("downloads from the Walrus gateway; what is only on IPFS is not there", () =>
    Effect.gen(function* () {
      const apiKey = seed(10_000)
      const upload = yield* Upload.Upload
      const download = yield* Download.Download
      const onWalrus = yield* upload.text("walrus bytes\n", { apiKey, name: "w.txt", storageType: "walrus" })
      const onIpfs = yield* upload.text("ipfs bytes\n", { apiKey, name: "i.txt" })
      log.length = 0
      // Verified by default: the Walrus gateway's trustless answer, checked block by block.
      assert.strictEqual(text(yield* download.bytes(onWalrus.Hash, { storageType: "walrus" })), "walrus bytes\n")
      assert.strictEqual(log[0]!.method, "GET")
      assert.strictEqual(log[0]!.url.href, `${WALRUS_GATEWAY}/ipfs/${onWalrus.Hash}?format=car&dag-scope=entity`)
      // Unverified, the content as a browser asks for it.
      log.length = 0
      const plain = yield* download.bytes(onWalrus.Hash, { storageType: "walrus", verification: "off" })
      assert.strictEqual(text(plain), "walrus bytes\n")
      assert.strictEqual(log[0]!.method, "GET")
      assert.strictEqual(log[0]!.url.href, `${WALRUS_GATEWAY}/ipfs/${onWalrus.Hash}`)
      const missing = (yield* Effect.flip(download.bytes(onIpfs.Hash, { storageType: "walrus" }))) as HttpStatusError
      assert.strictEqual(missing.message, "HTTP error! status 404")
    }).pipe(Effect.provide(layer))
  )

  it.effect("deleteFileWalrus frees the Walrus quota and the blobs; unknown ids and bad CIDs are typed errors", () =>
    Effect.gen(function* () {
      const apiKey = seed(10_000)
      const upload = yield* Upload.Upload
      const files = yield* Files.Files
      const entry = yield* upload.text("short-lived\n", { apiKey, name: "tmp.txt", storageType: "walrus" })
      const [record] = (yield* files.uploadsPage(apiKey, { fileType: "walrus" })).fileList
      log.length = 0
      assert.deepStrictEqual(yield* files.deleteFileWalrus(apiKey, record!.id), {
        message: "File deleted successfully."
      })
      assert.strictEqual(log[0]!.method, "DELETE")
      assert.strictEqual(log[0]!.url.href, `${API}/api/user/delete_file_walrus?id=${record!.id}`)
      assert.strictEqual(log[0]!.headers.authorization, "Bearer walrus-key")
      assert.strictEqual((yield* files.usage(apiKey)).walrusDataUsed, 0)

      const gone = (yield* Effect.flip(files.walrusBlobs(entry.Hash))) as RequestFailed
      assert.strictEqual(gone.message, "Request failed with status code 404")
      const unknown = (yield* Effect.flip(files.deleteFileWalrus(apiKey, record!.id))) as RequestFailed
      assert.strictEqual(unknown.message, "Request failed with status code 404")
      const invalid = (yield* Effect.flip(files.walrusBlobs("not-a-cid"))) as InvalidCid
      assert.strictEqual(invalid.message, "Invalid CID")
    }).pipe(Effect.provide(layer))
  )

  it.effect("past the Walrus quota the node refuses the upload", () =>
    Effect.gen(function* () {
      const apiKey = seed(3)
      const upload = yield* Upload.Upload
      const error = (yield* Effect.flip(
        upload.text("too big for walrus\n", { apiKey, storageType: "walrus" })
      )) as UploadRejected
      assert.strictEqual(error._tag, "UploadRejected")
      assert.match(error.message, /^Storage quota exceeded: 0 of 3 bytes used/)
    }).pipe(Effect.provide(layer))
  )
})
