/**
 * The CAR reader freeing the answer's reads (`verifyCarFreeingReads`, run where downstream
 * copies: `DownstreamCopies`, as a download's file writer sets it). A read is freed 8 MiB after it
 * was read past; everything that still looks at it by then must have its own copy, or the file
 * comes out wrong. So, on answers well over 8 MiB cut into reads the response owns:
 *
 * - any DAG shape gives the file's bytes, and the reads are freed: deep trees keep their parents'
 *   links far longer than 8 MiB, so a node's links must not be views into a read;
 * - a block served from the cache long after it arrived (a gateway that sent other blocks' repeats
 *   but not this one's) is still the block;
 * - where downstream does not copy (a stream handed to a caller), nothing is freed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import { carHeader, carSection } from "lighthouse-effect/mocks/testing"
import { DownstreamCopies, markOwned, releaseOwned } from "../../src/internal/OwnedBytes.ts"
import { verifyCarFreeingReads } from "../../src/verify/Car.ts"
import { type Block, type ImportShape, importDag, trustlessBlocks } from "./fixtures.ts"

const MiB = 1024 * 1024
const READ = 64 * 1024
const canFree = "transfer" in ArrayBuffer.prototype

const concat = (parts: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(parts))

const carOf = async (root: Block["cid"], blocks: ReadonlyArray<Block>) =>
  concat([await carHeader([root]), ...blocks.map(carSection)])

/** `car` cut into reads of 64 KiB, each its own buffer, marked as the response's own. */
const readsOf = (car: Uint8Array) =>
  Array.from({ length: Math.ceil(car.length / READ) }, (_, i) =>
    markOwned(new Uint8Array(car.subarray(i * READ, (i + 1) * READ)))
  )

/**
 * Runs the verified stream into one buffer, copying each piece as it comes and freeing it if it is
 * owned, as the file writer does.
 */
const copied = (reads: ReadonlyArray<Uint8Array>, root: Block["cid"], size: number, downstreamCopies: boolean) =>
  Effect.gen(function* () {
    const out = new Uint8Array(size)
    let at = 0
    yield* Stream.runForEach(verifyCarFreeingReads(Stream.fromIterable(reads), { root }), (piece) =>
      Effect.sync(() => {
        out.set(piece, at)
        at += piece.byteLength
        releaseOwned(piece)
      })
    ).pipe(Effect.provideService(DownstreamCopies, downstreamCopies))
    return out.subarray(0, at)
  })

const random = (size: number, seed: number) => {
  const bytes = new Uint8Array(size)
  let state = seed >>> 0 || 1
  for (let i = 0; i < size; i++) {
    state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6b43a9b5
    bytes[i] = state >>> 24
  }
  return bytes
}

const equal = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))

describe("verifyCar freeing the answer's reads", () => {
  it.effect.skipIf(!canFree)("gives the file's bytes in any DAG shape, and frees the reads", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.record<ImportShape>({
            cidVersion: fc.constantFrom(0, 1),
            rawLeaves: fc.boolean(),
            maxChildren: fc.integer({ min: 3, max: 174 })
          }),
          fc.integer({ min: 20 * MiB, max: 24 * MiB }),
          async (shape, size) => {
            const content = random(size, size)
            const dag = await importDag(content, { ...shape, chunkSize: 256 * 1024 })
            const reads = readsOf(await carOf(dag.root, trustlessBlocks(dag)))
            const out = await Effect.runPromise(copied(reads, dag.root, size, true))
            const freed = reads.filter((read) => read.byteLength === 0).length
            return equal(out, content) && freed >= reads.length - (8 * MiB) / READ - 2
          }
        ),
        { numRuns: 4 }
      )
    )
  )

  it.effect.skipIf(!canFree)("serves a cached block read long before as the block", () =>
    Effect.gen(function* () {
      const leaf = 256 * 1024
      const once = random(leaf, 1)
      const repeated = random(leaf, 2)
      // `once`, `repeated` 72 times (18 MiB), `once` again: the answer repeats `repeated` but not
      // the last `once`, which comes from the cache 18 MiB after its read.
      const content = concat([once, ...Array.from({ length: 72 }, () => repeated), once])
      const dag = yield* Effect.promise(() => importDag(content, { cidVersion: 1, rawLeaves: true }))
      const blocks = trustlessBlocks(dag, { dups: true })
      assert.strictEqual(blocks.length, 1 + 74)
      const reads = readsOf(yield* Effect.promise(() => carOf(dag.root, blocks.slice(0, -1))))
      const out = yield* copied(reads, dag.root, content.length, true)
      assert.isTrue(equal(out, content))
      assert.isAbove(reads.filter((read) => read.byteLength === 0).length, 0)
    })
  )

  it.effect("frees nothing where downstream does not copy", () =>
    Effect.gen(function* () {
      const content = random(20 * MiB, 3)
      const dag = yield* Effect.promise(() => importDag(content))
      const reads = readsOf(yield* Effect.promise(() => carOf(dag.root, trustlessBlocks(dag))))
      const out = yield* copied(reads, dag.root, content.length, false)
      assert.isTrue(equal(out, content))
      assert.isTrue(reads.every((read) => read.byteLength > 0))
    })
  )
})
