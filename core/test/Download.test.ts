/**
 * `Download` on the wire, against the mock network: unverified reads (`POST
 * {gateway}/api/v0/cat/{cid}`) in every form (stream, bytes, file), a gateway given per call,
 * decryption with a master key or with a signer's recovered key, and the guarantee that only
 * authenticated plaintext is handed out. Verified downloads (the default) are in
 * `verify/Transfers.test.ts`.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, FileSystem, Layer, Redacted, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as Auth from "../src/Auth.ts"
import * as Download from "../src/Download.ts"
import type { DecryptionFailed, HttpStatusError, InvalidCid } from "../src/Errors.ts"
import * as KeyNodes from "../src/KeyNodes.ts"
import * as KeyShards from "../src/KeyShards.ts"
import * as LighthouseConfig from "../src/LighthouseConfig.ts"
import * as Upload from "../src/Upload.ts"
import { alice, aliceSigner, bobSigner, makeHarness } from "./upload/harness.ts"

const { network, log, layer, layerWith } = makeHarness()
const { Input } = Upload

const GATEWAY = "https://gateway.lighthouse.storage"
const seed = () => network.seedAccount(alice.address, { apiKey: "dl-key" }).apiKey
const encoder = new TextEncoder()

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "download-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** Bytes big enough to cross many chunks and UnixFS blocks. */
const big = (size: number) => {
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff
  return bytes
}

/** Uploads `plaintext` encrypted for alice; returns the CID and the token. */
const encrypted = (plaintext: Uint8Array, name = "secret.bin") =>
  Effect.gen(function* () {
    const apiKey = seed()
    const auth = yield* Auth.Auth
    const token = yield* auth.token(aliceSigner)
    const upload = yield* Upload.Upload
    const entry = yield* upload.encryptedFile(Input.bytes(plaintext, name), { apiKey, address: alice.address, token })
    log.length = 0
    return { cid: entry.Hash, token }
  })

describe("Download plain", () => {
  it.effect("unverified (verification: off): bytes, stream and file: POST /api/v0/cat/{cid}, no body, no auth", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const content = big(700 * 1024)
      const upload = yield* Upload.Upload
      const entry = yield* upload.buffer(content, { apiKey })
      log.length = 0
      const download = yield* Download.Download

      const off = { verification: "off" } as const
      assert.deepStrictEqual(yield* download.bytes(entry.Hash, off), content)
      const [request] = log
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.url.href, `${GATEWAY}/api/v0/cat/${entry.Hash}`)
      assert.isUndefined(request!.headers.authorization)
      assert.strictEqual(request!.body?.length ?? 0, 0)

      const chunks = yield* Stream.runCollect(download.stream(entry.Hash, off))
      assert.isTrue(chunks.length > 1)
      assert.deepStrictEqual(Buffer.concat(chunks), Buffer.from(content))

      const dir = yield* tempDir
      const target = nodePath.join(dir, "out.bin")
      assert.deepStrictEqual(yield* download.toFile(entry.Hash, target, off), { verified: false, reason: "off" })
      assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), content)
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), ["out.bin"])
    }).pipe(Effect.provide(layer))
  )

  it.effect("a gateway given per call", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const upload = yield* Upload.Upload
      const entry = yield* upload.text("via my gateway\n", { apiKey })
      log.length = 0
      const download = yield* Download.Download
      // The mock gateway answers on its host only; a trailing slash is tolerated.
      const bytes = yield* download.bytes(entry.Hash, { gateway: `${GATEWAY}/`, verification: "off" })
      assert.strictEqual(new TextDecoder().decode(bytes), "via my gateway\n")
      const other = yield* Effect.flip(
        download.bytes(entry.Hash, { gateway: "https://gateway.example.test", verification: "off" })
      )
      assert.strictEqual(other._tag, "NetworkError")
      assert.strictEqual(log.at(-1)!.url.href, `https://gateway.example.test/api/v0/cat/${entry.Hash}`)
    }).pipe(Effect.provide(layer))
  )

  it.effect("unknown content: HTTP error! status 404; an invalid CID: Invalid CID, no request; no file left", () =>
    Effect.gen(function* () {
      const download = yield* Download.Download
      const unknown = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"
      const missing = (yield* Effect.flip(download.bytes(unknown))) as HttpStatusError
      assert.strictEqual(missing._tag, "HttpStatusError")
      assert.strictEqual(missing.message, "HTTP error! status 404")
      const dir = yield* tempDir
      const toFile = (yield* Effect.flip(download.toFile(unknown, nodePath.join(dir, "x")))) as HttpStatusError
      assert.strictEqual(toFile.status, 404)
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), [])
      log.length = 0
      const invalid = (yield* Effect.flip(download.bytes("not-a-cid"))) as InvalidCid
      assert.strictEqual(invalid.message, "Invalid CID")
      assert.strictEqual((yield* Effect.flip(Stream.runCollect(download.stream("nope"))))._tag, "InvalidCid")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(layer))
  )
})

describe("Download over node:http (NodeHttpClient.layerNodeHttp)", () => {
  it.effect("bytes and a decrypted file, as over fetch", () =>
    Effect.gen(function* () {
      const plaintext = big(100 * 1024 + 5)
      const { cid } = yield* encrypted(plaintext)
      const download = yield* Download.Download
      assert.deepStrictEqual(yield* download.bytes(cid, { decrypt: { signer: aliceSigner } }), plaintext)
      const dir = yield* tempDir
      yield* download.toFile(cid, nodePath.join(dir, "p.bin"), { decrypt: { signer: aliceSigner } })
      assert.deepStrictEqual(
        new Uint8Array(yield* Effect.promise(() => fs.readFile(nodePath.join(dir, "p.bin")))),
        plaintext
      )
      const missing = (yield* Effect.flip(
        download.bytes("QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA")
      )) as HttpStatusError
      assert.strictEqual(missing.message, "HTTP error! status 404")
    }).pipe(Effect.provide(layerWith({}, "node:http")))
  )
})

describe("Download encrypted", () => {
  it.effect("with the master key: the plaintext, as bytes and into a file", () =>
    Effect.gen(function* () {
      const plaintext = big(300 * 1024 + 7)
      const { cid, token } = yield* encrypted(plaintext)
      const shards = yield* KeyShards.KeyShards
      const key = yield* shards.fetchKey({ cid, address: alice.address, token })
      log.length = 0
      const download = yield* Download.Download
      assert.deepStrictEqual(yield* download.bytes(cid, { decrypt: { masterKey: key } }), plaintext)
      // Only the gateway was asked.
      assert.deepStrictEqual(
        log.map((r) => r.url.host),
        ["gateway.lighthouse.storage"]
      )
      const dir = yield* tempDir
      const target = nodePath.join(dir, "plain.bin")
      yield* download.toFile(cid, target, { decrypt: Download.masterKey(Redacted.value(key)) })
      assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), plaintext)
      // Without a key the stored bytes are the ciphertext: 44 bytes longer.
      assert.strictEqual((yield* download.bytes(cid)).length, plaintext.length + 44)
    }).pipe(Effect.provide(layer))
  )

  it.effect("with a signer: JWT, 3 shards from the key nodes, then the gateway", () =>
    Effect.gen(function* () {
      const plaintext = encoder.encode("only for alice\n")
      const { cid } = yield* encrypted(plaintext, "alice.txt")
      const download = yield* Download.Download
      const bytes = yield* download.bytes(cid, { decrypt: { signer: aliceSigner }, verification: "off" })
      assert.deepStrictEqual(bytes, plaintext)
      const paths = log.map((r) => `${r.method} ${r.url.host}${r.url.pathname}`)
      assert.strictEqual(paths.filter((p) => p.includes("/api/retrieveSharedKey/")).length, 3)
      assert.strictEqual(paths.at(-1), `POST gateway.lighthouse.storage/api/v0/cat/${cid}`)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a signer without access gets the key nodes' refusal and nothing is downloaded", () =>
    Effect.gen(function* () {
      const { cid } = yield* encrypted(encoder.encode("not for bob\n"))
      const download = yield* Download.Download
      const dir = yield* tempDir
      const target = nodePath.join(dir, "bob.txt")
      const error = yield* Effect.flip(download.toFile(cid, target, { decrypt: { signer: bobSigner } }))
      assert.strictEqual(error._tag, "AccessDenied")
      assert.isFalse(log.some((r) => r.url.host === "gateway.lighthouse.storage"))
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), [])
    }).pipe(Effect.provide(layer))
  )

  it.effect("a wrong key or altered bytes: DecryptionFailed, no bytes, no file, nothing left behind", () =>
    Effect.gen(function* () {
      const plaintext = big(200 * 1024)
      const { cid } = yield* encrypted(plaintext)
      const download = yield* Download.Download
      const wrongKey = { masterKey: "1".repeat(64) }
      const inMemory = (yield* Effect.flip(download.bytes(cid, { decrypt: wrongKey }))) as DecryptionFailed
      assert.strictEqual(inMemory._tag, "DecryptionFailed")
      assert.strictEqual(
        inMemory.message,
        "Decryption failed: the tag does not verify: wrong key, or the data was altered"
      )

      const dir = yield* tempDir
      const target = nodePath.join(dir, "out.bin")
      yield* Effect.promise(() => fs.writeFile(target, "previous"))
      const onDisk = (yield* Effect.flip(download.toFile(cid, target, { decrypt: wrongKey }))) as DecryptionFailed
      assert.strictEqual(onDisk._tag, "DecryptionFailed")
      // The file that was there is untouched and no temporary file remains.
      assert.strictEqual(yield* Effect.promise(() => fs.readFile(target, "utf8")), "previous")
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), ["out.bin"])

      // A plain file "decrypted" is refused too: its tag cannot verify.
      const upload = yield* Upload.Upload
      const plain = yield* upload.text("plain text, not encrypted, long enough to pass the header\n", {
        apiKey: seed()
      })
      const notEncrypted = yield* Effect.flip(download.bytes(plain.Hash, { decrypt: wrongKey }))
      assert.strictEqual(notEncrypted._tag, "DecryptionFailed")
    }).pipe(Effect.provide(layer))
  )
})

describe("Download time-outs", () => {
  /** Every request is answered at once with headers, then a body that never arrives. */
  const stalling = Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) =>
      Effect.succeed(
        HttpClientResponse.fromWeb(
          request,
          new Response(new ReadableStream<Uint8Array>(), {
            headers: { "content-type": "application/vnd.ipld.car;version=1;order=dfs;dups=y" }
          })
        )
      )
    )
  )
  const stalled = Download.layer.pipe(
    Layer.provide(KeyShards.layer.pipe(Layer.provideMerge(Auth.layer()))),
    Layer.provide(KeyNodes.layer),
    Layer.provideMerge(LighthouseConfig.layer({ transferTimeout: "10 seconds" })),
    Layer.provide(stalling),
    Layer.provide(FileSystem.layerNoop({}))
  )
  const cid = "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"

  it.effect.each([
    ["the IPFS gateway", {}, "https://gateway.lighthouse.storage"],
    ["the Walrus gateway", { storageType: "walrus" as const }, "https://gateway-walrus.lighthouse.storage"],
    ["the caller's gateway", { gateway: "https://mine.example.test" }, "https://mine.example.test"]
  ] as const)("a verified download that stalls names %s", ([, options, gateway]) =>
    Effect.gen(function* () {
      const download = yield* Download.Download
      const fiber = yield* Effect.forkChild(Effect.flip(download.bytes(cid, options)))
      yield* TestClock.adjust("10 seconds")
      const error = yield* Fiber.join(fiber)
      if (error._tag !== "RequestTimedOut") return assert.fail(`expected RequestTimedOut, got ${error._tag}`)
      assert.strictEqual(error.message, "Request timed out")
      assert.strictEqual(error.url, gateway)
      assert.strictEqual(error.timeoutMillis, 10_000)
    }).pipe(Effect.provide(stalled))
  )
})
