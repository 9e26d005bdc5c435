/**
 * Progress reports: one scale (bytes of the parts' content and their total, the framing around
 * them not counted), a first report at 0 when the body starts, a last at the last content byte
 * (even if the reader never pulls past it), and throttling.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Progress from "../../src/upload/Progress.ts"

const chunks = (sizes: ReadonlyArray<number>) => Stream.fromIterable(sizes.map((n) => new Uint8Array(n)))
const FRAMING = new Uint8Array(100)

/** A body of framing around each content stream, with the content counted by `tracker`. */
const bodyOf = (tracker: Progress.Tracker, contents: ReadonlyArray<Stream.Stream<Uint8Array>>) =>
  tracker.body(
    Stream.concat(
      Stream.fromIterable(contents).pipe(
        Stream.flatMap((content) => Stream.make(FRAMING).pipe(Stream.concat(tracker.content(content))))
      ),
      Stream.make(FRAMING)
    )
  )

describe("Progress", () => {
  it.effect("content bytes from 0 to the total, once per step of max(64 KiB, total/1000); framing not counted", () =>
    Effect.gen(function* () {
      const reports: Array<Progress.Progress> = []
      const total = 10 * 32 * 1024
      const tracker = Progress.tracker(total, (p) => void reports.push(p))
      yield* Stream.runDrain(bodyOf(tracker, [chunks(Array(10).fill(32 * 1024))]))
      assert.deepStrictEqual(
        reports.map((r) => r.bytesSent),
        [0, 65536, 131072, 196608, 262144, 327680]
      )
      assert.isTrue(reports.every((r) => r.totalBytes === total))
    })
  )

  it.effect("a 15-byte file goes from 0 to 15, over several files too", () =>
    Effect.gen(function* () {
      const reports: Array<Progress.Progress> = []
      yield* Stream.runDrain(
        bodyOf(
          Progress.tracker(15, (p) => void reports.push(p)),
          [chunks([15])]
        )
      )
      assert.deepStrictEqual(reports, [
        { bytesSent: 0, totalBytes: 15 },
        { bytesSent: 15, totalBytes: 15 }
      ])
      const several: Array<number> = []
      yield* Stream.runDrain(
        bodyOf(
          Progress.tracker(30, (p) => void several.push(p.bytesSent)),
          [chunks([10]), chunks([20])]
        )
      )
      assert.deepStrictEqual(several, [0, 30])
    })
  )

  it.effect("the last content byte reports at once, before the body is pulled to its end", () =>
    Effect.gen(function* () {
      const reports: Array<number> = []
      // A reader that stops at the last content chunk (as the node does at the close delimiter).
      yield* Stream.runDrain(
        bodyOf(
          Progress.tracker(30, (p) => void reports.push(p.bytesSent)),
          [chunks([10, 20])]
        ).pipe(Stream.take(3))
      )
      assert.deepStrictEqual(reports, [0, 30])
    })
  )

  it.effect("without a total: reports as it goes and once at the end", () =>
    Effect.gen(function* () {
      const reports: Array<Progress.Progress> = []
      yield* Stream.runDrain(
        bodyOf(
          Progress.tracker(undefined, (p) => void reports.push(p)),
          [chunks([5, 5])]
        )
      )
      assert.deepStrictEqual(reports, [
        { bytesSent: 0, totalBytes: undefined },
        { bytesSent: 10, totalBytes: undefined }
      ])
      assert.isUndefined(Progress.fraction(reports[1]!))
    })
  )

  it.effect("an Effect listener runs in the stream's fiber", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const tracker = Progress.tracker(3, (p) => Effect.sync(() => void seen.push(p.bytesSent)))
      yield* Stream.runDrain(bodyOf(tracker, [chunks([3])]))
      assert.deepStrictEqual(seen, [0, 3])
    })
  )

  it("fraction: bytesSent / totalBytes within [0, 1]", () => {
    assert.strictEqual(Progress.fraction({ bytesSent: 25, totalBytes: 100 }), 0.25)
    assert.strictEqual(Progress.fraction({ bytesSent: 0, totalBytes: 0 }), 1)
    assert.strictEqual(Progress.fraction({ bytesSent: 120, totalBytes: 100 }), 1)
  })
})
