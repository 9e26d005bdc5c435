/**
 * A flow: a user story told in steps (pay for storage, share an encrypted file…), which may need
 * other flows to have run first (an API key before an upload). {@link plan} orders a selection
 * with everything it needs; {@link run} runs one flow and reports it.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Effect, Option, Schema } from "effect"
import type { Lighthouse } from "lighthouse-effect"
import type { Env } from "./Environment.ts"
import type { FlowReport } from "./Report.ts"
import type { Session } from "./Session.ts"
import { describeCause, Recorder, type StepFailed, showError } from "./Step.ts"

/** What a flow's steps may use. */
export type FlowServices = Lighthouse.Services | Env | Session | Recorder

export interface Flow {
  /** What `--step` takes. */
  readonly name: string
  readonly title: string
  /** Flows that must have run (and passed) first. */
  readonly needs: ReadonlyArray<string>
  /** Its steps; a failed step ends it with `StepFailed`. */
  readonly run: Effect.Effect<void, StepFailed, FlowServices>
}

/** A `--step` name that is no flow. */
export class UnknownFlow extends Schema.TaggedError<UnknownFlow>()("UnknownFlow", {
  flow: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `unknown flow "${this.flow}"; flows: ${this.known.join(", ")}`
  }
}

/**
 * The flows to run: the selected ones (all when none is given) and, transitively, the ones they
 * need, in the order of `flows` (which lists every flow after its needs).
 */
export const plan = (
  flows: ReadonlyArray<Flow>,
  selected?: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Flow>, UnknownFlow> =>
  Effect.gen(function* () {
    if (selected === undefined || selected.length === 0) return flows
    const byName = new Map(flows.map((flow) => [flow.name, flow]))
    const unknown = selected.find((name) => !byName.has(name))
    if (unknown !== undefined) return yield* new UnknownFlow({ flow: unknown, known: [...byName.keys()] })
    const wanted = new Set<string>()
    const visit = (name: string) => {
      if (wanted.has(name)) return
      wanted.add(name)
      byName.get(name)?.needs.forEach(visit)
    }
    selected.forEach(visit)
    return flows.filter((flow) => wanted.has(flow.name))
  })

/** Runs `flow` with a recorder of its own: passed, failed at a step, or skipped for a failed need. */
export const run = (
  flow: Flow,
  failed: ReadonlySet<string>
): Effect.Effect<FlowReport, never, Exclude<FlowServices, Recorder>> => {
  const missing = flow.needs.filter((need) => failed.has(need))
  if (missing.length > 0) {
    return Effect.succeed({
      name: flow.name,
      title: flow.title,
      status: "skipped",
      ms: 0,
      steps: [],
      reason: `needs ${missing.join(", ")}, which failed`
    })
  }
  return Effect.gen(function* () {
    const recorder = yield* Recorder
    const start = yield* Clock.currentTimeMillis
    const ended = yield* Effect.exit(flow.run)
    const ms = (yield* Clock.currentTimeMillis) - start
    const recorded = yield* recorder.steps
    // A failure outside any step (a defect between steps) is shown as a step of its own.
    const outside =
      ended._tag === "Failure" && !Option.exists(Cause.findErrorOption(ended.cause), (e) => e._tag === "StepFailed")
        ? [describeCause(ended.cause)]
        : []
    const steps = [
      ...recorded,
      ...outside.map((error) => ({
        capability: `${flow.name}.aborted`,
        name: "flow aborted",
        ok: false,
        ms: 0,
        detail: showError(error),
        error
      }))
    ]
    const passed = ended._tag === "Success" && steps.every((step) => step.ok)
    return { name: flow.name, title: flow.title, status: passed ? "passed" : "failed", ms, steps } as FlowReport
  }).pipe(Effect.provide(Recorder.layer, { local: true }))
}
