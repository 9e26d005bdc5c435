/**
 * Cancelling an upload against the mock network in this process (msw), where no socket makes the
 * body wait for I/O: an abort (Promise facade) or an interruption or time-out (Effect API) stops
 * the upload within a chunk of the body, the call fails with the library's error, and the network
 * keeps nothing. The abort comes from a timer (a macrotask) set when the transport pulls the
 * first chunk: it can only fire if the upload gives the event loop a turn.
 */
import { assert, describe as describeEffect, it as itEffect } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Errors from "../src/Errors.ts"
import * as LighthouseNode from "../src/LighthouseNode.ts"
import { createLighthouseNode } from "../src/node.ts"
import { createLighthouse, type LighthouseClient } from "../src/promise.ts"
import * as Upload from "../src/Upload.ts"

const CHUNK = 64 * 1024
/** 16 MiB: far more than the few chunks a cancelled upload may send. */
const CHUNKS = 256

const owner = privateKeyToAccount(generatePrivateKey())
let mock: RunningMockNetwork
let apiKey: string

beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error" })
})
afterAll(() => mock.close())
beforeEach(() => {
  mock.network.reset()
  apiKey = mock.network.seedAccount(owner.address, { dataLimit: 1024 * 1024 * 1024 }).apiKey
})

/**
 * A 16 MiB body, one 64 KiB chunk per read (no read-ahead), counting the chunks the transport
 * pulled; `onFirst` runs when it pulls the first.
 */
const countedBody = (onFirst: () => void) => {
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      pull: (controller) => {
        if (pulled === CHUNKS) return controller.close()
        pulled++
        if (pulled === 1) onFirst()
        controller.enqueue(new Uint8Array(CHUNK).fill(pulled % 251))
      }
    },
    { highWaterMark: 0 }
  )
  return { input: Upload.Input.stream(stream, { name: "large.bin", size: CHUNKS * CHUNK }), pulled: () => pulled }
}

/** A few turns of the event loop, for a stopped upload to show it stays stopped. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

const nothingKept = () => {
  const address = owner.address.toLowerCase()
  expect(mock.network.state.files.of(address)).toEqual([])
  expect(mock.network.state.accounts.get(address)!.dataUsed).toBe(0)
}

describe.each([
  ["node:http", () => createLighthouseNode()],
  ["fetch", () => createLighthouse()]
] as const)("Promise facade over %s, in process: an AbortSignal", (_transport, make) => {
  let lighthouse: LighthouseClient
  beforeAll(() => {
    lighthouse = make()
  })
  afterAll(() => lighthouse.dispose())

  it("an abort from a timer stops the upload within a chunk: it rejects with Aborted and nothing is kept", async () => {
    const controller = new AbortController()
    let pulledAtAbort = 0
    const body = countedBody(() =>
      setTimeout(() => {
        pulledAtAbort = body.pulled()
        controller.abort()
      }, 0)
    )
    const failure = await lighthouse.upload.file(body.input, { apiKey }, { signal: controller.signal }).then(
      () => "resolved",
      (error: unknown) => error
    )
    expect(failure).toBeInstanceOf(Errors.Aborted)
    expect(failure).toMatchObject({ _tag: "Aborted", message: "This operation was aborted" })
    expect(pulledAtAbort).toBeGreaterThan(0)
    expect(pulledAtAbort).toBeLessThan(CHUNKS)
    await turns(20)
    expect(body.pulled() - pulledAtAbort).toBeLessThanOrEqual(1)
    nothingKept()
  })
})

describeEffect("Effect API over node:http, in process", () => {
  /** Forks `upload.file` of a counted body; resolves once the transport has pulled its first chunk. */
  const forkUpload = <A, E>(
    run: (upload: Upload.Upload["Service"], input: Upload.Input.FileInput) => Effect.Effect<A, E>
  ) =>
    Effect.gen(function* () {
      const upload = yield* Upload.Upload
      const started = yield* Deferred.make<void>()
      const body = countedBody(() => Deferred.doneUnsafe(started, Exit.void))
      const fiber = yield* Effect.forkChild(run(upload, body.input))
      yield* Deferred.await(started)
      return { fiber, pulled: body.pulled }
    })

  itEffect.effect("Fiber.interrupt from a timer stops the upload within a chunk, and nothing is kept", () =>
    Effect.gen(function* () {
      const { fiber, pulled } = yield* forkUpload((upload, input) => upload.file(input, { apiKey }))
      // The interrupting fiber wakes on a timer, as one racing the upload against a deadline would.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 0)))
      const pulledAtInterrupt = pulled()
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.isBelow(pulledAtInterrupt, CHUNKS)
      yield* Effect.promise(() => turns(20))
      assert.isAtMost(pulled() - pulledAtInterrupt, 1)
      nothingKept()
    }).pipe(Effect.provide(LighthouseNode.layer()))
  )

  itEffect.effect("Effect.timeout on the TestClock ends the upload with a TimeoutError, and nothing is kept", () =>
    Effect.gen(function* () {
      const { fiber, pulled } = yield* forkUpload((upload, input) =>
        upload.file(input, { apiKey }).pipe(Effect.timeout("1 second"))
      )
      yield* TestClock.adjust("1 second")
      const pulledAtTimeout = pulled()
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.isTrue(Cause.isTimeoutError(error))
      assert.isBelow(pulledAtTimeout, CHUNKS)
      yield* Effect.promise(() => turns(20))
      assert.isAtMost(pulled() - pulledAtTimeout, 1)
      nothingKept()
    }).pipe(Effect.provide(LighthouseNode.layer()))
  )
})
