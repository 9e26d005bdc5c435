/**
 * Verified by default, against the mock network: downloads come as the gateway's trustless CAR
 * (or raw blocks) and are checked block by block, plain and encrypted (verified, then decrypted),
 * files inside folders, byte ranges; a gateway that cannot answer so is read unverified and the
 * result says so (`if-supported`) or refused (`required`). Uploads compare the node's answer with
 * the CIDs of the bytes sent. Every lie of the local network's hosts (a wrong CID, a flipped byte,
 * another file, a cut answer, a missing or an extra block) is a typed error naming the CID and
 * what was wrong, never wrong bytes, over `fetch` (browsers) and over `node:http`.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { type GatewayLie, GatewayLies } from "lighthouse-effect/mocks"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import type { ContentVerificationFailed } from "../../src/Errors.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, aliceSigner, makeHarness } from "../upload/harness.ts"
import { encodeCar, importDag, trustlessBlocks } from "./fixtures.ts"

const { network, log, layerWith } = makeHarness()
const { Input } = Upload

const GATEWAY = "https://gateway.lighthouse.storage"
const transports = ["fetch", "node:http"] as const
const seed = () => network.seedAccount(alice.address, { apiKey: "verify-key" }).apiKey

/** Bytes that cross several 256 KiB chunks. */
const big = (size: number) => new Uint8Array(size).map((_, i) => (i * 31 + (i >> 9)) & 0xff)

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "verify-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const encryptedUpload = (plaintext: Uint8Array) =>
  Effect.gen(function* () {
    const token = yield* (yield* Auth.Auth).token(aliceSigner)
    const upload = yield* Upload.Upload
    return yield* upload.encryptedFile(Input.bytes(plaintext, "secret.bin"), {
      apiKey: seed(),
      address: alice.address,
      token
    })
  })

const problemOf: Record<GatewayLie, ContentVerificationFailed["problem"]> = {
  "flip-byte": "block-hash-mismatch",
  "drop-block": "missing-block",
  "extra-block": "extra-block",
  "other-file": "unexpected-block",
  truncate: "truncated"
}

describe("verified downloads", () => {
  for (const transport of transports) {
    it.effect(`${transport}: a trustless CAR by default, every block checked; the result says verified`, () =>
      Effect.gen(function* () {
        const content = big(700 * 1024)
        const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey: seed() })
        log.length = 0
        const download = yield* Download.Download
        const retrieved = yield* download.retrieve(entry.Hash)
        assert.deepStrictEqual(retrieved, { bytes: content, verification: { verified: true } })
        const [request] = log
        assert.strictEqual(request!.method, "GET")
        assert.strictEqual(request!.url.href, `${GATEWAY}/ipfs/${entry.Hash}?format=car&dag-scope=entity`)
        assert.strictEqual(request!.headers.accept, "application/vnd.ipld.car; version=1; order=dfs; dups=y")
        const dir = yield* tempDir
        const target = nodePath.join(dir, "out.bin")
        assert.deepStrictEqual(yield* download.toFile(entry.Hash, target), { verified: true })
        assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), content)
        assert.deepStrictEqual(
          Buffer.concat(yield* Stream.runCollect(download.stream(entry.Hash))),
          Buffer.from(content)
        )
      }).pipe(Effect.provide(layerWith({}, transport)))
    )
  }

  it.effect("encrypted: the ciphertext is verified, then decrypted", () =>
    Effect.gen(function* () {
      const plaintext = big(300 * 1024)
      const entry = yield* encryptedUpload(plaintext)
      log.length = 0
      const download = yield* Download.Download
      const retrieved = yield* download.retrieve(entry.Hash, { decrypt: { signer: aliceSigner } })
      assert.deepStrictEqual(retrieved, { bytes: plaintext, verification: { verified: true } })
      assert.isTrue(
        log.some((r) => r.url.pathname === `/ipfs/${entry.Hash}` && r.url.search === "?format=car&dag-scope=entity")
      )
      // A range of the plaintext reads the whole ciphertext (its tag covers it all).
      const part = yield* download.bytes(entry.Hash, {
        decrypt: { signer: aliceSigner },
        range: { offset: 1000, length: 50_000 }
      })
      assert.deepStrictEqual(part, plaintext.subarray(1000, 51_000))
    }).pipe(Effect.provide(layerWith({}, "fetch")))
  )

  it.effect("a file in a folder by its path, and a byte range: only the range's blocks travel", () =>
    Effect.gen(function* () {
      const large = big(900 * 1024)
      const files = [
        Input.bytes(new TextEncoder().encode("<h1>hi</h1>\n"), "site/index.html"),
        Input.bytes(large, "site/media/large.bin")
      ]
      const root = yield* (yield* Upload.Upload).folder(Input.files(files), { apiKey: seed() })
      log.length = 0
      const download = yield* Download.Download
      const range = { offset: 300 * 1024, length: 10 }
      const slice = yield* download.retrieve(root.Hash, { path: "media/large.bin", range })
      assert.deepStrictEqual(slice, {
        bytes: large.subarray(range.offset, range.offset + 10),
        verification: { verified: true }
      })
      assert.strictEqual(
        log[0]!.url.href,
        `${GATEWAY}/ipfs/${root.Hash}/media/large.bin?format=car&dag-scope=entity&entity-bytes=307200%3A307209`
      )
      const index = yield* download.bytes(root.Hash, { path: "index.html" })
      assert.strictEqual(new TextDecoder().decode(index), "<h1>hi</h1>\n")
      const tail = yield* download.bytes(root.Hash, { path: "media/large.bin", range: { offset: 800 * 1024 } })
      assert.deepStrictEqual(tail, large.subarray(800 * 1024))
    }).pipe(Effect.provide(layerWith({}, "node:http")))
  )

  it.effect("raw blocks (`trustless: raw`): one request per block, each checked", () =>
    Effect.gen(function* () {
      const content = big(600 * 1024)
      const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey: seed() })
      log.length = 0
      const download = yield* Download.Download
      assert.deepStrictEqual(yield* download.bytes(entry.Hash, { trustless: "raw" }), content)
      // The root, then its 3 leaves.
      assert.strictEqual(log.length, 4)
      assert.isTrue(log.every((r) => r.method === "GET" && r.url.search === "?format=raw"))
      assert.strictEqual(log[0]!.url.pathname, `/ipfs/${entry.Hash}`)
    }).pipe(Effect.provide(layerWith({}, "fetch")))
  )

  it.effect(
    "a gateway that cannot answer verifiably: refused by default, naming the opt-out; if-supported reads unverified and says so",
    () =>
      Effect.gen(function* () {
        const entry = yield* (yield* Upload.Upload).text("hello\n", { apiKey: seed() })
        network.faults.status({ host: "gateway", path: /^\/ipfs\// }, 406, { body: { error: "no CARs here" } })
        const download = yield* Download.Download
        const unverifiedMessage =
          'The gateway cannot serve verifiable content (406 to ?format=car); pass verification: "if-supported" (CLI: --unverified) to accept unverified bytes'
        for (const options of [undefined, { verification: "required" } as const]) {
          log.length = 0
          const refused = yield* Effect.flip(download.bytes(entry.Hash, options))
          assert.strictEqual(refused._tag, "UnverifiableGateway")
          assert.strictEqual(refused.message, unverifiedMessage)
          // Nothing unverified was asked for.
          assert.isFalse(log.some((request) => request.url.pathname.startsWith("/api/v0/cat/")))
        }
        const rawRefused = yield* Effect.flip(download.bytes(entry.Hash, { trustless: "raw" }))
        assert.strictEqual(
          rawRefused.message,
          'The gateway cannot serve verifiable content (406 to ?format=raw); pass verification: "if-supported" (CLI: --unverified) to accept unverified bytes'
        )
        const fallback = yield* download.retrieve(entry.Hash, { verification: "if-supported" })
        assert.strictEqual(new TextDecoder().decode(fallback.bytes), "hello\n")
        assert.deepStrictEqual(fallback.verification, {
          verified: false,
          reason: 'The gateway cannot serve verifiable content: it answered 406 {"error":"no CARs here"}'
        })
        assert.strictEqual(log.at(-1)!.url.pathname, `/api/v0/cat/${entry.Hash}`)
      }).pipe(Effect.provide(layerWith({}, "fetch")))
  )
})

describe("a lying gateway", () => {
  for (const transport of transports) {
    for (const lie of GatewayLies) {
      it.effect(
        `${transport}, ${lie}: ContentVerificationFailed (${problemOf[lie]}) for plain and encrypted files, no bytes, no file`,
        () =>
          Effect.gen(function* () {
            const plain = yield* (yield* Upload.Upload).buffer(big(600 * 1024), { apiKey: seed() })
            const secret = yield* encryptedUpload(big(300 * 1024))
            network.faults.lie({ host: "gateway", path: /^\/ipfs\// }, lie)
            const download = yield* Download.Download
            const dir = yield* tempDir
            for (const [cid, options] of [
              [plain.Hash, {}],
              [secret.Hash, { decrypt: { signer: aliceSigner } }]
            ] as const) {
              const failed = yield* Effect.flip(download.bytes(cid, options))
              assert.strictEqual(failed._tag, "ContentVerificationFailed")
              const verification = failed as ContentVerificationFailed
              assert.strictEqual(verification.cid, cid)
              assert.strictEqual(verification.problem, problemOf[lie])
              assert.isTrue(verification.message.startsWith(`Content ${cid} failed verification (${problemOf[lie]}): `))
              const target = nodePath.join(dir, "out.bin")
              const onDisk = yield* Effect.flip(download.toFile(cid, target, options))
              assert.strictEqual(onDisk._tag, "ContentVerificationFailed")
              assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), [])
            }
          }).pipe(Effect.provide(layerWith({}, transport)))
      )
    }
  }

  it.effect("verification off: the lie gets through (why it is on by default)", () =>
    Effect.gen(function* () {
      const content = big(300 * 1024)
      const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey: seed() })
      network.faults.lie({ host: "gateway" }, "flip-byte")
      const download = yield* Download.Download
      const unverified = yield* download.bytes(entry.Hash, { verification: "off" })
      assert.strictEqual(unverified.length, content.length)
      assert.notDeepEqual(unverified, content)
    }).pipe(Effect.provide(layerWith({}, "fetch")))
  )
})

describe("verified uploads", () => {
  // Browsers send one Blob over fetch; Node streams over either transport.
  const bodies = [
    ["fetch", "blob"],
    ["fetch", "stream"],
    ["node:http", "stream"]
  ] as const
  for (const [transport, mode] of bodies) {
    it.effect(`${transport}, ${mode} body: a node answering another CID is CidMismatch naming both`, () =>
      Effect.gen(function* () {
        const apiKey = seed()
        const upload = yield* Upload.Upload
        const content = big(400 * 1024)
        const honest = yield* upload.buffer(content, { apiKey, name: "data.bin" })
        network.faults.lie({ host: "node" }, "wrong-cid")
        const lied = yield* Effect.flip(upload.buffer(content, { apiKey, name: "data.bin" }))
        assert.strictEqual(lied._tag, "CidMismatch")
        if (lied._tag !== "CidMismatch") return
        assert.strictEqual(lied.path, "data.bin")
        assert.strictEqual(lied.expected, honest.Hash)
        assert.notStrictEqual(lied.answered, honest.Hash)
        assert.strictEqual(
          lied.message,
          `The node answered CID ${lied.answered} for "data.bin", but the bytes sent have CID ${honest.Hash}`
        )
        // Folders: the root the node answers is checked too.
        const folder = yield* Effect.flip(
          upload.folder(Input.files([Input.bytes(content, "dir/a.bin"), Input.text("b", "dir/b.txt")]), { apiKey })
        )
        assert.strictEqual(folder._tag, "CidMismatch")
        // Encrypted: the CID of the ciphertext; no shards are saved under a CID that does not address it.
        log.length = 0
        const token = yield* (yield* Auth.Auth).token(aliceSigner)
        const secret = yield* Effect.flip(
          upload.encryptedFile(Input.bytes(content, "s.bin"), { apiKey, address: alice.address, token })
        )
        assert.strictEqual(secret._tag, "CidMismatch")
        assert.isFalse(log.some((r) => r.url.pathname.startsWith("/api/setSharedKey/")))
        // `verify: false` takes the node's word.
        const trusted = yield* upload.buffer(content, { apiKey, name: "data.bin", verify: false })
        assert.notStrictEqual(trusted.Hash, honest.Hash)
      }).pipe(Effect.provideService(Upload.BodyMode, mode), Effect.provide(layerWith({}, transport)))
    )
  }

  for (const [transport, mode] of bodies) {
    it.effect(
      `${transport}, ${mode} body: a CAR import answering other roots is CidMismatch; verify: false trusts it`,
      () =>
        Effect.gen(function* () {
          const apiKey = seed()
          const upload = yield* Upload.Upload
          const dag = yield* Effect.promise(() => importDag(big(600 * 1024)))
          const bytes = yield* Effect.promise(() => encodeCar([dag.root], trustlessBlocks(dag)))
          const car = Input.bytes(bytes, "data.car")
          const honest = yield* upload.car(car, { apiKey })
          assert.strictEqual(honest[0]!.Root.Cid["/"], dag.root.toString())
          network.faults.lie({ host: "node" }, "wrong-cid")
          const lied = yield* Effect.flip(upload.car(car, { apiKey }))
          assert.strictEqual(lied._tag, "CidMismatch")
          if (lied._tag !== "CidMismatch") return
          assert.strictEqual(lied.path, "data.car")
          assert.strictEqual(lied.expected, dag.root.toString())
          assert.notStrictEqual(lied.answered, dag.root.toString())
          const trusted = yield* upload.car(car, { apiKey, verify: false })
          assert.notStrictEqual(trusted[0]!.Root.Cid["/"], dag.root.toString())
        }).pipe(Effect.provideService(Upload.BodyMode, mode), Effect.provide(layerWith({}, transport)))
    )
  }

  it.effect("honest answers pass: files, folders (wrapped or not), CID v0 and v1, encrypted", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const upload = yield* Upload.Upload
      const hello = yield* upload.text("hello world\n", { apiKey, cidVersion: 0 })
      assert.strictEqual(hello.Hash, "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
      const files = [Input.bytes(big(300 * 1024), "a/x.bin"), Input.text("y", "b/y.txt")]
      const wrapped = yield* upload.folder(Input.files(files), { apiKey })
      assert.strictEqual(wrapped.Name, "")
      yield* encryptedUpload(big(10_000))
    }).pipe(Effect.provide(layerWith({}, "fetch")))
  )
})
