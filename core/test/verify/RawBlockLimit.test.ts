/**
 * A raw block answered without `Content-Length` is read as it streams and refused once it passes
 * the largest block size (2 MiB), not read whole: a gateway over real loopback sockets answers
 * `?format=raw` with a chunked 256 MiB body, and counts what the client let it send before the
 * connection was dropped (the count is the server's, not a time).
 */
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Download } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"

const MiB = 1024 * 1024
const ANSWER = 256 * MiB
const CHUNK = new Uint8Array(64 * 1024).fill(7)

/** Writes chunks until `total` bytes went out or the connection closed; resolves with the bytes the socket took. */
const pour = (response: ServerResponse, total: number) =>
  new Promise<number>((resolve) => {
    let sent = 0
    let closed = false
    response.once("close", () => {
      closed = true
      resolve(sent)
    })
    const more = () => {
      while (!closed && sent < total) {
        sent += CHUNK.length
        if (!response.write(CHUNK)) return void response.once("drain", more)
      }
      if (!closed) response.end()
    }
    more()
  })

/** A gateway answering every `?format=raw` with `ANSWER` chunked bytes; `served` resolves with what it sent. */
const endlessGateway = Effect.acquireRelease(
  Effect.promise(async () => {
    let served!: Promise<number>
    const server = createServer((request, response) => {
      if (!(request.url ?? "").includes("format=raw")) return void response.writeHead(406).end()
      // No Content-Length: Node sends the body chunked.
      response.writeHead(200, { "content-type": "application/vnd.ipld.raw" })
      served = pour(response, ANSWER)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return { server, url, served: () => served }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

describe("a raw block without Content-Length", () => {
  it.live("a chunked 256 MiB answer fails as block-too-large, and the client reads little more than 2 MiB of it", () =>
    Effect.gen(function* () {
      const gateway = yield* endlessGateway
      const cid = CID.createV1(raw.code, yield* Effect.promise(async () => sha256.digest(new Uint8Array([1, 2, 3]))))
      const failed = yield* Effect.flip(
        Download.Download.use((download) => download.bytes(cid.toString(), { trustless: "raw" })).pipe(
          Effect.provide(LighthouseNode.layer({ hosts: { gateway: gateway.url } }))
        )
      )
      assert.strictEqual(failed._tag, "ContentVerificationFailed")
      assert.strictEqual(
        failed.message,
        `Content ${cid} failed verification (block-too-large): block ${cid} is answered with more than ${2 * MiB} bytes`
      )
      const served = yield* Effect.promise(() => gateway.served())
      // 2 MiB read, plus what the sockets' buffers hold; the whole answer is 256 MiB.
      assert.isAtMost(served, 16 * MiB)
    }).pipe(Effect.scoped)
  )
})
