/**
 * How the lanes of a plan take turns: who serves the content from a given byte on.
 *
 * A lane is opened at the first byte not yet handed out (its trustless answer asked for that
 * byte on, `entity-bytes`) and counts as answering once its first bytes arrived within the stall
 * time-out. `fallback` opens the lanes one at a time in their order; `race` opens all of them at
 * once, keeps the first to answer and interrupts the others (their requests are aborted). A lane
 * that fails to answer is dropped, with the reason, and never asked again.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Target } from "../verify/Walk.ts"
import { type LaneFailure, openBytes, type Running, type WatchedPull, watchPull } from "./Lanes.ts"
import { targetFrom } from "./Plan.ts"

/** A lane serving: its pull, watched for stalls (within its own scope), and the first chunk it answered. */
export interface Serving {
  readonly lane: Running
  readonly pull: WatchedPull
  readonly scope: Scope.Closeable
  /** Its first chunk, not handed out yet; `undefined` once taken, or when it answered no bytes. */
  pending: Arr.NonEmptyReadonlyArray<Uint8Array> | undefined
  /** Whether it answered the end of the content without any byte. */
  readonly empty: boolean
}

/** Where and how long a lane is opened. */
export interface Opening {
  readonly target: Target
  /** Bytes of the target already handed out: the lane is asked from there. */
  readonly position: number
  readonly stall: Duration.Duration
}

/**
 * Opens `lane` in a scope of its own and waits for its first chunk. On failure or interruption
 * the scope closes (the request is aborted); a failure drops the lane.
 */
export const openLane = (lane: Running, { target, position, stall }: Opening): Effect.Effect<Serving, LaneFailure> =>
  Effect.flatMap(Scope.make(), (scope) =>
    Effect.gen(function* () {
      const stream = Stream.unwrap(openBytes(lane, targetFrom(target, position)))
      const pull = yield* Scope.provide(
        Effect.flatMap(Stream.toPull(stream), (raw) => watchPull(raw, stall)),
        scope
      )
      const first = yield* pull
      return { lane, pull, scope, pending: first, empty: first === undefined }
    }).pipe(
      Effect.tapError((failure) =>
        Effect.sync(() => {
          lane.dropped = failure
        })
      ),
      Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Scope.close(scope, exit)))
    )
  )

/** The lanes still in the running. */
const live = (lanes: ReadonlyArray<Running>) => lanes.filter((lane) => lane.dropped === undefined)

/** `fallback`: the first lane, in order, that answers; `undefined` when none did. */
export const fallback = (
  lanes: ReadonlyArray<Running>,
  open: (lane: Running) => Effect.Effect<Serving, LaneFailure>
): Effect.Effect<Serving | undefined> =>
  Effect.gen(function* () {
    for (const lane of live(lanes)) {
      const opened = yield* Effect.option(open(lane))
      if (opened._tag === "Some") return opened.value
    }
    return undefined
  })

/** `race`: every lane asked at once, the first to answer serves, the others are interrupted; `undefined` when none did. */
export const race = (
  lanes: ReadonlyArray<Running>,
  open: (lane: Running) => Effect.Effect<Serving, LaneFailure>
): Effect.Effect<Serving | undefined> => {
  const racers = live(lanes).map(open)
  return racers.length === 0
    ? Effect.succeed(undefined)
    : Effect.raceAll(racers).pipe(Effect.orElseSucceed(() => undefined))
}
