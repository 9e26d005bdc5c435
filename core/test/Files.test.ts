/**
 * `Files` on the wire, against the mock network: each call's method, URL, headers and decoded
 * answer, the uploads stream across pages, and each endpoint's own error wording.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import type {
  HttpStatusError,
  InvalidCid,
  InvalidUploadInput,
  ProofNotFound,
  RequestFailed,
  RequestTimedOut,
  TransportFailure
} from "../src/Errors.ts"
import * as Files from "../src/Files.ts"
import * as Upload from "../src/Upload.ts"
import { alice, makeHarness } from "./upload/harness.ts"

const { network, log, layer } = makeHarness({ pageSize: 2 })
const { Input } = Upload

const API = "https://api.lighthouse.storage"
const HELLO_V1 = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
const UNKNOWN = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"

const seed = (options?: { readonly dataLimit?: number; readonly dataUsed?: number }) =>
  network.seedAccount(alice.address, { apiKey: "files-key", ...options }).apiKey

const uploadTexts = (apiKey: string, count: number) =>
  Effect.gen(function* () {
    const upload = yield* Upload.Upload
    const entries: Array<Upload.UploadedEntry> = []
    for (let i = 0; i < count; i++) entries.push(yield* upload.text(`file ${i}\n`, { apiKey, name: `f${i}.txt` }))
    log.length = 0
    return entries
  })

describe("Files.usage", () => {
  it.effect("GET /api/user/user_data_usage with the bearer key; the usage decoded", () =>
    Effect.gen(function* () {
      const apiKey = seed({ dataLimit: 5_000_000, dataUsed: 1234 })
      const files = yield* Files.Files
      const usage = yield* files.usage(apiKey)
      assert.deepStrictEqual(usage, {
        dataLimit: 5_000_000,
        dataUsed: 1234,
        dataLimitPermanent: 0,
        dataUsedPermanent: 0,
        walrusDataLimit: 0,
        walrusDataUsed: 0
      })
      const [request] = log
      assert.strictEqual(request!.method, "GET")
      assert.strictEqual(request!.url.href, `${API}/api/user/user_data_usage`)
      assert.strictEqual(request!.headers.authorization, "Bearer files-key")
    }).pipe(Effect.provide(layer))
  )

  it.effect("a bad key: Request failed with status code 401", () =>
    Effect.gen(function* () {
      const files = yield* Files.Files
      const error = (yield* Effect.flip(files.usage("nope"))) as RequestFailed
      assert.strictEqual(error._tag, "RequestFailed")
      assert.strictEqual(error.message, "Request failed with status code 401")
      assert.strictEqual(error.body, '{"error":"Authentication failed"}')
    }).pipe(Effect.provide(layer))
  )

  it.effect("no answer: Network error; none within 8 000 ms: Request timed out", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const files = yield* Files.Files
      network.faults.down({ host: "api" }, { times: 1 })
      assert.strictEqual((yield* Effect.flip(files.usage(apiKey))).message, "Network error")
      network.faults.slow({ host: "api" }, 30_000, { times: 1 })
      const fiber = yield* Effect.forkChild(Effect.flip(files.usage(apiKey)))
      yield* TestClock.adjust("8 seconds")
      const error = (yield* Fiber.join(fiber)) as RequestTimedOut
      assert.strictEqual(error.message, "Request timed out")
      assert.strictEqual(error.timeoutMillis, 8000)
    }).pipe(Effect.provide(layer))
  )
})

describe("Files.uploads", () => {
  it.effect("a Stream over every page: lastKey=null first, then the last id of each page", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const uploaded = yield* uploadTexts(apiKey, 5)
      const files = yield* Files.Files
      const all = yield* Stream.runCollect(files.uploads(apiKey))
      // Newest first.
      assert.deepStrictEqual(
        all.map((f) => f.fileName),
        ["f4.txt", "f3.txt", "f2.txt", "f1.txt", "f0.txt"]
      )
      assert.deepStrictEqual(
        all.map((f) => f.cid),
        uploaded.map((e) => e.Hash).reverse()
      )
      const first = all[0]!
      assert.strictEqual(first.publicKey, alice.address.toLowerCase())
      assert.strictEqual(first.fileSizeInBytes, "7")
      assert.strictEqual(first.mimeType, "text/plain")
      assert.isFalse(first.encryption)

      // 3 pages of 2; the walk stops once totalFiles records were read.
      assert.deepStrictEqual(
        log.map((r) => r.url.search),
        ["?lastKey=null", `?lastKey=${all[1]!.id}`, `?lastKey=${all[3]!.id}`]
      )
      for (const request of log) {
        assert.strictEqual(request.method, "GET")
        assert.strictEqual(request.url.pathname, "/api/user/files_uploaded")
        assert.strictEqual(request.headers.authorization, "Bearer files-key")
        assert.strictEqual(request.headers["content-type"], "application/json")
      }
    }).pipe(Effect.provide(layer))
  )

  it.effect("pages on demand: taking 3 reads 2 pages; `after` and `fileType` go on the query", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      yield* uploadTexts(apiKey, 5)
      const files = yield* Files.Files
      const three = yield* Stream.runCollect(files.uploads(apiKey).pipe(Stream.take(3)))
      assert.strictEqual(three.length, 3)
      assert.strictEqual(log.length, 2)
      log.length = 0
      const rest = yield* Stream.runCollect(files.uploads(apiKey, { after: three[2]!.id, fileType: "ipfs" }))
      assert.deepStrictEqual(
        rest.map((f) => f.fileName),
        ["f1.txt", "f0.txt"]
      )
      assert.strictEqual(log[0]!.url.search, `?lastKey=${three[2]!.id}&fileType=ipfs`)
      const page = yield* files.uploadsPage(apiKey)
      assert.strictEqual(page.totalFiles, 5)
      assert.strictEqual(page.fileList.length, 2)
    }).pipe(Effect.provide(layer))
  )

  it.effect("an account with no uploads: an empty stream after one request", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const files = yield* Files.Files
      assert.deepStrictEqual(yield* Stream.runCollect(files.uploads(apiKey)), [])
      assert.strictEqual(log.length, 1)
      const error = (yield* Effect.flip(Stream.runCollect(files.uploads("bad")))) as RequestFailed
      assert.strictEqual(error.message, "Request failed with status code 401")
    }).pipe(Effect.provide(layer))
  )
})

describe("Files.fileInfo, dealStatus, proof", () => {
  it.effect("fileInfo: GET /api/lighthouse/file_info?cid= (no auth); HTTP error! status 404 for an unknown CID", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const upload = yield* Upload.Upload
      yield* upload.text("hello world\n", { apiKey, name: "hello.txt" })
      log.length = 0
      const files = yield* Files.Files
      const info = yield* files.fileInfo(HELLO_V1)
      assert.deepStrictEqual(info, {
        cid: HELLO_V1,
        fileName: "hello.txt",
        fileSizeInBytes: "12",
        encryption: false,
        mimeType: "text/plain",
        txHash: ""
      })
      assert.strictEqual(log[0]!.url.href, `${API}/api/lighthouse/file_info?cid=${HELLO_V1}`)
      assert.isUndefined(log[0]!.headers.authorization)
      const missing = (yield* Effect.flip(files.fileInfo(UNKNOWN))) as HttpStatusError
      assert.strictEqual(missing._tag, "HttpStatusError")
      assert.strictEqual(missing.message, "HTTP error! status 404")
    }).pipe(Effect.provide(layer))
  )

  it.effect("an invalid CID is refused before any request: Invalid CID", () =>
    Effect.gen(function* () {
      const files = yield* Files.Files
      const calls: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        files.fileInfo("invalidCID"),
        files.dealStatus(""),
        files.proof("Qm123")
      ]
      for (const call of calls) {
        const error = (yield* Effect.flip(call)) as InvalidCid
        assert.strictEqual(error._tag, "InvalidCid")
        assert.strictEqual(error.message, "Invalid CID")
      }
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(layer))
  )

  it.effect("dealStatus: [] until a deal; proof: Proof Doesn't exist yet until then; both decoded after", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const upload = yield* Upload.Upload
      const entry = yield* upload.text("deal me\n", { apiKey })
      log.length = 0
      const files = yield* Files.Files
      assert.strictEqual((yield* files.dealStatus(entry.Hash)).length, 0)
      assert.strictEqual(log[0]!.url.href, `${API}/api/lighthouse/deal_status?cid=${entry.Hash}`)
      const notYet = (yield* Effect.flip(files.proof(entry.Hash))) as ProofNotFound
      assert.strictEqual(notYet._tag, "ProofNotFound")
      assert.strictEqual(notYet.message, "Proof Doesn't exist yet")
      assert.strictEqual(log[1]!.url.href, `${API}/api/lighthouse/get_proof?cid=${entry.Hash}`)

      const made = yield* Effect.promise(() => network.simulateDeal(entry.Hash, { copies: 2 }))
      const deals = yield* files.dealStatus(entry.Hash)
      assert.deepStrictEqual(
        deals.map((d) => [d.DealID, d.Provider]),
        made.map((d) => [d.dealId, d.provider])
      )
      assert.strictEqual(deals[0]!.payloadCid, entry.Hash)
      const proof = yield* files.proof(entry.Hash)
      assert.strictEqual(proof.dealInfo.length, 2)
      assert.strictEqual(proof.pieceCID, made[0]!.piece.cid.toString())
      assert.strictEqual(proof.dealInfo[0]!.dealId, made[0]!.dealId)
    }).pipe(Effect.provide(layer))
  )

  it.effect("another status from get_proof keeps the Request failed wording", () =>
    Effect.gen(function* () {
      network.faults.status({ host: "api", path: "/api/lighthouse/get_proof" }, 404, { times: 1 })
      const files = yield* Files.Files
      const error = (yield* Effect.flip(files.proof(UNKNOWN))) as RequestFailed
      assert.strictEqual(error._tag, "RequestFailed")
      assert.strictEqual(error.message, "Request failed with status code 404")
    }).pipe(Effect.provide(layer))
  )
})

describe("Files.deleteFile", () => {
  it.effect("DELETE /api/user/delete_file?id= with the bearer key; the record is gone", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      yield* uploadTexts(apiKey, 1)
      const files = yield* Files.Files
      const [record] = yield* Stream.runCollect(files.uploads(apiKey))
      log.length = 0
      assert.deepStrictEqual(yield* files.deleteFile(apiKey, record!.id), { message: "File deleted successfully." })
      const [request] = log
      assert.strictEqual(request!.method, "DELETE")
      assert.strictEqual(request!.url.href, `${API}/api/user/delete_file?id=${record!.id}`)
      assert.strictEqual(request!.headers.authorization, "Bearer files-key")
      assert.strictEqual(request!.headers["content-type"], "application/json")
      assert.deepStrictEqual(yield* Stream.runCollect(files.uploads(apiKey)), [])
      const again = (yield* Effect.flip(files.deleteFile(apiKey, record!.id))) as RequestFailed
      assert.strictEqual(again.message, "Request failed with status code 404")
    }).pipe(Effect.provide(layer))
  )
})

describe("Files.quote", () => {
  it.effect("paths, folders, files and sizes against the account's usage", () =>
    Effect.gen(function* () {
      const apiKey = seed({ dataLimit: 1_000_000, dataUsed: 10 })
      const dir = yield* Effect.acquireRelease(
        Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "quote-"))),
        (d) => Effect.promise(() => fs.rm(d, { recursive: true, force: true }))
      )
      yield* Effect.promise(async () => {
        await fs.mkdir(nodePath.join(dir, "site", "img"), { recursive: true })
        await fs.writeFile(nodePath.join(dir, "site", "index.html"), "<h1>hi</h1>")
        await fs.writeFile(nodePath.join(dir, "site", "img", "logo.png"), new Uint8Array(300))
        await fs.writeFile(nodePath.join(dir, "notes.xyz"), "12345")
      })
      const files = yield* Files.Files
      const quote = yield* files.quote(apiKey, [
        Input.directory(nodePath.join(dir, "site")),
        Input.path(nodePath.join(dir, "notes.xyz")),
        new File(["abc"], "a.json", { type: "application/json" }),
        Input.text("héllo", "greeting"),
        1024
      ])
      assert.deepStrictEqual(quote, {
        metaData: [
          { fileSize: 300, mimeType: "image/png", fileName: "logo.png" },
          { fileSize: 11, mimeType: "text/html", fileName: "index.html" },
          { fileSize: 5, mimeType: null, fileName: "notes.xyz" },
          { fileSize: 3, mimeType: "application/json", fileName: "a.json" },
          { fileSize: 6, mimeType: "text/plain", fileName: "greeting" },
          { fileSize: 1024, mimeType: null, fileName: "" }
        ],
        dataLimit: 1_000_000,
        dataUsed: 10,
        // The Walrus quota, as the API reports it (none for this account).
        walrusDataLimit: 0,
        walrusDataUsed: 0,
        totalSize: 1349
      })
      assert.strictEqual(log.length, 1)
      assert.strictEqual(log[0]!.url.pathname, "/api/user/user_data_usage")

      // A path given as a file that is a folder is quoted as the folder.
      const single = yield* files.quote(apiKey, Input.path(nodePath.join(dir, "site")))
      assert.strictEqual(single.totalSize, 311)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a missing path fails before the network; a stream without a size is refused", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const files = yield* Files.Files
      const missing = yield* Effect.flip(files.quote(apiKey, Input.path("/nonexistent/file.bin")))
      assert.strictEqual(missing._tag, "PlatformError")
      const sizeless = (yield* Effect.flip(
        files.quote(apiKey, Input.stream(Stream.empty, { name: "s.bin" }))
      )) as InvalidUploadInput
      assert.strictEqual(sizeless.message, "the size of s.bin is unknown: give the stream's size")
      const negative = (yield* Effect.flip(files.quote(apiKey, -1))) as InvalidUploadInput
      assert.strictEqual(negative.message, "a size must be a non-negative number, not -1")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(layer))
  )
})

describe("Errors.TransportFailure", () => {
  it("is the one transport failure union", () => {
    expectTypeOf<TransportFailure["_tag"]>().toEqualTypeOf<"NetworkError" | "RequestTimedOut" | "InvalidResponse">()
  })
})
