/**
 * Progress reports: one scale (bytes of the body and its total), a first report at 0, a last at
 * the end (even if the reader never pulls past the last byte), and throttling.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Progress from "../../src/upload/Progress.ts"

const chunks = (sizes: ReadonlyArray<number>) => Stream.fromIterable(sizes.map((n) => new Uint8Array(n)))

describe("Progress", () => {
  it.effect("from 0 to the total, once per step of max(64 KiB, total/1000)", () =>
    Effect.gen(function* () {
      const reports: Array<Progress.Progress> = []
      const total = 10 * 32 * 1024
      yield* Stream.runDrain(chunks(Array(10).fill(32 * 1024)).pipe(Progress.track(total, (p) => void reports.push(p))))
      assert.deepStrictEqual(
        reports.map((r) => r.bytesSent),
        [0, 65536, 131072, 196608, 262144, 327680]
      )
      assert.isTrue(reports.every((r) => r.totalBytes === total))
    })
  )

  it.effect("the last chunk reports at once, before the stream is pulled to its end", () =>
    Effect.gen(function* () {
      const reports: Array<number> = []
      // A reader that stops after the expected bytes (as the node does at the close delimiter).
      yield* Stream.runDrain(
        chunks([10, 20]).pipe(
          Progress.track(30, (p) => void reports.push(p.bytesSent)),
          Stream.take(2)
        )
      )
      assert.deepStrictEqual(reports, [0, 30])
    })
  )

  it.effect("without a total: reports as it goes and once at the end", () =>
    Effect.gen(function* () {
      const reports: Array<Progress.Progress> = []
      yield* Stream.runDrain(chunks([5, 5]).pipe(Progress.track(undefined, (p) => void reports.push(p))))
      assert.deepStrictEqual(reports, [
        { bytesSent: 0, totalBytes: undefined },
        { bytesSent: 10, totalBytes: undefined }
      ])
      assert.isUndefined(Progress.fraction(reports[1]!))
    })
  )

  it.effect("an Effect listener runs in the stream's fiber; no listener leaves the stream as is", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      yield* Stream.runDrain(chunks([3]).pipe(Progress.track(3, (p) => Effect.sync(() => void seen.push(p.bytesSent)))))
      assert.deepStrictEqual(seen, [0, 3])
      const stream = chunks([1])
      assert.strictEqual(Progress.track(1, undefined)(stream), stream)
    })
  )

  it("fraction: bytesSent / totalBytes within [0, 1]", () => {
    assert.strictEqual(Progress.fraction({ bytesSent: 25, totalBytes: 100 }), 0.25)
    assert.strictEqual(Progress.fraction({ bytesSent: 0, totalBytes: 0 }), 1)
    assert.strictEqual(Progress.fraction({ bytesSent: 120, totalBytes: 100 }), 1)
  })
})
