/**
 * Verified reading block by block (`?format=raw`): each block asked for by its CID, in the walk's
 * order and only those a range needs; a block answered with other bytes fails the read at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import type { CID } from "multiformats/cid"
import { verifyBlocks } from "../../src/verify/RawBlocks.ts"
import { type ImportShape, importDag, trustlessBlocks } from "./fixtures.ts"

const shapes = fc.record<ImportShape>({
  cidVersion: fc.constantFrom(0, 1),
  rawLeaves: fc.boolean(),
  chunkSize: fc.integer({ min: 1, max: 500 }),
  maxChildren: fc.integer({ min: 2, max: 5 })
})

describe("verifyBlocks", () => {
  it.effect("asks for exactly the blocks of the range, in order, and gives its bytes", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 5000 }), shapes, fc.nat(), fc.nat(), async (bytes, shape, a, b) => {
          const dag = await importDag(bytes, shape)
          const offset = a % (bytes.length + 1)
          const length = 1 + (b % Math.max(1, bytes.length - offset))
          const asked: Array<string> = []
          const fetchBlock = (cid: CID) =>
            Effect.sync(() => {
              asked.push(cid.toString())
              return dag.get(cid)
            })
          const out = await Effect.runPromise(
            Stream.mkUint8Array(verifyBlocks(fetchBlock, { root: dag.root, range: { offset, length } }))
          )
          const expected = trustlessBlocks(dag, { from: offset, to: Math.min(bytes.length, offset + length) })
          return (
            Buffer.from(out).equals(Buffer.from(bytes.subarray(offset, offset + length))) &&
            asked.join() === expected.map((block) => block.cid.toString()).join()
          )
        }),
        { numRuns: 50 }
      )
    )
  )

  it.effect("stops at the first block whose bytes do not match, before asking for the next", () =>
    Effect.gen(function* () {
      const bytes = new TextEncoder().encode("abcdefgh".repeat(100))
      const dag = yield* Effect.promise(() => importDag(bytes, { chunkSize: 100, maxChildren: 3 }))
      const order = trustlessBlocks(dag).map((block) => block.cid)
      const liar = order[2]!
      const asked: Array<CID> = []
      const failed = yield* verifyBlocks(
        (cid) =>
          Effect.sync(() => {
            asked.push(cid)
            return cid.equals(liar) ? new TextEncoder().encode("evil") : dag.get(cid)
          }),
        { root: dag.root }
      ).pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(failed._tag, "ContentVerificationFailed")
      assert.strictEqual(failed.problem, "block-hash-mismatch")
      assert.strictEqual(failed.block, liar.toString())
      assert.strictEqual(asked.length, 3)
    })
  )
})
