/**
 * Leaves hashed on a worker thread give the CIDs of hashing every block on the builder's thread:
 * for deep trees of small leaves with the worker taking over at any byte, in any chunking and
 * every setting, and for a file past the 16 MiB threshold through `Verify.cidsOf`; and once the
 * worker has ended. Only leaves past a file's first `after` bytes go to the worker, and a small
 * file sends none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import { Verify } from "lighthouse-effect"
import { pseudoRandomBytes } from "lighthouse-effect/mocks/testing"
import { sha256 } from "multiformats/hashes/sha2"
import { vi } from "vitest"
import { kuboLayout, type Layout, type LeafHashing, profileLayout } from "../../src/unixfs/Layout.ts"
import { leafWorker, WORKER_AFTER } from "../../src/unixfs/LeafWorkerNode.ts"
import { type AddSettings, calculatorWith } from "../../src/verify/UnixfsCids.ts"

const MiB = 1024 * 1024

/** `bytes` as a stream of chunks of `size` bytes. */
const chunked = (bytes: Uint8Array, size: number) =>
  Stream.fromIterable(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
  )

/** The entries (path, CID, cumulative size) of one file laid out with `layout`, fed in `chunkSize` chunks. */
const entriesOf = (layout: Layout, bytes: Uint8Array, chunkSize: number) =>
  Effect.gen(function* () {
    const cids = calculatorWith(layout)
    yield* Stream.runDrain(cids.file("file", chunked(bytes, chunkSize)))
    const entries = yield* cids.entries
    return entries.map(({ path, cid, size }) => ({ path, cid: cid.toString(), size }))
  })

/** `hashing` that counts the leaves it was given. */
const counting = (hashing: LeafHashing) => {
  const sent = { leaves: 0 }
  const wrapped: LeafHashing = {
    after: hashing.after,
    sha256: (block) => {
      sent.leaves++
      return hashing.sha256(block)
    }
  }
  return { sent, wrapped }
}

const smallLayout: fc.Arbitrary<Layout> = fc.record({
  sha256: fc.constant<Layout["sha256"]>((block) => sha256.digest(block)),
  cidVersion: fc.constantFrom<0 | 1>(0, 1),
  rawLeaves: fc.boolean(),
  chunkSize: fc.integer({ min: 1, max: 64 }),
  maxChildren: fc.integer({ min: 2, max: 6 }),
  shardThreshold: fc.constant(256 * 1024),
  wrapWithDirectory: fc.boolean()
})

describe("leaves hashed on a worker thread", () => {
  it.effect("give the same CIDs as hashing here, the worker taking over at any byte, in any chunking", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const worker = yield* leafWorker({ leafBytes: 64, after: 0, mode: "on" })
        assert.isDefined(worker, "a worker on this machine (more than one core)")
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              smallLayout,
              fc.nat(),
              fc.integer({ min: 1, max: 100 }),
              fc.nat({ max: 2000 }),
              async (layout, seed, chunkSize, after) => {
                const bytes = pseudoRandomBytes(seed % (layout.chunkSize * layout.maxChildren ** 3 + 2), seed)
                const { sent, wrapped } = counting({ ...worker!, after })
                const here = await Effect.runPromise(entriesOf(layout, bytes, chunkSize))
                const there = await Effect.runPromise(entriesOf({ ...layout, leafHashing: wrapped }, bytes, chunkSize))
                assert.deepStrictEqual(there, here)
                // Leaves whose first byte is at or past `after` go to the worker, the others not (an empty file is one empty leaf).
                const leaves = Math.max(1, Math.ceil(bytes.length / layout.chunkSize))
                const before = Math.min(leaves, Math.ceil(after / layout.chunkSize))
                assert.strictEqual(sent.leaves, leaves - before)
              }
            ),
            { numRuns: 80 }
          )
        )
      })
    )
  )

  it.effect(
    "a file past the threshold gets the importer's CIDs through Verify.cidsOf, in every setting and profile",
    () =>
      Effect.gen(function* () {
        // Whatever the machine's load: the worker takes the leaves past the threshold.
        vi.stubEnv("LIGHTHOUSE_EFFECT_LEAF_WORKER", "on")
        yield* Effect.addFinalizer(() => Effect.sync(() => vi.unstubAllEnvs()))
        const bytes = pseudoRandomBytes(WORKER_AFTER + 3 * MiB + 12_345, 7)
        const settings: ReadonlyArray<AddSettings> = [
          { cidVersion: 1 },
          { cidVersion: 0 },
          { cidVersion: 1, rawLeaves: false },
          { cidVersion: 1, profile: "unixfs-v1-2025" },
          { cidVersion: 0, profile: "unixfs-v1-2025", rawLeaves: false }
        ]
        for (const setting of settings) {
          const [entry] = yield* Verify.cidsOf([{ path: "f", content: chunked(bytes, 1 * MiB) }], setting)
          const [expected] = yield* entriesOf(profileLayout(setting), bytes, 1 * MiB)
          assert.strictEqual(entry?.cid.toString(), expected?.cid)
          assert.strictEqual(entry?.size, expected?.size)
        }
      }).pipe(Effect.scoped)
  )

  it.effect("once the worker has ended, its leaves are hashed here with the same CIDs", () =>
    Effect.gen(function* () {
      const layout = { ...kuboLayout({ cidVersion: 1 }), chunkSize: 1000, maxChildren: 5 }
      const bytes = pseudoRandomBytes(200_000, 11)
      const here = yield* entriesOf(layout, bytes, 4096)
      const worker = yield* Effect.scoped(
        Effect.tap(leafWorker({ leafBytes: 1000, after: 0, mode: "on" }), (started) =>
          entriesOf({ ...layout, leafHashing: started }, bytes, 4096)
        )
      )
      assert.deepStrictEqual(yield* entriesOf({ ...layout, leafHashing: worker }, bytes, 4096), here)
    })
  )

  it.effect("a file below the threshold sends no leaf to the worker", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const worker = yield* leafWorker({ leafBytes: 256 * 1024, mode: "on" })
        const { sent, wrapped } = counting(worker!)
        const layout = { ...kuboLayout({ cidVersion: 1 }), leafHashing: wrapped }
        yield* entriesOf(layout, pseudoRandomBytes(WORKER_AFTER, 3), 256 * 1024)
        assert.strictEqual(sent.leaves, 0)
        yield* entriesOf(layout, pseudoRandomBytes(WORKER_AFTER + 1, 3), 256 * 1024)
        assert.strictEqual(sent.leaves, 1)
      })
    )
  )
})
