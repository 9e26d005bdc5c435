/**
 * Freeing bytes their last holder is done with (`OwnedBytes.ts`): only views marked as owned, and
 * only whole buffers; `releasedAfterNext` frees a piece once the piece after next is pulled, never
 * one the consumer may still look at.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import { freeBytes, markOwned, releasedAfterNext, releaseOwned } from "../../src/internal/OwnedBytes.ts"

const canFree = "transfer" in ArrayBuffer.prototype

describe("releaseOwned", () => {
  it.skipIf(!canFree)("frees a marked view of a whole buffer, once; leaves unmarked views and slices", () => {
    const owned = markOwned(new Uint8Array(8).fill(1))
    const unmarked = new Uint8Array(8).fill(2)
    const whole = new Uint8Array(8)
    const part = markOwned(whole.subarray(2))
    releaseOwned(unmarked)
    releaseOwned(part)
    assert.deepStrictEqual([unmarked.byteLength, part.byteLength, whole.byteLength], [8, 6, 8])
    releaseOwned(owned)
    assert.strictEqual(owned.byteLength, 0)
    // Freed already: nothing left to do, and no throw.
    releaseOwned(owned)
    freeBytes(owned)
  })
})

describe("releasedAfterNext", () => {
  it.effect.skipIf(!canFree)("frees each owned piece once the one after next is pulled, never earlier", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(fc.boolean(), { minLength: 0, maxLength: 12 }), async (owned) => {
          const pieces = owned.map((isOwned, i) => {
            const piece = new Uint8Array(16).fill(i + 1)
            return isOwned ? markOwned(piece) : piece
          })
          const seen: Array<Uint8Array> = []
          let intact = true
          await Effect.runPromise(
            Stream.runForEach(releasedAfterNext(Stream.fromIterable(pieces).pipe(Stream.rechunk(1))), (piece) =>
              Effect.sync(() => {
                // The piece before this one is still whole: a consumer may finish with it now.
                const before = seen.at(-1)
                if (before !== undefined && !before.every((byte) => byte === seen.length)) intact = false
                seen.push(piece)
              })
            )
          )
          const freed = pieces.map((piece) => piece.byteLength === 0)
          const expected = owned.map((isOwned, i) => isOwned && i < pieces.length - 2)
          return intact && seen.length === pieces.length && freed.every((f, i) => f === expected[i])
        }),
        { numRuns: 60 }
      )
    )
  )
})
