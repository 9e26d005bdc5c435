/**
 * A lane's stall watchdog (`watchPull`): one fiber per lane, re-armed from when the reader began
 * waiting, instead of a timer per pull. A stall is seen at its exact time after any number of
 * quick pieces; pieces that each come within the time-out are never one, however long they take
 * together. On the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Arr from "effect/Array"
import type * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/testing/TestClock"
import { Stalled, watchPull } from "../../src/download/Lanes.ts"

type Chunk = Arr.NonEmptyReadonlyArray<Uint8Array>

const STALL = Duration.seconds(30)
const piece = (n: number): Chunk => [new Uint8Array([n & 0xff])]

/** A source whose pieces the test hands out, watched with the stall time-out; `end` ends it. */
const source = Effect.gen(function* () {
  const pieces = yield* Queue.unbounded<Chunk, Cause.Done>()
  const pull = yield* watchPull(Queue.take(pieces), STALL)
  return { pieces, pull, end: Queue.end(pieces) }
})

/** Lets forked fibers run their ready steps. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("a lane's stall watchdog", () => {
  it.effect("a lane stalled after 200 quick pieces fails Stalled exactly 30 s after the reader began waiting", () =>
    Effect.gen(function* () {
      const { pieces, pull } = yield* source
      for (let n = 0; n < 200; n++) {
        yield* Queue.offer(pieces, piece(n))
        assert.deepStrictEqual(yield* pull, piece(n))
        yield* TestClock.adjust("10 millis")
      }
      const waiting = yield* Effect.forkChild(Effect.exit(pull))
      yield* settle
      yield* TestClock.adjust(Duration.toMillis(STALL) - 1)
      yield* settle
      assert.isUndefined(waiting.pollUnsafe(), "not stalled 1 ms before the time-out")
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.join(waiting)
      assert.deepStrictEqual(exit, Exit.fail(new Stalled({ millis: 30_000 })))
    }).pipe(Effect.scoped)
  )

  it.effect("pieces each within the time-out are not a stall, though together they take ten times as long", () =>
    Effect.gen(function* () {
      const { pieces, pull, end } = yield* source
      for (let n = 0; n < 10; n++) {
        const waiting = yield* Effect.forkChild(pull)
        yield* settle
        yield* TestClock.adjust(Duration.toMillis(STALL) - 1)
        yield* Queue.offer(pieces, piece(n))
        assert.deepStrictEqual(yield* Fiber.join(waiting), piece(n))
      }
      yield* end
      assert.isUndefined(yield* pull)
    }).pipe(Effect.scoped)
  )

  it.effect("the time spent between pulls does not count: a reader busy for minutes is not stalled", () =>
    Effect.gen(function* () {
      const { pieces, pull } = yield* source
      yield* Queue.offer(pieces, piece(1))
      assert.deepStrictEqual(yield* pull, piece(1))
      yield* TestClock.adjust("5 minutes")
      yield* Queue.offer(pieces, piece(2))
      assert.deepStrictEqual(yield* pull, piece(2))
    }).pipe(Effect.scoped)
  )
})
