/**
 * The one engine every download runs on: a plan's lanes (`Plan.ts`), none of them trusted. Every
 * block is checked against the CID as it arrives (unless the plan reads one gateway unverified,
 * as asked by name), so a lane that fails, stalls or lies is dropped and another takes over from
 * the first byte not yet handed out; the bytes already handed out stay. Which lane serves when is
 * the strategy's (`Strategies.ts`, `Split.ts`); a plan of one lane is the same run with nobody to
 * take over.
 *
 * The report says whether the bytes were verified and, for listed sources, what each did; once
 * every lane is dropped the download fails as `Lanes.ts` says.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { isContentFailure, type PlanFailure, planFailure, type Running, reportOf, startLanes } from "./Lanes.ts"
import type { VerificationReport } from "./Models.ts"
import type { Plan } from "./Plan.ts"
import { pullSplit } from "./Split.ts"
import { fallback, openLane, race, type Serving } from "./Strategies.ts"

const sizeOf = (chunk: Arr.NonEmptyReadonlyArray<Uint8Array>) => chunk.reduce((total, bytes) => total + bytes.length, 0)

/** The next chunk of the download, in `scope`: from the lane serving, else from the next one the strategy picks. */
const pullInTurn = (
  plan: Plan,
  lanes: ReadonlyArray<Running>,
  scope: Scope.Scope
): Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, PlanFailure>> => {
  const pick = plan.strategy === "race" ? race : fallback
  let serving: Serving | undefined
  let position = 0
  const open = (lane: Running) => openLane(lane, { target: plan.target, position, stall: plan.stall })
  const release = Effect.suspend(() => {
    const current = serving
    serving = undefined
    return current === undefined ? Effect.void : Scope.close(current.scope, Exit.void)
  })
  const next = Effect.gen(function* () {
    while (true) {
      serving ??= yield* pick(lanes, open)
      if (serving === undefined) return yield* planFailure(plan, lanes)
      const current = serving
      const pending = current.pending
      current.pending = undefined
      const outcome =
        pending !== undefined || current.empty ? Result.succeed(pending) : yield* Effect.result(current.pull)
      if (Result.isSuccess(outcome)) {
        if (outcome.success === undefined) return yield* Effect.andThen(release, Cause.done())
        current.lane.served += sizeOf(outcome.success)
        position += sizeOf(outcome.success)
        return outcome.success
      }
      current.lane.dropped = outcome.failure
      yield* release
      if (isContentFailure(outcome.failure)) return yield* planFailure(plan, lanes)
    }
  })
  return Effect.as(Scope.addFinalizer(scope, release), next)
}

/**
 * The bytes of the plan's target, opened when the stream runs, and the report of their
 * verification (complete once the stream has ended). Each run starts the plan's lanes afresh.
 */
export const run = (
  plan: Plan
): {
  readonly stream: Stream.Stream<Uint8Array, PlanFailure>
  readonly report: Effect.Effect<VerificationReport>
} => {
  let lanes = startLanes(plan)
  return {
    stream: Stream.fromChannel(
      Channel.fromTransform((_, scope) =>
        Effect.suspend(() => {
          lanes = startLanes(plan)
          return plan.strategy === "split" ? pullSplit({ plan, lanes, scope }) : pullInTurn(plan, lanes, scope)
        })
      )
    ),
    report: Effect.sync(() => reportOf(plan, lanes))
  }
}
