/**
 * A CAR import checked against the node's answer: the node must answer exactly the roots of the
 * CAR's header, read from the bytes the body sent (`stream` mode) or from the same `Blob`
 * (`blob` mode); anything else is `CidMismatch` naming both.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { SentPart } from "../../src/verify/Uploaded.ts"
import { trackCar } from "../../src/verify/UploadedCar.ts"
import { encodeCar, importDag, trustlessBlocks } from "./fixtures.ts"

const carWith = Effect.promise(async () => {
  const first = await importDag(new TextEncoder().encode("first file\n"))
  const second = await importDag(new TextEncoder().encode("second file\n"))
  const blocks = [...trustlessBlocks(first), ...trustlessBlocks(second)]
  return { roots: [first.root, second.root], bytes: await encodeCar([first.root, second.root], blocks) }
})

/** The CAR as a part sent in 7-byte pieces (the header crosses chunks), with its `Blob` too. */
const partOf = (bytes: Uint8Array, name = "two.car"): SentPart<never> => ({
  name,
  content: Stream.fromIterable(bytes).pipe(
    Stream.rechunk(7),
    Stream.mapArray((pieces) => [Uint8Array.from(pieces)])
  ),
  blob: () => new Blob([new Uint8Array(bytes)])
})

describe("trackCar", () => {
  for (const mode of ["stream", "blob"] as const) {
    it.effect(`${mode} mode: the header's roots pass in any order; others are CidMismatch`, () =>
      Effect.gen(function* () {
        const { roots, bytes } = yield* carWith
        const tracked = trackCar(partOf(bytes), mode)
        // In `blob` mode the body sends the Blob and never runs the content.
        if (mode === "stream") assert.deepStrictEqual(yield* Stream.mkUint8Array(tracked.part.content), bytes)
        yield* tracked.check([roots[1]!.toString(), roots[0]!.toString()])

        const other = (yield* Effect.promise(() => importDag(new TextEncoder().encode("other\n")))).root.toString()
        const wrong = yield* Effect.flip(tracked.check([roots[0]!.toString(), other]))
        assert.strictEqual(wrong.path, "two.car")
        assert.strictEqual(wrong.expected, `${roots[0]}, ${roots[1]}`)
        assert.strictEqual(wrong.answered, `${roots[0]}, ${other}`)
        assert.strictEqual(
          wrong.message,
          `The node answered CID ${roots[0]}, ${other} for "two.car", but the bytes sent have CID ${roots[0]}, ${roots[1]}`
        )
        // A root left out, or answered twice, is a mismatch as well.
        assert.strictEqual((yield* Effect.flip(tracked.check([roots[0]!.toString()]))).answered, `${roots[0]}`)
        const twice = [roots[0]!.toString(), roots[0]!.toString(), roots[1]!.toString()]
        assert.strictEqual((yield* Effect.flip(tracked.check(twice)))._tag, "CidMismatch")
        assert.strictEqual((yield* Effect.flip(tracked.check([]))).answered, "none")
      })
    )
  }

  it.effect("bytes without a CARv1 header: whatever the node answers is a mismatch", () =>
    Effect.gen(function* () {
      const { roots } = yield* carWith
      const tracked = trackCar(partOf(new TextEncoder().encode("not a car at all"), "fake.car"), "stream")
      yield* Stream.runDrain(tracked.part.content)
      const wrong = yield* Effect.flip(tracked.check([roots[0]!.toString()]))
      assert.strictEqual(wrong.expected, "none: the CAR sent has no CARv1 header")
      assert.strictEqual(wrong.answered, roots[0]!.toString())
    })
  )
})
