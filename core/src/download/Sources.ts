/**
 * A download from several trustless gateways at once, none of them trusted: every block is
 * checked against the CID as it arrives (`verify/Trustless.ts`), so a source that fails, stalls
 * or lies is dropped and another takes over from the first byte not yet handed out; the verified
 * bytes already handed out stay. Which source serves when is the strategy's (`Strategies.ts`).
 *
 * The report names each source with the verified bytes it served and why it was dropped; when
 * every source is dropped the download fails with `AllSourcesFailed`, listing each reason.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { AllSourcesFailed } from "../errors/Sources.ts"
import type { Hosts } from "../internal/Hosts.ts"
import type { VerificationReport } from "../verify/Retrieval.ts"
import { openCar, openRawBlocks, type TrustlessFormat, type VerifiedFailure } from "../verify/Trustless.ts"
import type { Target } from "../verify/Walk.ts"
import { expandSources, type SourceReport, type Strategy } from "./SourceOptions.ts"
import { defaultSplit, pullSplit, type SplitShape } from "./Split.ts"
import { fallback, type Lane, type LaneFailure, openLane, pullWithin, race, type Serving } from "./Strategies.ts"

/** What a download from sources reads from where. */
export interface SourcesPlan {
  /** The CID asked for, as given. */
  readonly cid: string
  readonly target: Target
  readonly lanes: ReadonlyArray<Lane>
  readonly strategy: Strategy
  readonly stall: Duration.Duration
  /** How `split` cuts the content (read by that strategy only). */
  readonly split: SplitShape
}

/** The options of a download that choose its sources. */
export interface SourceChoice {
  readonly sources?: ReadonlyArray<string> | undefined
  readonly strategy?: Strategy | undefined
  readonly stallTimeout?: Duration.Input | undefined
  readonly trustless?: TrustlessFormat | undefined
  readonly rangeSize?: number | undefined
  readonly requestsPerSource?: number | undefined
  readonly window?: number | undefined
}

/**
 * The plan of a download from the call's sources, else the configuration's (`"gateway"` among
 * them standing for `ownGateway`); `undefined` with neither.
 */
export const planOf = (
  hosts: Hosts,
  cid: string,
  target: Target,
  options: SourceChoice | undefined,
  ownGateway: string
): SourcesPlan | undefined => {
  const defaults = hosts.config.downloads
  const sources = options?.sources ?? defaults.sources
  if (sources === undefined || sources.length === 0) return undefined
  const lanes = expandSources(sources, ownGateway).map((gateway): Lane => {
    const client = hosts.gatewayAt(gateway)
    return {
      gateway,
      open: (part) => (options?.trustless === "raw" ? openRawBlocks(client, part) : openCar(client, part)),
      served: 0,
      dropped: undefined
    }
  })
  const stall = Duration.fromInputUnsafe(options?.stallTimeout ?? defaults.stallTimeout)
  const split = {
    rangeSize: options?.rangeSize ?? defaultSplit.rangeSize,
    requestsPerSource: options?.requestsPerSource ?? defaultSplit.requestsPerSource,
    window: options?.window ?? defaultSplit.window
  }
  return { cid, target, lanes, strategy: options?.strategy ?? defaults.strategy, stall, split }
}

/** Failures that are the content's, not the source's: every source would answer the same. */
const isContentFailure = (failure: LaneFailure) =>
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

/** The download's failure once no source is left: the content's own failure if one was found, else every reason. */
const noSourceLeft = (plan: SourcesPlan): Effect.Effect<never, VerifiedFailure | AllSourcesFailed> => {
  const content = plan.lanes.find((lane) => lane.dropped !== undefined && isContentFailure(lane.dropped))
  if (content?.dropped !== undefined && content.dropped._tag !== "Stalled") return Effect.fail(content.dropped)
  const sources = plan.lanes.map((lane) => ({
    gateway: lane.gateway,
    reason: lane.dropped === undefined ? "not asked" : reasonOf(lane.dropped)
  }))
  return Effect.fail(new AllSourcesFailed({ cid: plan.cid, sources }))
}

const sizeOf = (chunk: Arr.NonEmptyReadonlyArray<Uint8Array>) => chunk.reduce((total, bytes) => total + bytes.length, 0)

/** The next chunk of the download, in `scope`: from the source serving, else from the next one the strategy picks. */
const pullFrom = (
  plan: SourcesPlan,
  scope: Scope.Scope
): Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, VerifiedFailure | AllSourcesFailed>> => {
  const millis = Duration.toMillis(plan.stall)
  const pick = plan.strategy === "race" ? race : fallback
  let serving: Serving | undefined
  let position = 0
  const open = (lane: Lane) => openLane(lane, plan.target, position, plan.stall, millis)
  const release = Effect.suspend(() => {
    const current = serving
    serving = undefined
    return current === undefined ? Effect.void : Scope.close(current.scope, Exit.void)
  })
  const next = Effect.gen(function* () {
    while (true) {
      serving ??= yield* pick(plan.lanes, open)
      if (serving === undefined) return yield* noSourceLeft(plan)
      const current = serving
      const pending = current.pending
      current.pending = undefined
      const outcome =
        pending !== undefined || current.empty
          ? Result.succeed(pending)
          : yield* Effect.result(pullWithin(current.pull, plan.stall, millis))
      if (Result.isSuccess(outcome)) {
        if (outcome.success === undefined) return yield* Effect.andThen(release, Cause.done())
        current.lane.served += sizeOf(outcome.success)
        position += sizeOf(outcome.success)
        return outcome.success
      }
      current.lane.dropped = outcome.failure
      yield* release
      if (isContentFailure(outcome.failure)) return yield* noSourceLeft(plan)
    }
  })
  return Effect.as(Scope.addFinalizer(scope, release), next)
}

/** What each source did so far. */
const reportOf = (plan: SourcesPlan): ReadonlyArray<SourceReport> =>
  plan.lanes.map((lane) => ({
    gateway: lane.gateway,
    bytes: lane.served,
    ...(lane.dropped === undefined ? {} : { dropped: reasonOf(lane.dropped) })
  }))

/**
 * The verified bytes of the plan's target from its sources, opened when the stream runs, and the
 * report of what each source did (complete once the stream has ended).
 */
export const retrieveFromSources = (
  plan: SourcesPlan
): {
  readonly stream: Stream.Stream<Uint8Array, VerifiedFailure | AllSourcesFailed>
  readonly report: Effect.Effect<VerificationReport & { readonly sources: ReadonlyArray<SourceReport> }>
} => ({
  stream: Stream.fromChannel(
    Channel.fromTransform((_, scope) =>
      plan.strategy === "split"
        ? pullSplit({ ...plan, noSourceLeft: Effect.suspend(() => noSourceLeft(plan)), isContentFailure }, scope)
        : pullFrom(plan, scope)
    )
  ),
  report: Effect.sync(() => ({ verified: true as const, sources: reportOf(plan) }))
})
