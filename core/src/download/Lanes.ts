/**
 * The lanes of a plan while it runs: what each served, why it was dropped, and what the download
 * comes to once none is left: the content's own failure when one was found (every source would
 * answer it), else, for a plan of listed sources, `AllSourcesFailed` with every reason, and for
 * the own gateway alone, that gateway's failure (a stall is its `RequestTimedOut`; a gateway that
 * cannot answer verifiably when verification is required, `UnverifiableGateway`).
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import type * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { RequestTimedOut } from "../Errors.ts"
import { AllSourcesFailed } from "../errors/Sources.ts"
import type { UnverifiableGateway } from "../errors/Verification.ts"
import type { VerificationReport } from "../verify/Retrieval.ts"
import { unverifiable, type VerifiedFailure } from "../verify/Trustless.ts"
import type { Target } from "../verify/Walk.ts"
import type { Lane } from "./Open.ts"
import type { Plan } from "./Plan.ts"
import type { SourceReport } from "./SourceOptions.ts"

/** A source that kept the download waiting longer than the stall time-out. */
export class Stalled extends Data.TaggedError("Stalled")<{ readonly millis: number }> {}

/** Why a source stopped serving. */
export type LaneFailure = VerifiedFailure | Stalled

/** Why a download failed once no source is left. */
export type PlanFailure = VerifiedFailure | AllSourcesFailed | UnverifiableGateway

/** A lane of a running plan, and what it did so far. */
export interface Running extends Lane {
  /** Verified bytes it handed out. */
  served: number
  /** Why it was dropped; `undefined` while it may still serve. */
  dropped: LaneFailure | undefined
  /** Why its bytes are not verified; `undefined` while they are. */
  unverified: string | undefined
}

/** The plan's lanes, none of which has served yet. */
export const startLanes = (plan: Plan): ReadonlyArray<Running> =>
  plan.lanes.map((lane) => ({ ...lane, served: 0, dropped: undefined, unverified: undefined }))

/** The verified bytes of `target` that `lane` answers, noting on it when they are not verified. */
export const openBytes = (lane: Running, target: Target) =>
  Effect.map(lane.open(target), (opened) => {
    if (opened.unverified !== undefined) lane.unverified = opened.unverified
    return opened.bytes
  })

/** The next chunk of `pull`, `undefined` at its end, or `Stalled` when none came within `stall`. */
export const pullWithin = (
  pull: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, VerifiedFailure>,
  stall: Duration.Duration
): Effect.Effect<Arr.NonEmptyReadonlyArray<Uint8Array> | undefined, LaneFailure> =>
  pull.pipe(
    Pull.catchDone(() => Effect.succeed(undefined)),
    Effect.timeoutOrElse({
      duration: stall,
      orElse: () => Effect.fail(new Stalled({ millis: Duration.toMillis(stall) }))
    })
  )

/** A lane's pull: its next chunk, `undefined` at its end, or why it stopped serving. */
export type WatchedPull = Effect.Effect<Arr.NonEmptyReadonlyArray<Uint8Array> | undefined, LaneFailure>

/**
 * `pull` watched for stalls by one fiber for the lane's life instead of a timer per pull: a
 * fiber in `scope` pulls ahead into a queue of one chunk, and a watchdog sleeps until the reader
 * has waited `stall` on an empty queue, re-armed lazily from the time the reader began waiting
 * (at most `stall` per sleep, so a stall is seen at its exact time). The reader fails `Stalled`
 * then, as {@link pullWithin} would; its quick pulls schedule and cancel no timer.
 */
export const watchPull = (
  pull: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, VerifiedFailure>,
  stall: Duration.Duration
): Effect.Effect<WatchedPull, never, Scope.Scope> =>
  Effect.gen(function* () {
    const millis = Duration.toMillis(stall)
    const chunks = yield* Queue.bounded<Arr.NonEmptyReadonlyArray<Uint8Array>, LaneFailure | Cause.Done>(1)
    yield* pull.pipe(
      Effect.flatMap((chunk) => Queue.offer(chunks, chunk)),
      Effect.forever,
      Effect.catchCause((cause) => Queue.failCause(chunks, cause)),
      Effect.forkScoped
    )
    const clock = yield* Effect.clockWith(Effect.succeed)
    // When the reader began waiting for a chunk; `undefined` while it is not waiting.
    let waitingSince: number | undefined
    const watch: Effect.Effect<void> = Effect.suspend(() => {
      const waited = waitingSince === undefined ? 0 : clock.currentTimeMillisUnsafe() - waitingSince
      if (waited < millis) return Effect.andThen(Effect.sleep(millis - waited), watch)
      // A chunk that came as the time ran out, not yet taken, is not a stall.
      if (Queue.sizeUnsafe(chunks) > 0) return Effect.andThen(Effect.sleep(millis), watch)
      return Queue.fail(chunks, new Stalled({ millis }))
    })
    yield* Effect.forkScoped(watch)
    const received = (chunk: Arr.NonEmptyReadonlyArray<Uint8Array>) => {
      waitingSince = undefined
      return chunk
    }
    return Effect.suspend(() => {
      waitingSince = clock.currentTimeMillisUnsafe()
      return Queue.take(chunks).pipe(
        Effect.map(received),
        Pull.catchDone(() => Effect.succeed(undefined))
      )
    })
  })

/** Failures that are the content's, not the source's: every source would answer the same. */
export const isContentFailure = (failure: LaneFailure) =>
  failure._tag === "ContentVerificationFailed" &&
  (failure.problem === "path-not-found" || failure.problem === "not-a-file" || failure.problem === "unsupported-hash")

/** Why a source was dropped, in a few words. */
export const reasonOf = (failure: LaneFailure): string => {
  switch (failure._tag) {
    case "Stalled":
      return `stalled ${failure.millis / 1000} s`
    case "HttpStatusError":
      return `HTTP ${failure.status}`
    case "NetworkError":
      return "no answer (network error)"
    case "RequestTimedOut":
      return `no answer within ${failure.timeoutMillis / 1000} s`
    case "VerificationUnsupported":
      return `no trustless answer: ${failure.detail}`
    case "InvalidResponse":
      return `invalid answer: ${failure.detail}`
    case "ContentVerificationFailed":
      return failure.problem === "block-hash-mismatch" && failure.block !== undefined
        ? `lied: block ${failure.block} had other bytes`
        : failure.problem === "truncated"
          ? `cut short: ${failure.detail}`
          : `lied: ${failure.detail}`
  }
}

/** How the own gateway's failure reads to the caller. */
const ownFailure = (plan: Plan, lane: Running, failure: LaneFailure): PlanFailure => {
  if (failure._tag === "Stalled") return new RequestTimedOut({ url: lane.gateway, timeoutMillis: failure.millis })
  if (failure._tag === "VerificationUnsupported" && plan.verification === "required") return unverifiable(failure)
  return failure
}

/** The download's failure once no lane of `plan` is left. */
export const planFailure = (plan: Plan, lanes: ReadonlyArray<Running>): Effect.Effect<never, PlanFailure> => {
  const content = lanes.find((lane) => lane.dropped !== undefined && isContentFailure(lane.dropped))
  if (content?.dropped !== undefined && content.dropped._tag !== "Stalled") return Effect.fail(content.dropped)
  const [only] = lanes
  if (!plan.listed && lanes.length === 1 && only?.dropped !== undefined) {
    return Effect.fail(ownFailure(plan, only, only.dropped))
  }
  const sources = lanes.map((lane) => ({
    gateway: lane.gateway,
    reason: lane.dropped === undefined ? "not asked" : reasonOf(lane.dropped)
  }))
  return Effect.fail(new AllSourcesFailed({ cid: plan.cid, sources }))
}

/** What each source did so far. */
const sourcesOf = (lanes: ReadonlyArray<Running>): ReadonlyArray<SourceReport> =>
  lanes.map((lane) => ({
    gateway: lane.gateway,
    bytes: lane.served,
    ...(lane.dropped === undefined ? {} : { dropped: reasonOf(lane.dropped) })
  }))

/** What the download's verification came to; with listed sources, what each did. */
export const reportOf = (
  plan: Plan,
  lanes: ReadonlyArray<Running>
): VerificationReport & { readonly sources?: ReadonlyArray<SourceReport> } => {
  const reason = lanes.find((lane) => lane.unverified !== undefined)?.unverified
  const verification: VerificationReport = reason === undefined ? { verified: true } : { verified: false, reason }
  return plan.listed ? { ...verification, sources: sourcesOf(lanes) } : verification
}
