/**
 * The agents `LighthouseNode.layer` gives Node's HTTP client free a response's buffers once they are dead
 * (`ReleasingAgent.ts`). Freeing a buffer someone still reads would hand them empty bytes, so the
 * tests hold each side of that line over real sockets:
 *
 * - a body in many socket reads arrives whole, and the reads the parser copied from are freed;
 * - each body piece is marked as the response's own (`releaseOwned` frees it), a slice of it not;
 * - the read an upgrade hands on (the bytes after the `101` answer) is not freed;
 * - a download through `LighthouseNode.layer` into a file writes the gateway's bytes, unverified, verified
 *   (its CAR reader freeing what it has read too) and decrypted.
 */
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as Http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll } from "vitest"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import { releaseOwned } from "../../src/internal/OwnedBytes.ts"
import { layerReleasingAgent, READ_BYTES } from "../../src/internal/ReleasingAgent.ts"
import * as LighthouseNode from "../../src/node.ts"
import * as Signer from "../../src/Signer.ts"
import * as Upload from "../../src/Upload.ts"

const MiB = 1024 * 1024
const canFree = "transfer" in ArrayBuffer.prototype
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** A server on a free port answering each request with `answer`; closed with the scope. */
const server = (answer: Http.RequestListener, onUpgrade?: (request: Http.IncomingMessage, socket: Socket) => void) =>
  Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const listening = Http.createServer(answer)
      if (onUpgrade) listening.on("upgrade", (request, socket) => onUpgrade(request, socket as Socket))
      listening.listen(0, "127.0.0.1", () => resume(Effect.succeed(listening)))
    }),
    (listening) =>
      Effect.callback<void>((resume) => {
        listening.closeAllConnections()
        listening.close(() => resume(Effect.void))
      })
  )

const portOf = (listening: Http.Server) => (listening.address() as AddressInfo).port

/** The releasing `http` agent, destroyed with the scope. */
const agent = Effect.map(
  Layer.build(layerReleasingAgent),
  (context) => Context.get(context, NodeHttpClient.HttpAgent).http
)

/** A GET through `agent`; the socket's reads and the body's pieces, kept to look at afterwards. */
const get = (port: number, via: Http.Agent) =>
  Effect.callback<{ reads: Array<Buffer>; pieces: Array<Buffer> }>((resume) => {
    const reads: Array<Buffer> = []
    const pieces: Array<Buffer> = []
    const request = Http.get({ host: "127.0.0.1", port, path: "/", agent: via }, (response) => {
      response.on("data", (piece: Buffer) => pieces.push(piece))
      response.on("end", () => resume(Effect.succeed({ reads, pieces })))
    })
    request.on("socket", (socket) => socket.on("data", (read: Buffer) => reads.push(read)))
    request.on("error", (error) => resume(Effect.die(error)))
  })

describe("ReleasingAgent", () => {
  it.effect("a body in many reads arrives whole, every read into one reused buffer of READ_BYTES", () =>
    Effect.gen(function* () {
      const body = randomBytes(8 * MiB + 4321)
      const listening = yield* server((_, response) => {
        // Written in 64 KiB steps, so the client reads it in many pieces.
        for (let at = 0; at < body.length; at += 64 * 1024) response.write(body.subarray(at, at + 64 * 1024))
        response.end()
      })
      const { reads, pieces } = yield* get(portOf(listening), yield* agent)
      assert.strictEqual(sha256(Buffer.concat(pieces)), sha256(body))
      assert.isAbove(reads.length, 8)
      // The parser copied each body piece out of the read, so the next read could reuse its memory.
      const memory = new Set(reads.map((read) => read.buffer))
      assert.strictEqual(memory.size, 1)
      assert.strictEqual(reads[0]!.buffer.byteLength, READ_BYTES)
    }).pipe(Effect.scoped)
  )

  it.effect.skipIf(!canFree)("marks each body piece as the response's own, never a slice of one", () =>
    Effect.gen(function* () {
      const body = randomBytes(MiB)
      const listening = yield* server((_, response) => response.end(body))
      const { pieces } = yield* get(portOf(listening), yield* agent)
      assert.strictEqual(sha256(Buffer.concat(pieces)), sha256(body))
      const [first, ...rest] = pieces
      const slice = first!.subarray(1)
      releaseOwned(slice)
      assert.strictEqual(first!.byteLength > 0 && slice.byteLength > 0, true, "a slice is not freed")
      for (const piece of pieces) releaseOwned(piece)
      assert.deepStrictEqual(
        [first!, ...rest].map((piece) => piece.byteLength),
        pieces.map(() => 0)
      )
    }).pipe(Effect.scoped)
  )

  it.effect("leaves the read an upgrade hands on: the bytes after the 101 answer stay whole", () =>
    Effect.gen(function* () {
      const after = randomBytes(32 * 1024)
      const listening = yield* server(
        (_, response) => response.end(),
        (_, socket) => {
          // The answer and the first bytes of the new protocol in one write, so in one read.
          socket.end(
            Buffer.concat([
              Buffer.from("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n"),
              after
            ])
          )
        }
      )
      const via = yield* agent
      const head = yield* Effect.callback<Buffer>((resume) => {
        const request = Http.request({
          host: "127.0.0.1",
          port: portOf(listening),
          agent: via,
          headers: { connection: "Upgrade", upgrade: "test" }
        })
        request.on("upgrade", (_, socket, head: Buffer) => {
          socket.destroy()
          // Looked at once the read's listeners have all run.
          setImmediate(() => resume(Effect.succeed(head)))
        })
        request.on("error", (error) => resume(Effect.die(error)))
        request.end()
      })
      assert.strictEqual(sha256(head), sha256(after))
    }).pipe(Effect.scoped)
  )
})

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork()
})
afterAll(() => served.close())

describe("a download through LighthouseNode.layer's releasing agent", () => {
  const owner = privateKeyToAccount("0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba")

  it.live(
    "writes the gateway's bytes into the file: unverified, CAR-verified and decrypted",
    () =>
      Effect.gen(function* () {
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "releasing-agent-"))),
          (made) => Effect.promise(() => fs.rm(made, { recursive: true, force: true }))
        )
        // Past the 16 MiB after which the CAR reader frees what it has read.
        const content = randomBytes(20 * MiB + 777)
        const { apiKey } = served.network.seedAccount(owner.address, { dataLimit: 1024 * MiB })
        const upload = yield* Upload.Upload
        const download = yield* Download.Download
        const { Hash } = yield* upload.buffer(content, { apiKey })
        for (const verification of ["off", "required"] as const) {
          const out = nodePath.join(dir, `${verification}.bin`)
          yield* download.toFile(Hash, out, { verification })
          assert.strictEqual(sha256(yield* Effect.promise(() => fs.readFile(out))), sha256(content), verification)
        }
        const signer = Signer.makeFromAccount(owner)
        const token = yield* Effect.flatMap(Effect.service(Auth.Auth), (auth) => auth.token(signer))
        const sealed = yield* upload.encryptedText(content.toString("base64"), {
          apiKey,
          address: owner.address,
          token
        })
        const out = nodePath.join(dir, "decrypted.txt")
        yield* download.toFile(sealed.Hash, out, { decrypt: { signer } })
        assert.strictEqual(yield* Effect.promise(() => fs.readFile(out, "utf8")), content.toString("base64"))
      }).pipe(Effect.scoped, Effect.provide(LighthouseNode.layer({ hosts: served.urls }))),
    60_000
  )
})
