/**
 * How the sources of a download take turns: who serves the content from a given byte on.
 *
 * A source is opened at the first byte not yet handed out (its trustless answer asked for that
 * byte on, `entity-bytes`) and counts as answering once its first verified bytes arrived within
 * the stall time-out. `fallback` opens the sources one at a time in their order; `race` opens all
 * of them at once, keeps the first to answer and interrupts the others (their requests are
 * aborted). A source that fails to answer is dropped, with the reason, and never asked again.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { VerifiedFailure } from "../verify/Trustless.ts"
import type { Target } from "../verify/Walk.ts"

/** A source that kept the download waiting longer than the stall time-out. */
export class Stalled extends Data.TaggedError("Stalled")<{ readonly millis: number }> {}

/** Why a source stopped serving. */
export type LaneFailure = VerifiedFailure | Stalled

/** One source of a download, and what it did so far. */
export interface Lane {
  readonly gateway: string
  /** Its verified bytes, of `target` from `range.offset` on. */
  readonly open: (target: Target) => Effect.Effect<Stream.Stream<Uint8Array, VerifiedFailure>, VerifiedFailure>
  /** Verified bytes it handed out. */
  served: number
  /** Why it was dropped; `undefined` while it may still serve. */
  dropped: LaneFailure | undefined
}

/** A source serving: its pull (within its own scope) and the first chunk it answered. */
export interface Serving {
  readonly lane: Lane
  readonly pull: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, VerifiedFailure>
  readonly scope: Scope.Closeable
  /** Its first chunk, not handed out yet; `undefined` once taken, or when it answered no bytes. */
  pending: Arr.NonEmptyReadonlyArray<Uint8Array> | undefined
  /** Whether it answered the end of the content without any byte. */
  readonly empty: boolean
}

/** `target` from `position` bytes into it on. */
export const targetFrom = (target: Target, position: number): Target => {
  if (position === 0) return target
  const offset = (target.range?.offset ?? 0) + position
  const length = target.range?.length === undefined ? undefined : target.range.length - position
  return { ...target, range: { offset, length } }
}

/** The next chunk of `pull`, `undefined` at its end, or `Stalled` when none came within `stall`. */
export const pullWithin = (
  pull: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, VerifiedFailure>,
  stall: Duration.Duration,
  millis: number
): Effect.Effect<Arr.NonEmptyReadonlyArray<Uint8Array> | undefined, LaneFailure> =>
  pull.pipe(
    Pull.catchDone(() => Effect.succeed(undefined)),
    Effect.timeoutOrElse({ duration: stall, orElse: () => Effect.fail(new Stalled({ millis })) })
  )

/**
 * Opens `lane` at `position` in a scope of its own and waits for its first verified chunk. On
 * failure or interruption the scope closes (the request is aborted); a failure drops the lane.
 */
export const openLane = (
  lane: Lane,
  target: Target,
  position: number,
  stall: Duration.Duration,
  millis: number
): Effect.Effect<Serving, LaneFailure> =>
  Effect.flatMap(Scope.make(), (scope) =>
    Effect.gen(function* () {
      const stream = Stream.unwrap(lane.open(targetFrom(target, position)))
      const pull = yield* Scope.provide(Stream.toPull(stream), scope)
      const first = yield* pullWithin(pull, stall, millis)
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
const live = (lanes: ReadonlyArray<Lane>) => lanes.filter((lane) => lane.dropped === undefined)

/** `fallback`: the first source, in order, that answers; `undefined` when none did. */
export const fallback = (
  lanes: ReadonlyArray<Lane>,
  open: (lane: Lane) => Effect.Effect<Serving, LaneFailure>
): Effect.Effect<Serving | undefined> =>
  Effect.gen(function* () {
    for (const lane of live(lanes)) {
      const opened = yield* Effect.option(open(lane))
      if (opened._tag === "Some") return opened.value
    }
    return undefined
  })

/** `race`: every source asked at once, the first to answer serves, the others are interrupted; `undefined` when none did. */
export const race = (
  lanes: ReadonlyArray<Lane>,
  open: (lane: Lane) => Effect.Effect<Serving, LaneFailure>
): Effect.Effect<Serving | undefined> => {
  const racers = live(lanes).map(open)
  return racers.length === 0
    ? Effect.succeed(undefined)
    : Effect.raceAll(racers).pipe(Effect.orElseSucceed(() => undefined))
}
