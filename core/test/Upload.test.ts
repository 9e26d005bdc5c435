/**
 * `Upload` on the wire, against the mock network (msw, in process): the URL, query, headers and
 * multipart body of every kind of upload and option, the answers as decoded entries (CIDs equal
 * kubo's), progress, and every error an upload can end in.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { CarWriter } from "@ipld/car"
import { Effect, Fiber, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import { importer } from "ipfs-unixfs-importer"
import * as Auth from "../src/Auth.ts"
import * as FileCipher from "../src/crypto/FileCipher.ts"
import type {
  AuthTokenMustBeJwt,
  DuplicateFileName,
  EncryptedUploadIncomplete,
  FileStreamError,
  InvalidPublicKey,
  InvalidUploadInput,
  NetworkError,
  RequestFailed,
  RequestTimedOut,
  UploadRejected
} from "../src/Errors.ts"
import { SignerError } from "../src/Errors.ts"
import * as KeyShards from "../src/KeyShards.ts"
import * as Upload from "../src/Upload.ts"
import { alice, aliceSigner, makeHarness, text } from "./upload/harness.ts"

const { network, log, layer, layerWith } = makeHarness()
const { Input } = Upload

const HELLO = "hello world\n"
const HELLO_V0 = "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"
const HELLO_V1 = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
const BOUNDARY = /^multipart\/form-data; boundary=(----LighthouseEffect[0-9a-f]{32})$/

const seed = (options?: { readonly dataLimit?: number; readonly dataUsed?: number }) =>
  network.seedAccount(alice.address, { apiKey: "test-api-key", ...options })

/** Runs a test with the service and a seeded account's API key, over the in-process network. */
const uploading = <A, E, R>(body: (upload: Upload.Service, apiKey: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const { apiKey } = seed()
    return yield* body(yield* Upload.Upload, apiKey)
  }).pipe(Effect.provide(layer))

/** The boundary of a logged upload. */
const boundaryOf = (headers: Readonly<Record<string, string>>) => {
  const match = BOUNDARY.exec(headers["content-type"] ?? "")
  assert.isNotNull(match)
  return match![1]!
}

/** The multipart body of one file part, as the library must write it. */
const onePart = (boundary: string, filename: string, content: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
  `Content-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`

/** The parts (filename and content) of a logged multipart body. */
const partsOf = (body: string, boundary: string) =>
  body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((raw) => {
      const [head, ...rest] = raw.split("\r\n\r\n")
      return {
        filename: /filename="([^"]*)"/.exec(head!)![1]!,
        content: rest.join("\r\n\r\n").slice(0, -2)
      }
    })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "upload-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** `photos/` with `a.txt`, `sub/b.txt`, `sub/deeper/c.json` and an empty folder. */
const photoFolder = Effect.gen(function* () {
  const root = yield* tempDir
  const dir = nodePath.join(root, "photos")
  yield* Effect.promise(async () => {
    await fs.mkdir(nodePath.join(dir, "sub", "deeper"), { recursive: true })
    await fs.mkdir(nodePath.join(dir, "empty"))
    await fs.writeFile(nodePath.join(dir, "a.txt"), "alpha\n")
    await fs.writeFile(nodePath.join(dir, "sub", "b.txt"), "bravo\n")
    await fs.writeFile(nodePath.join(dir, "sub", "deeper", "c.json"), '{"c":3}\n')
  })
  return dir
})

const fileWithPath = (content: string, relativePath: string, type = "") => {
  const file = new File([content], relativePath.split("/").at(-1)!, { type })
  Object.defineProperty(file, "webkitRelativePath", { value: relativePath })
  return file
}

describe("Upload plain", () => {
  it.effect("text: POST /api/v0/add with the provider's query and headers, one `file` part, kubo's CID", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const entry = yield* upload.text(HELLO, { apiKey })
        assert.deepStrictEqual(entry, { Name: "text", Hash: HELLO_V1, Size: "12" })

        assert.strictEqual(log.length, 1)
        const [request] = log
        assert.strictEqual(request!.method, "POST")
        assert.strictEqual(
          request!.url.href,
          "https://upload.lighthouse.storage/api/v0/add?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false"
        )
        assert.strictEqual(request!.headers.authorization, "Bearer test-api-key")
        assert.strictEqual(request!.headers.encryption, "false")
        assert.strictEqual(request!.headers["mime-type"], "text/plain")
        assert.strictEqual(request!.headers["x-deal-parameter"], "null")
        const boundary = boundaryOf(request!.headers)
        assert.strictEqual(text(request!.body), onePart(boundary, "text", HELLO))
      })
    )
  )

  it.effect("text with a name, CID v0, deal parameters and a Mime-Type", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const dealParameters = { num_copies: 2, miner: ["f01234"], network: "calibration" }
        const entry = yield* upload.text(HELLO, {
          apiKey: Redacted.make(apiKey),
          name: "sample",
          cidVersion: 0,
          dealParameters,
          mimeType: "text/markdown"
        })
        assert.deepStrictEqual(entry, { Name: "sample", Hash: HELLO_V0, Size: "20" })
        const [request] = log
        assert.strictEqual(
          request!.url.search,
          "?wrap-with-directory=false&cid-version=0&raw-leaves=false&chunker=size-262144&max-file-links=174&trickle=false"
        )
        assert.strictEqual(request!.headers["x-deal-parameter"], JSON.stringify(dealParameters))
        assert.strictEqual(request!.headers["mime-type"], "text/markdown")
        // The node recorded what was sent.
        const record = network.state.files.byCid(HELLO_V0)!
        assert.deepStrictEqual(record.dealParameters, dealParameters)
        assert.strictEqual(record.mimeType, "text/markdown")
        assert.strictEqual(record.fileName, "sample")
      })
    )
  )

  it.effect("buffer: the default name `blob` and no Mime-Type", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const entry = yield* upload.buffer(new TextEncoder().encode(HELLO), { apiKey })
        assert.deepStrictEqual(entry, { Name: "blob", Hash: HELLO_V1, Size: "12" })
        assert.isUndefined(log[0]!.headers["mime-type"])
        const named = yield* upload.buffer(new Uint8Array([1, 2, 3]), { apiKey, name: "raw.bin", cidVersion: 0 })
        assert.strictEqual(named.Name, "raw.bin")
        assert.strictEqual(partsOf(text(log[1]!.body), boundaryOf(log[1]!.headers))[0]!.filename, "raw.bin")
      })
    )
  )

  it.effect("file from a path: the basename, the type from the extension", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const dir = yield* tempDir
      const path = nodePath.join(dir, "hello.txt")
      yield* Effect.promise(() => fs.writeFile(path, HELLO))
      const upload = yield* Upload.Upload
      const entry = yield* upload.file(Input.path(path), { apiKey })
      assert.deepStrictEqual(entry, { Name: "hello.txt", Hash: HELLO_V1, Size: "12" })
      assert.strictEqual(log[0]!.headers["mime-type"], "text/plain")
      const boundary = boundaryOf(log[0]!.headers)
      assert.strictEqual(text(log[0]!.body), onePart(boundary, "hello.txt", HELLO))
      // Another name on request.
      const renamed = yield* upload.file(Input.path(path, { name: "greeting" }), { apiKey, cidVersion: 0 })
      assert.deepStrictEqual(renamed, { Name: "greeting", Hash: HELLO_V0, Size: "20" })
    }).pipe(Effect.provide(layer))
  )

  it.effect("file from a File, a Blob, bytes and streams", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const file = new File([HELLO], "note.md", { type: "text/markdown" })
        assert.deepStrictEqual(yield* upload.file(file, { apiKey }), { Name: "note.md", Hash: HELLO_V1, Size: "12" })
        assert.strictEqual(log[0]!.headers["mime-type"], "text/markdown")

        const blob = new Blob([HELLO])
        assert.strictEqual((yield* upload.file(blob, { apiKey })).Name, "blob")
        assert.strictEqual((yield* upload.file(Input.blob(blob, { name: "b.txt" }), { apiKey })).Name, "b.txt")
        assert.strictEqual(
          (yield* upload.file(Input.bytes(new TextEncoder().encode(HELLO), "bytes.txt"), { apiKey })).Hash,
          HELLO_V1
        )

        const readable = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("hello "))
            controller.enqueue(new TextEncoder().encode("world\n"))
            controller.close()
          }
        })
        assert.deepStrictEqual(yield* upload.file(Input.stream(readable, { name: "web.txt" }), { apiKey }), {
          Name: "web.txt",
          Hash: HELLO_V1,
          Size: "12"
        })
        const effectStream = Stream.make(new TextEncoder().encode("hello "), new TextEncoder().encode("world\n"))
        assert.strictEqual(
          (yield* upload.file(Input.stream(effectStream, { name: "fx.txt", size: 12 }), { apiKey })).Hash,
          HELLO_V1
        )
        assert.strictEqual(text(log[5]!.body), onePart(boundaryOf(log[5]!.headers), "fx.txt", HELLO))
      })
    )
  )

  it.effect("names with quotes, percent signs and line breaks are escaped and arrive intact", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const name = 'a "b" 100%\\c\r\nd é.txt'
        const entry = yield* upload.text(HELLO, { apiKey, name })
        assert.strictEqual(entry.Name, name)
        const [part] = partsOf(text(log[0]!.body), boundaryOf(log[0]!.headers))
        assert.strictEqual(part!.filename, "a %22b%22 100%25%5Cc%0D%0Ad é.txt")
      })
    )
  )

  it.effect("wrapWithDirectory: the wrapping directory's entry, named ``", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const entry = yield* upload.file(Input.text(HELLO, "text"), { apiKey, wrapWithDirectory: true })
        assert.deepStrictEqual(entry, {
          Name: "",
          Hash: "bafybeib64lgtliytogydeh5mhcrlcm42e7xmq55gblrsiejou5atlvflau",
          Size: "64"
        })
        assert.strictEqual(
          log[0]!.url.search,
          "?wrap-with-directory=true&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false"
        )
      })
    )
  )

  it.effect("folder from a path: parts named from the folder's own name, files in name order, the folder's entry", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const dir = yield* photoFolder
      const upload = yield* Upload.Upload
      const entry = yield* upload.folder(Input.directory(dir), { apiKey })
      assert.strictEqual(entry.Name, "photos")
      assert.isTrue(entry.Hash.startsWith("bafybei"))
      const [request] = log
      assert.strictEqual(
        request!.url.search,
        "?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false"
      )
      assert.isUndefined(request!.headers["mime-type"])
      assert.deepStrictEqual(partsOf(text(request!.body), boundaryOf(request!.headers)), [
        { filename: "photos/a.txt", content: "alpha\n" },
        { filename: "photos/sub/b.txt", content: "bravo\n" },
        { filename: "photos/sub/deeper/c.json", content: '{"c":3}\n' }
      ])

      // The same folder picked in a browser (File objects with webkitRelativePath) is the same CID.
      const picked = Input.files([
        fileWithPath("alpha\n", "photos/a.txt"),
        fileWithPath("bravo\n", "photos/sub/b.txt"),
        fileWithPath('{"c":3}\n', "photos/sub/deeper/c.json")
      ])
      assert.deepStrictEqual(yield* upload.folder(picked, { apiKey }), entry)
      // A trailing separator changes nothing.
      assert.deepStrictEqual(yield* upload.folder(Input.directory(`${dir}/`), { apiKey }), entry)
    }).pipe(Effect.provide(layer))
  )

  it.effect("several files without a common folder are wrapped in a directory", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const entry = yield* upload.folder(Input.files([new File(["1"], "one.txt"), Input.text("2", "two.txt")]), {
          apiKey,
          cidVersion: 0
        })
        assert.strictEqual(entry.Name, "")
        assert.strictEqual(
          log[0]!.url.search,
          "?wrap-with-directory=true&cid-version=0&raw-leaves=false&chunker=size-262144&max-file-links=174&trickle=false"
        )
        assert.deepStrictEqual(
          partsOf(text(log[0]!.body), boundaryOf(log[0]!.headers)).map((p) => p.filename),
          ["one.txt", "two.txt"]
        )
      })
    )
  )

  it.effect("progress: bytes of the file pulled by the transport, from 0 to the file's size (no framing)", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const reports: Array<Upload.Progress.Progress> = []
        const content = new Uint8Array(300 * 1024).fill(7)
        yield* upload.buffer(content, { apiKey, onProgress: (p) => void reports.push(p) })
        assert.isAbove(log[0]!.body!.length, content.length)
        assert.strictEqual(reports[0]!.bytesSent, 0)
        assert.strictEqual(reports.at(-1)!.bytesSent, content.length)
        assert.isTrue(reports.every((r) => r.totalBytes === content.length))
        for (let i = 1; i < reports.length; i++) assert.isTrue(reports[i]!.bytesSent > reports[i - 1]!.bytesSent)
        assert.isTrue(reports.length >= 5)
        assert.strictEqual(Upload.Progress.fraction(reports.at(-1)!), 1)

        // An Effect listener; a stream of unknown size has no total.
        const seen: Array<Upload.Progress.Progress> = []
        yield* upload.file(Input.stream(Stream.make(new Uint8Array(10)), { name: "s" }), {
          apiKey,
          onProgress: (p) => Effect.sync(() => void seen.push(p))
        })
        assert.deepStrictEqual(seen.at(-1), { bytesSent: 10, totalBytes: undefined })

        // The provider SDK's example: a 15-byte file is 15 bytes of progress, not its 241-byte request.
        const fifteen: Array<Upload.Progress.Progress> = []
        yield* upload.text("fifteen bytes!\n", { apiKey, name: "f.txt", onProgress: (p) => void fifteen.push(p) })
        assert.deepStrictEqual(fifteen, [
          { bytesSent: 0, totalBytes: 15 },
          { bytesSent: 15, totalBytes: 15 }
        ])
      })
    )
  )

  it.effect("car: POST /api/v0/dag/import with the CAR as the `file` part; the roots", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const { bytes, root } = yield* Effect.promise(() => carOf(new TextEncoder().encode(HELLO)))
      const upload = yield* Upload.Upload
      const roots = yield* upload.car(Input.bytes(bytes, "hello.car"), { apiKey })
      assert.strictEqual(roots.length, 1)
      assert.strictEqual(roots[0]!.Root.Cid["/"], root)
      assert.strictEqual(roots[0]!.Hash, root)
      const [request] = log
      assert.strictEqual(request!.url.href, "https://upload.lighthouse.storage/api/v0/dag/import")
      assert.strictEqual(request!.headers.authorization, "Bearer test-api-key")
      const [part] = partsOf(new TextDecoder("latin1").decode(request!.body), boundaryOf(request!.headers))
      assert.strictEqual(part!.filename, "hello.car")

      const failure = yield* Effect.flip(upload.car(Input.bytes(bytes, "hello.bin"), { apiKey }))
      assert.strictEqual(failure._tag, "InvalidUploadInput")
      assert.strictEqual(failure.message, "File must have a .car extension")
    }).pipe(Effect.provide(layer))
  )
})

/** A CAR of a UnixFS file (CID v1), built independently of the library. */
const carOf = async (content: Uint8Array) => {
  const blocks: Array<{ cid: import("multiformats/cid").CID; bytes: Uint8Array }> = []
  const store = {
    put: async (cid: import("multiformats/cid").CID, bytes: Uint8Array) => {
      blocks.push({ cid, bytes })
      return cid
    }
  }
  let root: import("multiformats/cid").CID | undefined
  for await (const entry of importer([{ path: "f", content }], store as never, { cidVersion: 1, rawLeaves: true })) {
    root = entry.cid
  }
  const { writer, out } = CarWriter.create([root!])
  const chunks: Array<Uint8Array> = []
  const collecting = (async () => {
    for await (const chunk of out) chunks.push(chunk)
  })()
  for (const block of blocks) await writer.put(block)
  await writer.close()
  await collecting
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const c of chunks) {
    bytes.set(c, offset)
    offset += c.length
  }
  return { bytes, root: root!.toString() }
}

describe("Upload as one Blob (browsers' fetch)", () => {
  it.effect("the same bytes on the wire, the same CIDs; progress at the start and the end", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const upload = yield* Upload.Upload
      const reports: Array<Upload.Progress.Progress> = []
      const entry = yield* upload.text(HELLO, { apiKey, onProgress: (p) => void reports.push(p) })
      assert.deepStrictEqual(entry, { Name: "text", Hash: HELLO_V1, Size: "12" })
      const [request] = log
      const boundary = boundaryOf(request!.headers)
      assert.strictEqual(text(request!.body), onePart(boundary, "text", HELLO))
      assert.strictEqual(request!.headers["content-length"], String(request!.body!.length))
      assert.deepStrictEqual(reports, [
        { bytesSent: 0, totalBytes: HELLO.length },
        { bytesSent: HELLO.length, totalBytes: HELLO.length }
      ])

      const dir = yield* photoFolder
      const streamed = yield* upload
        .folder(Input.directory(dir), { apiKey })
        .pipe(Effect.provideService(Upload.BodyMode, "stream"))
      assert.deepStrictEqual(yield* upload.folder(Input.directory(dir), { apiKey }), streamed)
      const fromStream = yield* upload.file(Input.stream(Stream.make(new TextEncoder().encode(HELLO)), { name: "s" }), {
        apiKey
      })
      assert.strictEqual(fromStream.Hash, HELLO_V1)
    }).pipe(Effect.provideService(Upload.BodyMode, "blob"), Effect.provide(layer))
  )

  it.effect("encrypted: the ciphertext decrypts with the saved key", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const auth = yield* Auth.Auth
      const token = yield* auth.token(aliceSigner)
      log.length = 0
      const upload = yield* Upload.Upload
      const plaintext = new TextEncoder().encode("blob secret\n")
      const entry = yield* upload.encryptedBuffer(plaintext, { apiKey, address: alice.address, token, name: "b.bin" })
      // After the token check on node 1, the upload.
      const sent = log[1]!
      assert.strictEqual(sent.url.pathname, "/api/v0/add")
      const body = sent.body!
      const boundary = boundaryOf(sent.headers)
      const head = new TextEncoder().encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`
      ).length
      const tail = `\r\n--${boundary}--\r\n`.length
      const shards = yield* KeyShards.KeyShards
      const key = yield* shards.fetchKey({ cid: entry.Hash, address: alice.address, token })
      assert.deepStrictEqual(yield* FileCipher.decrypt(body.subarray(head, body.length - tail), key), plaintext)
    }).pipe(Effect.provideService(Upload.BodyMode, "blob"), Effect.provide(layer))
  )
})

describe("Upload over node:http (NodeHttpClient.layerNodeHttp)", () => {
  const overNodeHttp = layerWith({}, "node:http")

  it.effect("the same request, body and answers as over fetch", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const upload = yield* Upload.Upload
      const reports: Array<Upload.Progress.Progress> = []
      const entry = yield* upload.text(HELLO, { apiKey, onProgress: (p) => void reports.push(p) })
      assert.deepStrictEqual(entry, { Name: "text", Hash: HELLO_V1, Size: "12" })
      const [request] = log
      assert.strictEqual(
        request!.url.href,
        "https://upload.lighthouse.storage/api/v0/add?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false"
      )
      assert.strictEqual(request!.headers.authorization, `Bearer ${apiKey}`)
      assert.strictEqual(request!.headers.encryption, "false")
      assert.strictEqual(request!.headers["x-deal-parameter"], "null")
      assert.strictEqual(text(request!.body), onePart(boundaryOf(request!.headers), "text", HELLO))
      assert.deepStrictEqual(reports.at(-1), { bytesSent: HELLO.length, totalBytes: HELLO.length })
      const dir = yield* photoFolder
      assert.strictEqual((yield* upload.folder(Input.directory(dir), { apiKey })).Name, "photos")
    }).pipe(Effect.provide(overNodeHttp))
  )

  it.effect("encrypted, and the errors: refusal, down, time-out", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const auth = yield* Auth.Auth
      const token = yield* auth.token(aliceSigner)
      const upload = yield* Upload.Upload
      const entry = yield* upload.encryptedText("over node:http", { apiKey, address: alice.address, token })
      const shards = yield* KeyShards.KeyShards
      assert.strictEqual(
        Redacted.value(yield* shards.fetchKey({ cid: entry.Hash, address: alice.address, token })).length,
        64
      )

      const refused = (yield* Effect.flip(upload.text(HELLO, { apiKey: "wrong" }))) as UploadRejected
      assert.strictEqual(refused.message, "Authentication failed")
      network.faults.down({ host: "node" }, { times: 1 })
      assert.strictEqual((yield* Effect.flip(upload.text(HELLO, { apiKey }))).message, "Network error")
      network.faults.slow({ host: "node" }, 60_000, { times: 1 })
      const fiber = yield* Effect.forkChild(Effect.flip(upload.text(HELLO, { apiKey })))
      yield* TestClock.adjust("2 hours")
      assert.strictEqual((yield* Fiber.join(fiber)).message, "Request timed out")
    }).pipe(Effect.provide(overNodeHttp))
  )
})

describe("Upload errors", () => {
  it.effect("a bad API key: UploadRejected with the node's text, no `Error: ` prefix", () =>
    Effect.gen(function* () {
      const upload = yield* Upload.Upload
      const error = (yield* Effect.flip(upload.text(HELLO, { apiKey: "wrong" }))) as UploadRejected
      assert.strictEqual(error._tag, "UploadRejected")
      assert.strictEqual(error.status, 401)
      assert.strictEqual(error.message, "Authentication failed")
    }).pipe(Effect.provide(layer))
  )

  it.effect("quota exceeded: UploadRejected 402 with the node's reason; nothing stored", () =>
    Effect.gen(function* () {
      const { apiKey } = seed({ dataLimit: 100 * 1024, dataUsed: 0 })
      const upload = yield* Upload.Upload
      const error = (yield* Effect.flip(upload.buffer(new Uint8Array(200 * 1024), { apiKey }))) as UploadRejected
      assert.strictEqual(error._tag, "UploadRejected")
      assert.strictEqual(error.status, 402)
      assert.strictEqual(
        error.message,
        "Storage quota exceeded: 0 of 102400 bytes used, this upload needs more than the 102400 left"
      )
      assert.strictEqual(network.state.files.of(alice.address.toLowerCase()).length, 0)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a non-2xx without an `error` text: Request failed with status code {n}", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      network.faults.status({ host: "node" }, 503, { body: "maintenance" })
      const upload = yield* Upload.Upload
      const error = (yield* Effect.flip(upload.text(HELLO, { apiKey }))) as RequestFailed
      assert.strictEqual(error._tag, "RequestFailed")
      assert.strictEqual(error.status, 503)
      assert.strictEqual(error.message, "Request failed with status code 503")
    }).pipe(Effect.provide(layer))
  )

  it.effect("no answer: Network error", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      network.faults.down({ host: "node" })
      const upload = yield* Upload.Upload
      const error = (yield* Effect.flip(upload.text(HELLO, { apiKey }))) as NetworkError
      assert.strictEqual(error._tag, "NetworkError")
      assert.strictEqual(error.message, "Network error")
    }).pipe(Effect.provide(layer))
  )

  it.effect("no answer within 7 200 000 ms: Request timed out", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      network.faults.slow({ host: "node" }, 60_000)
      const upload = yield* Upload.Upload
      const fiber = yield* Effect.forkChild(Effect.flip(upload.text(HELLO, { apiKey })))
      yield* TestClock.adjust("7199999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = (yield* Fiber.join(fiber)) as RequestTimedOut
      assert.strictEqual(error._tag, "RequestTimedOut")
      assert.strictEqual(error.message, "Request timed out")
      assert.strictEqual(error.timeoutMillis, 7_200_000)
    }).pipe(Effect.provide(layer))
  )

  it.effect("inputs refused before sending: missing path, directory as a file, empty folder", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const missing = yield* Effect.flip(upload.file(Input.path(nodePath.join(dir, "nope.txt")), { apiKey }))
        assert.strictEqual(missing._tag, "PlatformError")
        assert.strictEqual(missing._tag === "PlatformError" && missing.reason._tag, "NotFound")
        const asFile = (yield* Effect.flip(upload.file(Input.path(dir), { apiKey }))) as InvalidUploadInput
        assert.strictEqual(asFile.message, `${dir} is a directory: upload it as a folder`)
        yield* Effect.promise(() => fs.mkdir(nodePath.join(dir, "empty")))
        const empty = (yield* Effect.flip(
          upload.folder(Input.directory(nodePath.join(dir, "empty")), { apiKey })
        )) as InvalidUploadInput
        assert.strictEqual(empty.message, "the folder has no files")
        const notDir = yield* Effect.promise(() => fs.writeFile(nodePath.join(dir, "f"), "x"))
        void notDir
        const fileAsFolder = (yield* Effect.flip(
          upload.folder(Input.directory(nodePath.join(dir, "f")), { apiKey })
        )) as InvalidUploadInput
        assert.strictEqual(fileAsFolder.message, `${nodePath.join(dir, "f")} is not a directory`)
        assert.strictEqual(log.length, 0)
      })
    )
  )

  it.effect("names with a .. segment are refused before sending, as a file or inside a folder", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const upload = yield* Upload.Upload
      const refused = (name: string) => `Invalid file name ${JSON.stringify(name)}: a path segment is ".."`
      for (const name of ["..", "../../../etc/passwd", "a\\..\\b"]) {
        const plain = (yield* Effect.flip(upload.text("x", { apiKey, name }))) as InvalidUploadInput
        assert.strictEqual(plain.message, refused(name))
        const asFile = (yield* Effect.flip(
          upload.file(Input.bytes(new Uint8Array(1), name), { apiKey })
        )) as InvalidUploadInput
        assert.strictEqual(asFile._tag, "InvalidUploadInput")
      }
      const folder = (yield* Effect.flip(
        upload.folder(Input.files([Input.text("a", "photos/a.txt"), Input.text("b", "photos/../b.txt")]), { apiKey })
      )) as InvalidUploadInput
      assert.strictEqual(folder.message, refused("photos/../b.txt"))
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a source that breaks mid-upload: File stream error, and nothing is stored", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const broken = new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.error(new Error("disk on fire"))
          }
        })
        const error = (yield* Effect.flip(
          upload.file(Input.stream(broken, { name: "x" }), { apiKey })
        )) as FileStreamError
        assert.strictEqual(error._tag, "FileStreamError")
        assert.strictEqual(error.message, "File stream error: disk on fire")
        assert.strictEqual(error.fileName, "x")
        assert.strictEqual(network.state.files.of(alice.address.toLowerCase()).length, 0)
      })
    )
  )
})

describe("Upload encrypted", () => {
  /** A JWT for alice from the key nodes. */
  const aliceToken = Effect.gen(function* () {
    const auth = yield* Auth.Auth
    return yield* auth.token(aliceSigner)
  })

  const keyOf = (cid: string, token: Redacted.Redacted<string>) =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      return yield* shards.fetchKey({ cid, address: alice.address, token })
    })

  it.effect("one file: `Encryption: true`, the provider's layout on the wire, shards saved under the CID", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const token = yield* aliceToken
      log.length = 0
      const upload = yield* Upload.Upload
      const reports: Array<Upload.Progress.Progress> = []
      const plaintext = new TextEncoder().encode("secret stuff\n")
      const entry = yield* upload.encryptedFile(Input.bytes(plaintext, "secret.txt"), {
        apiKey,
        address: alice.address,
        token,
        onProgress: (p) => void reports.push(p)
      })
      assert.strictEqual(entry.Name, "secret.txt")
      // The token is checked on node 1 before a byte is sent.
      const [check, request, ...shardCalls] = log
      assert.strictEqual(
        `${check!.method} ${check!.url.href}`,
        "POST https://encryption.lighthouse.storage/api/retrieveSharedKey/1"
      )
      assert.strictEqual(
        request!.url.href,
        "https://upload.lighthouse.storage/api/v0/add?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false"
      )
      assert.strictEqual(request!.headers.encryption, "true")
      assert.strictEqual(request!.headers["mime-type"], "text/plain")
      assert.strictEqual(request!.headers.authorization, `Bearer ${apiKey}`)
      const body = request!.body!
      const boundary = boundaryOf(request!.headers)
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="secret.txt"\r\nContent-Type: application/octet-stream\r\n\r\n`
      const close = `\r\n--${boundary}--\r\n`
      assert.strictEqual(body.length, head.length + plaintext.length + FileCipher.OVERHEAD + close.length)
      // Progress counts the encrypted file: the plain bytes and the cipher's overhead.
      assert.deepStrictEqual(reports.at(-1), {
        bytesSent: plaintext.length + FileCipher.OVERHEAD,
        totalBytes: plaintext.length + FileCipher.OVERHEAD
      })
      // Shards went to the 5 nodes under the returned CID.
      assert.deepStrictEqual(
        shardCalls.map((c) => `${c.method} ${c.url.pathname}`),
        [1, 2, 3, 4, 5].map((n) => `POST /api/setSharedKey/${n}`)
      )
      for (const call of shardCalls) {
        const json = JSON.parse(text(call.body))
        assert.strictEqual(json.cid, entry.Hash)
        assert.strictEqual(json.address, alice.address.toLowerCase())
      }
      // The ciphertext on the node decrypts with the key the nodes give back.
      const key = yield* keyOf(entry.Hash, token)
      const stored = body.subarray(head.length, body.length - close.length)
      assert.deepStrictEqual(yield* FileCipher.decrypt(stored, key), plaintext)
      assert.isTrue(network.state.files.byCid(entry.Hash)!.encryption)
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "a signer instead of address and token: signs in (a JWT, so several files), shards saved for its address",
    () =>
      Effect.gen(function* () {
        const { apiKey } = seed()
        const upload = yield* Upload.Upload
        log.length = 0
        const entries = yield* upload.encryptedFiles([Input.text("one", "a.txt"), Input.text("two", "b.txt")], {
          apiKey,
          signer: aliceSigner
        })
        assert.deepStrictEqual(
          entries.map((e) => e.Name),
          ["a.txt", "b.txt"]
        )
        // Sign-in first (message, JWT), the token's check, then the upload, then 5 shard saves per file.
        assert.deepStrictEqual(
          log.slice(0, 4).map((c) => `${c.method} ${c.url.pathname}`),
          [
            `GET /api/message/${alice.address.toLowerCase()}`,
            "POST /api/message/get-jwt",
            "POST /api/retrieveSharedKey/1",
            "POST /api/v0/add"
          ]
        )
        const token = yield* aliceToken
        for (const entry of entries) {
          const key = yield* keyOf(entry.Hash, token)
          assert.strictEqual(Redacted.value(key).length, 64)
        }
        const t = yield* upload.encryptedText("signed", { apiKey, signer: aliceSigner })
        assert.strictEqual(Redacted.value(yield* keyOf(t.Hash, token)).length, 64)
      }).pipe(Effect.provide(layer))
  )

  it.effect("a signer that cannot sign: SignerError, and nothing is uploaded", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const upload = yield* Upload.Upload
      log.length = 0
      const refusing = {
        address: aliceSigner.address,
        signMessage: () => Effect.fail(new SignerError({ operation: "signMessage", cause: new Error("User rejected") }))
      }
      const error = yield* Effect.flip(upload.encryptedText("x", { apiKey, signer: refusing }))
      assert.strictEqual(error._tag, "SignerError")
      assert.isFalse(log.some((c) => c.url.pathname === "/api/v0/add"))
    }).pipe(Effect.provide(layer))
  )

  it.effect("text and buffer: default names, text/plain for text", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const token = yield* aliceToken
      const upload = yield* Upload.Upload
      log.length = 0
      const t = yield* upload.encryptedText("hi", { apiKey, address: alice.address, token })
      assert.strictEqual(t.Name, "text")
      const added = () => log.find((c) => c.url.pathname === "/api/v0/add")!
      assert.strictEqual(added().headers["mime-type"], "text/plain")
      log.length = 0
      const b = yield* upload.encryptedBuffer(new Uint8Array([1, 2]), {
        apiKey,
        address: alice.address,
        token,
        cidVersion: 0
      })
      assert.strictEqual(b.Name, "blob")
      assert.isTrue(b.Hash.startsWith("Qm"))
      assert.isUndefined(added().headers["mime-type"])
      assert.strictEqual(
        added().url.search,
        "?wrap-with-directory=false&cid-version=0&raw-leaves=false&chunker=size-262144&max-file-links=174&trickle=false"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("a folder with a JWT: one request, each file its own CID and key, names flattened with `-`", () =>
    Effect.gen(function* () {
      const { apiKey } = seed()
      const token = yield* aliceToken
      const dir = yield* photoFolder
      log.length = 0
      const upload = yield* Upload.Upload
      const entries = yield* upload.encryptedFiles(Input.directory(dir), { apiKey, address: alice.address, token })
      assert.deepStrictEqual(
        entries.map((e) => e.Name),
        ["a.txt", "sub-b.txt", "sub-deeper-c.json"]
      )
      assert.strictEqual(new Set(entries.map((e) => e.Hash)).size, 3)
      const uploads = log.filter((c) => c.url.host === "upload.lighthouse.storage")
      assert.strictEqual(uploads.length, 1)
      assert.isUndefined(uploads[0]!.headers["mime-type"])
      assert.strictEqual(log.filter((c) => c.url.pathname.startsWith("/api/setSharedKey/")).length, 15)
      // Three different keys.
      const keys = new Set<string>()
      for (const e of entries) keys.add(Redacted.value(yield* keyOf(e.Hash, token)))
      assert.strictEqual(keys.size, 3)
    }).pipe(Effect.provide(layer))
  )

  // A 0x signature, and a token that is not a JWT either: both refused before anything is sent.
  it.effect.each(["0xabcdef", "plain"])(
    "several files with token %s: auth_token must be a JWT, nothing sent",
    (token) =>
      uploading((upload, apiKey) =>
        Effect.gen(function* () {
          const error = (yield* Effect.flip(
            upload.encryptedFiles([Input.text("1", "a"), Input.text("2", "b")], {
              apiKey,
              address: alice.address,
              token
            })
          )) as AuthTokenMustBeJwt
          assert.strictEqual(error._tag, "AuthTokenMustBeJwt")
          assert.strictEqual(error.message, "auth_token must be a JWT")
          assert.strictEqual(log.length, 0)
        })
      )
  )

  it.effect("duplicate names: Duplicate file name found: {name}; a bad address: Invalid public Key", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const duplicate = (yield* Effect.flip(
          upload.encryptedFiles([new File(["1"], "a.txt"), new File(["2"], "a.txt")], {
            apiKey,
            address: alice.address,
            token: "jwt:a.b.c"
          })
        )) as DuplicateFileName
        assert.strictEqual(duplicate.message, "Duplicate file name found: a.txt")
        const badAddress = (yield* Effect.flip(
          upload.encryptedText("x", { apiKey, address: "0x123", token: "0xsig" })
        )) as InvalidPublicKey
        assert.strictEqual(badAddress.message, "Invalid public Key")
        assert.strictEqual(log.length, 0)
      })
    )
  )

  it.effect(
    "shards not saved: EncryptedUploadIncomplete lists the upload, the saved and the failed (with their shards)",
    () =>
      Effect.gen(function* () {
        const { apiKey } = seed()
        const token = yield* aliceToken
        const upload = yield* Upload.Upload
        // Node 3 refuses every shard save: every file fails at node 3.
        network.faults.status({ host: "encryption", node: 3, method: "POST", path: "/api/setSharedKey/3" }, 500, {
          body: { message: "disk full" },
          times: 1
        })
        const error = (yield* Effect.flip(
          upload.encryptedFiles([Input.text("one", "one.txt"), Input.text("two", "two.txt")], {
            apiKey,
            address: alice.address,
            token
          })
        )) as EncryptedUploadIncomplete
        assert.strictEqual(error._tag, "EncryptedUploadIncomplete")
        // The catalogue's text, then the first cause: node 3's own message, naming the node.
        assert.strictEqual(error.message, "Error encrypting file: disk full (node 3)")
        assert.deepStrictEqual(
          error.uploaded.map((e) => e.Name),
          ["one.txt", "two.txt"]
        )
        assert.strictEqual(error.saved.length, 1)
        assert.strictEqual(error.failed.length, 1)
        const [failed] = error.failed
        assert.include(["one.txt", "two.txt"], failed!.name)
        assert.strictEqual(failed!.cid, error.uploaded.find((e) => e.Name === failed!.name)!.Hash)
        assert.strictEqual(failed!.reason, "Error encrypting file: disk full (node 3)")
        assert.strictEqual(String(failed!.keyShards), "<redacted:KeyShards>")
        // The caller can finish the job with the shards the error carries.
        const shards = yield* KeyShards.KeyShards
        yield* shards.save({
          cid: failed!.cid,
          address: alice.address,
          token,
          keyShards: Redacted.value(failed!.keyShards)
        })
        const key = yield* keyOf(failed!.cid, token)
        assert.strictEqual(Redacted.value(key).length, 64)
        // One try per node: the single refusal fails exactly one file.
      }).pipe(Effect.provide(layerWith({ tries: 1 })))
  )

  it.effect("a refused encrypted upload saves no shards", () =>
    Effect.gen(function* () {
      const upload = yield* Upload.Upload
      const error = (yield* Effect.flip(
        // A raw signature is only checked for its shape (a node accepts one once): the node refuses the key.
        upload.encryptedText("x", { apiKey: "wrong", address: alice.address, token: `0x${"ab".repeat(65)}` })
      )) as UploadRejected
      assert.strictEqual(error.message, "Authentication failed")
      assert.strictEqual(log.filter((c) => c.url.host === "encryption.lighthouse.storage").length, 0)
    }).pipe(Effect.provide(layer))
  )
})
