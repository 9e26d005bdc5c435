/**
 * Reused file reads (`Upload.FileReads` `reused`, what `LighthouseNode.layer` sets on Node): a file on disk is
 * read into two buffers in turn, so an upload allocates nothing per read. Right only while the
 * transport is done with a chunk once it has pulled the next one; these tests hold that promise.
 *
 * - The reads give the file's bytes, and do reuse their two buffers (sizes around the 1 MiB read).
 * - Over real sockets, through a proxy that reads the upload slowly (so Node takes the writes in
 *   part, the case where a chunk is still held when the next is pulled), the bytes the node stores
 *   are the file's: a plain upload not verified (nothing else would notice) and an encrypted one,
 *   each read back through the gateway.
 */
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import { connect, createServer, type Server, type Socket } from "node:net"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Stream } from "effect"
import * as fc from "fast-check"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll } from "vitest"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import * as LighthouseNode from "../../src/node.ts"
import * as Signer from "../../src/Signer.ts"
import * as Upload from "../../src/Upload.ts"
import { reusedReads } from "../../src/upload/Plan.ts"

const MiB = 1024 * 1024

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "reused-reads-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

describe("reusedReads", () => {
  it.effect("gives the file's bytes, read into two buffers taken in turn", () =>
    Effect.gen(function* () {
      const fileSystem = yield* FileSystem.FileSystem
      const dir = yield* tempDir
      const sizes = fc.oneof(
        fc.constantFrom(0, 1, MiB - 1, MiB, MiB + 1, 2 * MiB, 3 * MiB + 7),
        fc.integer({ min: 0, max: 4 * MiB })
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(sizes, async (size) => {
            const path = nodePath.join(dir, `file-${size}.bin`)
            const content = randomBytes(size)
            await fs.writeFile(path, content)
            const received = new Uint8Array(size)
            const buffers: Array<ArrayBufferLike> = []
            let offset = 0
            await Effect.runPromise(
              Stream.runForEach(reusedReads(fileSystem, path), (chunk) =>
                Effect.sync(() => {
                  // Taken at once, as the transport does: the buffer is read into again two pulls later.
                  received.set(chunk, offset)
                  offset += chunk.length
                  buffers.push(chunk.buffer)
                })
              )
            )
            assert.strictEqual(offset, size)
            assert.strictEqual(sha256(received), sha256(content))
            assert.isAtMost(new Set(buffers).size, 2)
            // Each chunk is in the buffer of the chunk before last.
            for (let i = 2; i < buffers.length; i++) assert.strictEqual(buffers[i], buffers[i - 2])
            await fs.rm(path)
          }),
          { numRuns: 12 }
        )
      )
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})

/**
 * A TCP proxy to `target` that reads what the client sends in small steps with pauses in between:
 * the client's socket buffers fill, and Node takes the upload's 1 MiB writes in part.
 */
const slowProxy = (target: URL): Server =>
  createServer((client: Socket) => {
    const upstream = connect(Number(target.port), target.hostname)
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk)
      client.pause()
      setTimeout(() => client.resume(), 1)
    })
    client.on("end", () => upstream.end())
    upstream.pipe(client)
  })

let served: ServedMockNetwork
let proxy: Server
let proxyUrl: string

beforeAll(async () => {
  served = await serveMockNetwork()
  proxy = slowProxy(new URL(served.urls.node))
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  const address = proxy.address()
  if (address === null || typeof address === "string") throw new Error("the proxy has no port")
  proxyUrl = `http://127.0.0.1:${address.port}`
})
afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()))
  await served.close()
})

describe("uploads of files read into reused buffers, over LighthouseNode.layer, through a slow proxy", () => {
  const owner = privateKeyToAccount("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6")
  const signer = Signer.makeFromAccount(owner)
  const withLayer = <A, E>(effect: Effect.Effect<A, E, Upload.Upload | Download.Download | Auth.Auth>) =>
    Effect.provide(effect, LighthouseNode.layer({ hosts: { ...served.urls, node: proxyUrl } }))

  it.live(
    "store the file's bytes, plain (not verified) and encrypted",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const path = nodePath.join(dir, "upload.bin")
        // Far more than the socket buffers between client and proxy take in.
        const content = randomBytes(8 * MiB + 12_345)
        yield* Effect.promise(() => fs.writeFile(path, content))
        const { apiKey } = served.network.seedAccount(owner.address, { dataLimit: 1024 * MiB })
        const upload = yield* Upload.Upload
        const download = yield* Download.Download
        const plain = yield* upload.file(Upload.Input.path(path), { apiKey, verify: false })
        const stored = yield* download.bytes(plain.Hash, { verification: "required" })
        assert.strictEqual(sha256(stored), sha256(content))

        const token = yield* Effect.flatMap(Effect.service(Auth.Auth), (auth) => auth.token(signer))
        const sealed = yield* upload.encryptedFile(Upload.Input.path(path), { apiKey, address: owner.address, token })
        const decrypted = yield* download.bytes(sealed.Hash, { decrypt: { signer } })
        assert.strictEqual(sha256(decrypted), sha256(content))
      }).pipe(Effect.scoped, withLayer),
    60_000
  )
})
