/**
 * Early answers: the upload node answers (401, 402 past the quota, 413, 503) before it has read
 * the request body, and the caller gets that answer, typed, with the node's message, over
 * `node:http` and `fetch`, through the Effect API and the Promise facade alike; nothing is
 * recorded. The served network runs in a process of its own, so the client's writes do not share
 * its event loop: this holds only because the network reads on after an early answer; were it to
 * reset the connection, the answer would be lost under the body still being written
 * (`UploadConnectionReset`). With the network in the test's own process the same cases pass even
 * against a network that resets, so they are not run that way.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll } from "vitest"
import type { RequestFailed, UploadRejected } from "../src/Errors.ts"
import * as Lighthouse from "../src/Lighthouse.ts"
import * as LighthouseNode from "../src/node.ts"
import { createLighthouseNode } from "../src/node.ts"
import { createLighthouse } from "../src/promise.ts"
import * as Upload from "../src/Upload.ts"
import { type ServedProcess, startServedProcess } from "./support/servedProcess.ts"

const owner = privateKeyToAccount(generatePrivateKey())
const MiB = 1024 * 1024
// Far more than the socket buffers on both ends take in before the node answers.
const BODY = new Uint8Array(48 * MiB).fill(1)
let served: ServedProcess

beforeAll(async () => {
  served = await startServedProcess()
}, 60_000)
afterAll(async () => {
  await served.close()
})

interface Case {
  readonly status: number
  readonly message: string
  readonly tag: "UploadRejected" | "RequestFailed"
  /** Sets the network up; answers the API key to upload with. */
  readonly arrange: () => Promise<string>
}

const fresh = async (dataLimit = 1024 * MiB) => (await served.command(`seed ${owner.address} ${dataLimit}`)) as string

const cases: ReadonlyArray<Case> = [
  {
    status: 401,
    tag: "UploadRejected",
    message: "Authentication failed",
    arrange: async () => {
      await fresh()
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
    arrange: async () => {
      const apiKey = await fresh()
      await served.command(`fault 413 ${JSON.stringify({ error: "request body larger than 1 MiB" })}`)
      return apiKey
    }
  },
  {
    status: 503,
    tag: "RequestFailed",
    message: "Request failed with status code 503",
    arrange: async () => {
      const apiKey = await fresh()
      await served.command(`fault 503 ${JSON.stringify("maintenance")}`)
      return apiKey
    }
  }
]

const checkError = async (error: unknown, c: Case) => {
  const typed = error as UploadRejected | RequestFailed
  assert.strictEqual(typed._tag, c.tag)
  assert.strictEqual(typed.status, c.status)
  assert.strictEqual(typed.message, c.message)
  assert.strictEqual(await served.command(`files ${owner.address}`), 0)
}

const transports: ReadonlyArray<{
  readonly name: string
  readonly layer: () => Layer.Layer<Upload.Upload>
  readonly client: () => ReturnType<typeof createLighthouse>
}> = [
  {
    name: "node:http",
    layer: () => LighthouseNode.layer({ hosts: served.urls }) as Layer.Layer<Upload.Upload>,
    client: () => createLighthouseNode({ hosts: served.urls })
  },
  {
    name: "fetch",
    layer: () => Lighthouse.layer({ hosts: served.urls }) as Layer.Layer<Upload.Upload>,
    client: () => createLighthouse({ hosts: served.urls })
  }
]

const uploadThroughFacade = async (client: ReturnType<typeof createLighthouse>, apiKey: string) => {
  try {
    return await client.upload.buffer(BODY, { apiKey, name: "big.bin" }).then(
      () => undefined,
      (e: unknown) => e
    )
  } finally {
    await client.dispose()
  }
}

for (const transport of transports) {
  describe(`early answers from a network in another process, over ${transport.name}`, () => {
    for (const c of cases) {
      it.effect(`Effect API: ${c.status} before the body is sent is the node's answer`, () =>
        Effect.gen(function* () {
          const apiKey = yield* Effect.promise(c.arrange)
          const upload = yield* Upload.Upload
          const error = yield* Effect.flip(upload.buffer(BODY, { apiKey, name: "big.bin" }))
          yield* Effect.promise(() => checkError(error, c))
        }).pipe(Effect.provide(transport.layer()))
      )

      it(`Promise facade: ${c.status} before the body is sent is the node's answer`, async () => {
        const apiKey = await c.arrange()
        await checkError(await uploadThroughFacade(transport.client(), apiKey), c)
      })
    }
  })
}
