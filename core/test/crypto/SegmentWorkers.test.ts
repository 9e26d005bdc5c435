/**
 * The web path's streams with their segments in Workers (`SegmentWorkers.ts`): the Worker's own
 * inlined script, run in Node's worker threads behind the browser's `Worker` interface (a Blob
 * URL, `postMessage` with transfer, `terminate`), gives `node:crypto`'s bytes for any input and
 * cut, across Worker replacements; the Workers are gone when the stream ends, however it ends;
 * and where a Worker cannot start, the in-page cipher gives the same bytes.
 */
import { resolveObjectURL } from "node:buffer"
import { Worker as Thread } from "node:worker_threads"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema, Stream } from "effect"
import { decryptStreamUnverifiedIn, encryptStreamIn } from "../../src/crypto/FileCipherWeb.ts"
import { HEADER_LENGTH } from "../../src/crypto/FileFormat.ts"
import { collect, cutInto, fileKey, IV, nodeSealed, patterned, TAG_MISMATCH } from "../support/webCipher.ts"

// =============================================================================
// The browser's Worker over Node's worker threads
// =============================================================================

/** Runs the Blob's script as a classic Worker would: `onmessage` and `postMessage` as globals. */
const BOOT = `
const { parentPort } = require("node:worker_threads")
globalThis.postMessage = (message, transfer) => parentPort.postMessage(message, transfer)
parentPort.once("message", (source) => {
  ;(0, eval)(source)
  parentPort.on("message", (data) => globalThis.onmessage({ data }))
})
`

/** Every Worker made, and whether each has been terminated. */
const made: Array<{ terminated: boolean }> = []

class ThreadWorker {
  onmessage: ((event: { data: unknown }) => void) | null = null
  onerror: ((event: { message: string; preventDefault: () => void }) => void) | null = null
  readonly #thread = new Thread(BOOT, { eval: true })
  readonly #loaded: Promise<void>
  readonly #record = { terminated: false }

  constructor(url: string) {
    made.push(this.#record)
    this.#thread.on("message", (data) => this.onmessage?.({ data }))
    this.#thread.on("error", (error) => this.onerror?.({ message: error.message, preventDefault: () => {} }))
    this.#loaded = resolveObjectURL(url)!
      .text()
      .then((source) => this.#thread.postMessage(source))
  }

  postMessage(message: unknown, transfer?: ReadonlyArray<ArrayBuffer>) {
    void this.#loaded.then(() => this.#thread.postMessage(message, transfer as Array<ArrayBuffer>))
  }

  terminate() {
    this.#record.terminated = true
    void this.#thread.terminate()
  }
}

/** A Worker whose script is refused (as under a Content-Security-Policy without `blob:`). */
class RefusedWorker {
  onmessage: ((event: { data: unknown }) => void) | null = null
  onerror: ((event: { message: string; preventDefault: () => void }) => void) | null = null
  readonly #record = { terminated: false }
  constructor() {
    made.push(this.#record)
    queueMicrotask(() => this.onerror?.({ message: "refused", preventDefault: () => {} }))
  }
  postMessage() {}
  terminate() {
    this.#record.terminated = true
  }
}

const withWorker = <A, E>(worker: unknown, effect: Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      made.length = 0
      ;(globalThis as { Worker?: unknown }).Worker = worker
    }),
    () => effect,
    () => Effect.sync(() => delete (globalThis as { Worker?: unknown }).Worker)
  )

afterEach(() => {
  delete (globalThis as { Worker?: unknown }).Worker
})

const int = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
const arrayOf = <A>(item: Arbitrary.Arbitrary<A>, maxLength: number) =>
  int(0, maxLength).pipe(Arbitrary.flatMap((n) => Arbitrary.array(item, { minLength: n, maxLength: n })))
const sizes = arrayOf(int(0, 100), 6)
const segments = Arbitrary.schema(Schema.Literals([16, 32, 64]))

describe("FileCipherWeb streams in Workers", () => {
  it.effect.prop(
    "give node:crypto's bytes and round-trip, for any length, cut, segment and Worker count, across replacements",
    [int(0, 700), segments, int(1, 2), sizes, sizes],
    ([length, segment, workers, plainCuts, sealedCuts]) =>
      withWorker(
        ThreadWorker,
        Effect.gen(function* () {
          // A Worker is replaced after every 3 segments it is given.
          const setup = { workers, recycleBytes: 3 * segment }
          const plaintext = patterned(length, segment + length)
          const sealed = yield* collect(
            cutInto(plaintext, plainCuts).pipe(encryptStreamIn(segment, fileKey, { iv: IV }, setup))
          )
          assert.deepStrictEqual(sealed, nodeSealed(plaintext))
          const opened = yield* collect(
            cutInto(sealed, sealedCuts).pipe(decryptStreamUnverifiedIn(segment, fileKey, setup))
          )
          assert.deepStrictEqual(opened, plaintext)
          // Files longer than one segment went through Workers, replaced as they were used up.
          const full = Math.ceil(length / segment) - 1
          if (full >= 1) assert.isAtLeast(made.length, 2 * Math.min(workers, full))
          if (full > 3 * workers) assert.isAbove(made.length, 2 * workers)
          assert.deepStrictEqual(
            made.map((w) => w.terminated),
            made.map(() => true)
          )
        })
      ),
    { timeout: 120_000, arbitrary: { runs: 25 } }
  )

  it.effect("an altered file fails with DecryptionFailed, and the Workers are terminated", () =>
    withWorker(
      ThreadWorker,
      Effect.gen(function* () {
        const sealed = nodeSealed(patterned(1000, 7))
        sealed[HEADER_LENGTH + 500]! ^= 4
        const error = yield* Effect.flip(
          Stream.runDrain(cutInto(sealed, [100]).pipe(decryptStreamUnverifiedIn(64, fileKey, { workers: 2 })))
        )
        assert.strictEqual(error.message, TAG_MISMATCH)
        assert.strictEqual(made.length, 2)
        assert.isTrue(made.every((w) => w.terminated))
      })
    )
  )

  it.effect("a stream interrupted midway terminates its Workers", () =>
    withWorker(
      ThreadWorker,
      Effect.gen(function* () {
        const plaintext = patterned(4096, 3)
        const taken = yield* Stream.runCollect(
          cutInto(plaintext, [64]).pipe(encryptStreamIn(64, fileKey, { iv: IV }, { workers: 2 }), Stream.take(3))
        )
        assert.strictEqual(taken.length, 3)
        assert.strictEqual(made.length, 2)
        assert.isTrue(made.every((w) => w.terminated))
      })
    )
  )

  it.effect("where a Worker is refused or cannot be made, the in-page cipher gives the same bytes", () =>
    Effect.gen(function* () {
      const plaintext = patterned(1000, 11)
      for (const worker of [
        RefusedWorker,
        class {
          constructor() {
            throw new Error("no workers here")
          }
        }
      ]) {
        const sealed = yield* withWorker(
          worker,
          collect(cutInto(plaintext, [37]).pipe(encryptStreamIn(64, fileKey, { iv: IV }, { workers: 2 })))
        )
        assert.deepStrictEqual(sealed, nodeSealed(plaintext))
        assert.isTrue(made.every((w) => w.terminated))
        const opened = yield* withWorker(
          worker,
          collect(cutInto(sealed, [53]).pipe(decryptStreamUnverifiedIn(64, fileKey, { workers: 2 })))
        )
        assert.deepStrictEqual(opened, plaintext)
      }
    })
  )
})
