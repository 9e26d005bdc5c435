/**
 * An upload node that answers early and resets the connection at once, instead of reading on as
 * the served network and real servers do, can destroy its own answer: the caller then gets
 * `UploadConnectionReset`, whose message says so, rather than a bare `Network error`, over
 * `node:http` and `fetch`, through the Effect API and the Promise facade alike. Whether an answer
 * written just before the reset survives it is a race the client cannot win every time (undici
 * sometimes reads it), so the node here resets without one: what a client sees when it lost it.
 */
import { createServer, type Server, type Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import type { UploadConnectionReset } from "../../src/Errors.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as LighthouseNode from "../../src/node.ts"
import { createLighthouseNode } from "../../src/node.ts"
import { createLighthouse } from "../../src/promise.ts"
import * as Upload from "../../src/Upload.ts"

const MiB = 1024 * 1024
// Far more than the socket buffers on both ends take in before the node answers.
const BODY = new Uint8Array(48 * MiB).fill(1)

let server: Server
let url: string
let requests = 0

/** Reads a request's head, then resets the connection with the body still coming. */
const answerAndReset = (socket: Socket) => {
  let head = ""
  socket.on("error", () => {})
  socket.on("data", (chunk: Buffer) => {
    if (head.includes("\r\n\r\n")) return
    head += chunk.toString("latin1")
    if (!head.includes("\r\n\r\n")) return
    requests++
    socket.resetAndDestroy()
  })
}

beforeAll(async () => {
  server = createServer(answerAndReset)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the test server has no port")
  url = `http://127.0.0.1:${address.port}`
})
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const MESSAGE =
  /^The upload node reset the connection before its answer was read \((EPIPE|ECONNRESET|UND_ERR_SOCKET)\): an answer given while the upload was being sent, such as a refusal \(401, 402 over the quota, 413\), is lost with it$/

const checkError = (error: unknown) => {
  const reset = error as UploadConnectionReset
  assert.strictEqual(reset._tag, "UploadConnectionReset")
  assert.strictEqual(
    reset.url,
    `${url}/api/v0/add?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false`
  )
  assert.match(reset.message, MESSAGE)
  assert.match(reset.code, /^(EPIPE|ECONNRESET|UND_ERR_SOCKET)$/)
}

const transports: ReadonlyArray<{
  readonly name: string
  readonly layer: () => Layer.Layer<Upload.Upload>
  readonly client: () => ReturnType<typeof createLighthouse>
}> = [
  {
    name: "node:http",
    layer: () => LighthouseNode.layer({ hosts: { node: url } }) as Layer.Layer<Upload.Upload>,
    client: () => createLighthouseNode({ hosts: { node: url } })
  },
  {
    name: "fetch",
    layer: () => Lighthouse.layer({ hosts: { node: url } }) as Layer.Layer<Upload.Upload>,
    client: () => createLighthouse({ hosts: { node: url } })
  }
]

for (const transport of transports) {
  describe(`an early answer lost to a reset, over ${transport.name}`, () => {
    it.effect("Effect API: UploadConnectionReset, saying the answer was lost with the connection", () =>
      Effect.gen(function* () {
        const before = requests
        const upload = yield* Upload.Upload
        const error = yield* Effect.flip(upload.buffer(BODY, { apiKey: "key", name: "big.bin" }))
        checkError(error)
        assert.strictEqual(requests, before + 1)
      }).pipe(Effect.provide(transport.layer()))
    )

    it("Promise facade: UploadConnectionReset, saying the answer was lost with the connection", async () => {
      const lighthouse = transport.client()
      try {
        const error = await lighthouse.upload.buffer(BODY, { apiKey: "key", name: "big.bin" }).then(
          () => undefined,
          (e: unknown) => e
        )
        checkError(error)
      } finally {
        await lighthouse.dispose()
      }
    })
  })
}
