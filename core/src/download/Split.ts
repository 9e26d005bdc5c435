/**
 * The `split` strategy: the content is cut into pieces of `rangeSize` bytes, and the pieces are
 * fetched from every source at once, each piece its own trustless request (`entity-bytes`) checked
 * block by block like any other. A source has at most `requestsPerSource` pieces in flight; the
 * least busy source takes the next piece.
 *
 * Memory: only the pieces from the first one not yet handed out on are fetched, as many as fit in
 * `window` bytes, so at most `window` verified bytes wait for the caller; they reach the caller in
 * order. The size of the content need not be known up front: a piece that comes back shorter than
 * asked (its walk knows the file's size from the verified root) is where the content ends.
 *
 * A source that fails, stalls or lies on a piece is dropped with its reason and takes no new piece;
 * the piece keeps the verified bytes it got and another source fetches the rest of it. Its other
 * requests in flight are stopped at once, their pieces kept and handed on the same way: a liar
 * slow on one piece does not hold that piece up until it stalls.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Pull from "effect/Pull"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Target } from "../verify/Walk.ts"
import {
  isContentFailure,
  type LaneFailure,
  openBytes,
  type PlanFailure,
  planFailure,
  pullWithin,
  type Running
} from "./Lanes.ts"
import type { Plan } from "./Plan.ts"

/** `[start, end)` of the content (counted from the first byte asked for), and what was fetched of it. */
interface Piece {
  readonly start: number
  readonly end: number
  readonly parts: Array<Uint8Array>
  got: number
  /** The source fetching it now. */
  fetcher: Running | undefined
  done: boolean
}

/** A piece's request that ended: `failure` when the source failed on it. */
interface Ended {
  readonly lane: Running
  readonly piece: Piece
  readonly failure: LaneFailure | undefined
}

/** What a split download runs: the plan, its lanes, and the scope its requests live in. */
export interface SplitRun {
  readonly plan: Plan
  readonly lanes: ReadonlyArray<Running>
  readonly scope: Scope.Scope
}

interface SplitState {
  readonly plan: Plan
  readonly lanes: ReadonlyArray<Running>
  readonly pieceSize: number
  readonly slots: number
  /** Pieces not handed out yet, in order. */
  readonly pieces: Array<Piece>
  readonly inFlight: Map<Running, number>
  /** The request fetching each piece now. */
  readonly requests: Map<Piece, Fiber.Fiber<unknown>>
  readonly ended: Queue.Queue<Ended>
  /** Where the next new piece starts. */
  next: number
  /** Where the content ends: the range's length, or where a piece came back short. */
  end: number
}

/** `length` bytes of `target` from `from` bytes into it. */
const pieceTarget = (target: Target, from: number, length: number): Target => ({
  ...target,
  range: { offset: (target.range?.offset ?? 0) + from, length }
})

/** Fetches the rest of `piece` from `lane`, each chunk within the stall time-out. */
const fetchPiece = (plan: Plan, lane: Running, piece: Piece): Effect.Effect<void, LaneFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const from = piece.start + piece.got
      const stream = Stream.unwrap(openBytes(lane, pieceTarget(plan.target, from, piece.end - from)))
      const pull = yield* Stream.toPull(stream)
      while (true) {
        const chunk = yield* pullWithin(pull, plan.stall)
        if (chunk === undefined) return
        for (const bytes of chunk) {
          piece.parts.push(bytes)
          piece.got += bytes.length
          lane.served += bytes.length
        }
      }
    })
  )

/** The live source with the fewest pieces in flight and room for one more. */
const leastBusy = (state: SplitState): Running | undefined => {
  let best: Running | undefined
  for (const lane of state.lanes) {
    const busy = state.inFlight.get(lane) ?? 0
    if (lane.dropped !== undefined || busy >= state.plan.split.requestsPerSource) continue
    if (best === undefined || busy < (state.inFlight.get(best) ?? 0)) best = lane
  }
  return best
}

/** Adds the pieces the window has room for, and hands each piece without a fetcher to a free source. */
const schedule = (state: SplitState, scope: Scope.Scope): Effect.Effect<void> =>
  Effect.gen(function* () {
    while (state.pieces.length < state.slots && state.next < state.end) {
      const end = Math.min(state.next + state.pieceSize, state.end)
      state.pieces.push({ start: state.next, end, parts: [], got: 0, fetcher: undefined, done: false })
      state.next = end
    }
    for (const piece of state.pieces) {
      // A piece whose bytes all arrived is done, whoever failed after: its rest would be an empty range.
      if (!piece.done && piece.start + piece.got >= Math.min(piece.end, state.end)) piece.done = true
      if (piece.done || piece.fetcher !== undefined || piece.start >= state.end) continue
      const lane = leastBusy(state)
      if (lane === undefined) return
      piece.fetcher = lane
      state.inFlight.set(lane, (state.inFlight.get(lane) ?? 0) + 1)
      const request = Effect.result(fetchPiece(state.plan, lane, piece)).pipe(
        Effect.flatMap((result) =>
          Queue.offer(state.ended, { lane, piece, failure: result._tag === "Failure" ? result.failure : undefined })
        )
      )
      state.requests.set(piece, yield* Effect.forkIn(request, scope))
    }
  })

/** Takes a piece off its source: the source has one request less in flight, the piece waits for another. */
const release = (state: SplitState, lane: Running, piece: Piece) => {
  state.inFlight.set(lane, (state.inFlight.get(lane) ?? 0) - 1)
  state.requests.delete(piece)
  piece.fetcher = undefined
}

/**
 * Stops the requests a dropped source still has in flight; each piece keeps the verified bytes it
 * got. A request that ended before it could be stopped has told its end already, and is settled as
 * it ended.
 */
const recall = (state: SplitState, lane: Running): Effect.Effect<void> =>
  Effect.forEach(
    state.pieces.filter((piece) => piece.fetcher === lane),
    (piece) => {
      const request = state.requests.get(piece)
      if (request === undefined) return Effect.void
      return Effect.andThen(Fiber.interrupt(request), () =>
        Effect.map(Fiber.await(request), (exit) => {
          if (!Exit.isSuccess(exit)) release(state, lane, piece)
        })
      )
    },
    { discard: true }
  )

/**
 * Takes a request's end into the state; a source failing is dropped, and its other requests
 * stopped. A content failure is returned, to end the download.
 */
const settle = (state: SplitState, { lane, piece, failure }: Ended): Effect.Effect<LaneFailure | undefined> => {
  release(state, lane, piece)
  // Every byte of the piece arrived, verified, before the source failed (an extra block after them, a
  // cut at the very end): the piece is done, and only the source is dropped.
  if (failure !== undefined && piece.start + piece.got >= piece.end) piece.done = true
  if (failure === undefined) {
    piece.done = true
    // Shorter than asked: the verified walk found the content's end here.
    if (piece.start + piece.got < piece.end) state.end = Math.min(state.end, piece.start + piece.got)
    return Effect.succeed(undefined)
  }
  const newlyDropped = lane.dropped === undefined
  lane.dropped ??= failure
  const ended = isContentFailure(failure) ? failure : undefined
  return newlyDropped ? Effect.as(recall(state, lane), ended) : Effect.succeed(ended)
}

const inFlight = (state: SplitState) => [...state.inFlight.values()].reduce((total, count) => total + count, 0)

/** The next piece's bytes, in order, once it is complete; the pieces after it are fetched meanwhile. */
export const pullSplit = ({
  plan,
  lanes,
  scope
}: SplitRun): Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, PlanFailure>> =>
  Effect.map(Queue.unbounded<Ended>(), (ended) => {
    const pieceSize = Math.max(1, Math.min(plan.split.rangeSize, plan.split.window))
    const state: SplitState = {
      plan,
      lanes,
      pieceSize,
      slots: Math.max(1, Math.floor(plan.split.window / pieceSize)),
      pieces: [],
      inFlight: new Map(),
      requests: new Map(),
      ended,
      next: 0,
      end: plan.target.range?.length ?? Number.POSITIVE_INFINITY
    }
    return Effect.gen(function* () {
      while (true) {
        const head = state.pieces[0]
        if (head?.done === true) {
          state.pieces.shift()
          // Its place in the window goes to the next piece now, while the caller reads this one.
          yield* schedule(state, scope)
          if (Arr.isArrayNonEmpty(head.parts)) return head.parts
          continue
        }
        if (state.next >= state.end && (head === undefined || head.start >= state.end)) return yield* Cause.done()
        yield* schedule(state, scope)
        if (inFlight(state) === 0) return yield* planFailure(plan, lanes)
        const failure = yield* settle(state, yield* Queue.take(ended))
        if (failure !== undefined && failure._tag !== "Stalled") return yield* Effect.fail(failure)
      }
    })
  })
