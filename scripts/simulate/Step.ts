/**
 * One step of the simulation: an effect run once, timed, and recorded as passed (with a one-line
 * result) or failed (with the typed error's `_tag` and message). A failed step ends its flow: the
 * steps after it build on what it should have produced.
 *
 * - {@link step}: the effect must succeed.
 * - {@link refused}: the effect must fail with one given `_tag` (a stranger asking for a key).
 * - {@link check}: a failed expectation inside a step (bytes differ, a quota did not rise).
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Effect, Exit, Layer, Option, Ref, Schema } from "effect"
import type { StepError, StepReport } from "./Report.ts"

// =============================================================================
// Errors
// =============================================================================

/** An expectation of the simulation that the library's answer did not meet. */
export class CheckFailed extends Schema.TaggedError<CheckFailed>()("CheckFailed", {
  message: Schema.String
}) {}

/** A step failed (and was recorded): the rest of its flow is not run. */
export class StepFailed extends Schema.TaggedError<StepFailed>()("StepFailed", {
  step: Schema.String
}) {}

// =============================================================================
// Recorder
// =============================================================================

/** Collects the steps of the flow being run. */
export class Recorder extends Context.Service<
  Recorder,
  {
    readonly record: (step: StepReport) => Effect.Effect<void>
    readonly steps: Effect.Effect<ReadonlyArray<StepReport>>
  }
>()("lighthouse-effect/scripts/simulate/Recorder") {
  /** A fresh, empty recorder (one per flow). */
  static readonly layer = Layer.effect(
    Recorder,
    Effect.gen(function* () {
      const ref = yield* Ref.make<ReadonlyArray<StepReport>>([])
      return Recorder.of({
        record: (step) => Ref.update(ref, (steps) => [...steps, step]),
        steps: Ref.get(ref)
      })
    })
  )
}

// =============================================================================
// Helpers
// =============================================================================

const tagOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string") {
    return error._tag
  }
  return error instanceof Error ? error.name : "Defect"
}

const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message)
  return String(error)
}

/** The typed error of a failure (or the defect, or the interruption) as `_tag` and message. */
export const describeCause = (cause: Cause.Cause<unknown>): StepError => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) return { tag: tagOf(failure.value), message: messageOf(failure.value) }
  if (Cause.hasInterruptsOnly(cause)) return { tag: "Interrupted", message: "the step was interrupted" }
  const defect = Cause.squash(cause)
  return { tag: tagOf(defect), message: messageOf(defect) }
}

/** What an error shows in a report line: `_tag: message`. */
export const showError = (error: StepError): string => `${error.tag}: ${error.message}`

const elapsedMillis = (start: bigint) =>
  Effect.map(Clock.currentTimeNanos, (end) => Math.round(Number(end - start) / 1_000_000))

/** Fails the step with `message` unless `condition` holds. */
export const check = (condition: boolean, message: string): Effect.Effect<void, CheckFailed> =>
  condition ? Effect.void : Effect.fail(new CheckFailed({ message }))

/** Byte-for-byte equality. */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i])

// =============================================================================
// Steps
// =============================================================================

/**
 * Runs `effect` as the step `name` (showing `capability`), records it, and gives its value to
 * what follows; a failure is recorded and ends the flow with {@link StepFailed}.
 */
export const step = Effect.fnUntraced(function* <A, E, R>(
  capability: string,
  name: string,
  effect: Effect.Effect<A, E, R>,
  detail: (value: A) => string
): Effect.fn.Return<A, StepFailed, R | Recorder> {
  const recorder = yield* Recorder
  const start = yield* Clock.currentTimeNanos
  const exit = yield* Effect.exit(effect)
  const ms = yield* elapsedMillis(start)
  if (Exit.isSuccess(exit)) {
    yield* recorder.record({ capability, name, ok: true, ms, detail: detail(exit.value) })
    return exit.value
  }
  const error = describeCause(exit.cause)
  yield* recorder.record({ capability, name, ok: false, ms, detail: showError(error), error })
  return yield* new StepFailed({ step: name })
})

/**
 * A step that passes when `effect` fails with the error tagged `expected` (and only then): the
 * library's typed refusal, shown with its message.
 */
export const refused = <A, E, R>(
  capability: string,
  name: string,
  effect: Effect.Effect<A, E, R>,
  expected: string
): Effect.Effect<E, StepFailed, R | Recorder> =>
  step(
    capability,
    name,
    effect.pipe(
      Effect.matchEffect({
        onSuccess: () => Effect.fail(new CheckFailed({ message: `expected ${expected}, but the call succeeded` })),
        onFailure: (error) => (tagOf(error) === expected ? Effect.succeed(error) : Effect.fail(error))
      })
    ),
    (error) => `refused as expected: ${tagOf(error)} (${messageOf(error)})`
  )
