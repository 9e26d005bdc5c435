/**
 * Early answers over real sockets: the upload node answers (401, 402 past the quota, 413, 503)
 * before it has read the request body, and the caller gets that answer, typed, with the node's
 * message, over `node:http` and `fetch`, through the Effect API and the Promise facade alike;
 * nothing is recorded. The served network keeps reading after an early answer, as real servers
 * do, so the answer is not lost to a reset.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import type { RequestFailed, UploadRejected } from "../src/Errors.ts"
import * as Lighthouse from "../src/Lighthouse.ts"
import { createLighthouseNode, layerNode } from "../src/node.ts"
import { createLighthouse } from "../src/promise.ts"
import * as Upload from "../src/Upload.ts"

const owner = privateKeyToAccount(generatePrivateKey())
const MiB = 1024 * 1024
// Far more than the socket buffers on both ends take in before the node answers.
const BODY = new Uint8Array(48 * MiB).fill(1)
let served: ServedMockNetwork

beforeAll(async () => {
  served = await serveMockNetwork()
})
afterAll(async () => {
  await served.close()
})

interface Case {
  readonly status: number
  readonly message: string
  readonly tag: "UploadRejected" | "RequestFailed"
  /** Sets the network up; answers the API key to upload with. */
  readonly arrange: () => string
}

const fresh = (dataLimit = 1024 * MiB) => {
  served.network.reset()
  return served.network.seedAccount(owner.address, { dataLimit }).apiKey
}

const cases: ReadonlyArray<Case> = [
  {
    status: 401,
    tag: "UploadRejected",
    message: "Authentication failed",
    arrange: () => {
      fresh()
      return "wrong-key"
    }
  },
  {
    status: 402,
    tag: "UploadRejected",
    message: "Storage quota exceeded: 0 of 1048576 bytes used, this upload needs more than the 1048576 left",
    arrange: () => fresh(MiB)
  },
  {
    status: 413,
    tag: "UploadRejected",
    message: "request body larger than 1 MiB",
    arrange: () => {
      const apiKey = fresh()
      served.network.faults.status({ host: "node" }, 413, { body: { error: "request body larger than 1 MiB" } })
      return apiKey
    }
  },
  {
    status: 503,
    tag: "RequestFailed",
    message: "Request failed with status code 503",
    arrange: () => {
      const apiKey = fresh()
      served.network.faults.status({ host: "node" }, 503, { body: "maintenance" })
      return apiKey
    }
  }
]

const nothingRecorded = () => {
  assert.strictEqual(served.network.state.files.of(owner.address.toLowerCase()).length, 0)
  served.network.faults.clear()
}

const checkError = (error: unknown, c: Case) => {
  const typed = error as UploadRejected | RequestFailed
  assert.strictEqual(typed._tag, c.tag)
  assert.strictEqual(typed.status, c.status)
  assert.strictEqual(typed.message, c.message)
}

const transports: ReadonlyArray<{
  readonly name: string
  readonly layer: () => Layer.Layer<Upload.Upload>
  readonly client: () => ReturnType<typeof createLighthouse>
}> = [
  {
    name: "node:http",
    layer: () => layerNode({ hosts: served.urls }) as Layer.Layer<Upload.Upload>,
    client: () => createLighthouseNode({ hosts: served.urls })
  },
  {
    name: "fetch",
    layer: () => Lighthouse.layerBrowser({ hosts: served.urls }) as Layer.Layer<Upload.Upload>,
    client: () => createLighthouse({ hosts: served.urls })
  }
]

for (const transport of transports) {
  describe(`early answers over ${transport.name}`, () => {
    for (const c of cases) {
      it.effect(`Effect API: ${c.status} before the body is sent is the node's answer`, () =>
        Effect.gen(function* () {
          const apiKey = c.arrange()
          const upload = yield* Upload.Upload
          const error = yield* Effect.flip(upload.buffer(BODY, { apiKey, name: "big.bin" }))
          checkError(error, c)
          nothingRecorded()
        }).pipe(Effect.provide(transport.layer()))
      )

      it(`Promise facade: ${c.status} before the body is sent is the node's answer`, async () => {
        const apiKey = c.arrange()
        const lighthouse = transport.client()
        try {
          const error = await lighthouse.upload.buffer(BODY, { apiKey, name: "big.bin" }).then(
            () => undefined,
            (e: unknown) => e
          )
          checkError(error, c)
          nothingRecorded()
        } finally {
          await lighthouse.dispose()
        }
      })
    }
  })
}
