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
import { CipherWorkerFailed } from "../../src/Errors.ts"
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

/** Every Worker made, whether each has been terminated, and (for threads) when its thread has exited. */
const made: Array<{ terminated: boolean; exited?: Promise<void> }> = []

/**
 * A browser Worker on a thread: an uncaught error is its `error` event; a thread that exits on its
 * own says nothing, as a Worker that closes itself or is killed says nothing to the page.
 */
class ThreadWorker {
  onmessage: ((event: { data: unknown }) => void) | null = null
  onerror: ((event: { message: string; preventDefault: () => void }) => void) | null = null
  readonly #thread = new Thread(BOOT, { eval: true })
  readonly #loaded: Promise<void>
  readonly #record: { terminated: boolean; exited: Promise<void> }

  /** `sabotage`: script run after the Worker's own, in the same scope (to break it). */
  constructor(url: string, _options?: unknown, sabotage = "") {
    const thread = this.#thread
    this.#record = { terminated: false, exited: new Promise((resolve) => thread.once("exit", () => resolve())) }
    made.push(this.#record)
    this.#thread.on("message", (data) => this.onmessage?.({ data }))
    this.#thread.on("error", (error) => this.onerror?.({ message: error.message, preventDefault: () => {} }))
    this.#loaded = resolveObjectURL(url)!
      .text()
      .then((source) => this.#thread.postMessage(`${source}\n${sabotage}`))
  }

  postMessage(message: unknown, transfer?: ReadonlyArray<ArrayBuffer>) {
    void this.#loaded.then(() => this.#thread.postMessage(message, transfer as Array<ArrayBuffer>))
  }

  terminate() {
    this.#record.terminated = true
    void this.#thread.terminate()
  }
}

/** How the first Worker made breaks at its second segment: its script throws, reports an error, or stops answering. */
const SABOTAGE = {
  throws: `throw new Error("boom")`,
  reports: `return postMessage({ id: event.data.id, failed: "OperationError: refused" })`,
  // As a Worker that closes itself, or that the browser kills, it never answers again.
  "falls silent": `onmessage = () => {}; return`
}

const sabotaged = (breaks: string) =>
  class extends ThreadWorker {
    constructor(url: string) {
      const wrapper = `const own = onmessage; let segments = 0
onmessage = (event) => { if (event.data.key === undefined && ++segments === 2) { ${breaks} }; own(event) }`
      super(url, undefined, made.length === 0 ? wrapper : "")
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

  it.effect.each([
    ["throws", "encrypt", "a Worker threw: boom"],
    ["reports", "encrypt", "a Worker reported: OperationError: refused"],
    ["falls silent", "encrypt", "a Worker did not answer within 2000 ms"],
    ["throws", "decrypt", "a Worker threw: boom"],
    ["reports", "decrypt", "a Worker reported: OperationError: refused"],
    ["falls silent", "decrypt", "a Worker did not answer within 2000 ms"]
  ] as const)(
    "a Worker that %s mid-stream (%s) fails it with CipherWorkerFailed and ends every Worker",
    ([breaks, direction, reason]) =>
      withWorker(
        sabotaged(SABOTAGE[breaks]),
        Effect.gen(function* () {
          const setup = { workers: 2, answerMillis: 2000 }
          const plaintext = patterned(2000, 5)
          const stream =
            direction === "encrypt"
              ? cutInto(plaintext, [100]).pipe(encryptStreamIn(64, fileKey, { iv: IV }, setup))
              : cutInto(nodeSealed(plaintext), [100]).pipe(decryptStreamUnverifiedIn(64, fileKey, setup))
          const error = yield* Effect.flip(Stream.runDrain(stream))
          assert.instanceOf(error, CipherWorkerFailed)
          assert.strictEqual(error.message, `The cipher worker failed: ${reason}`)
          assert.strictEqual(made.length, 2)
          assert.isTrue(made.every((w) => w.terminated))
          // Nothing is left running: both threads end.
          yield* Effect.promise(() => Promise.all(made.map((w) => w.exited)))
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
