/**
 * Runs the simulation: the setup steps (chain, contracts, mock network, wallets), then the
 * selected flows with what they need, each reported step by step; everything started is stopped
 * at the end, whatever happened.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Option } from "effect"
import { LighthouseConfig } from "lighthouse-effect"
import type { MockNetwork } from "lighthouse-effect/mocks"
import { Env, header, libraryLayer, setup } from "./Environment.ts"
import * as Flow from "./Flow.ts"
import { flows } from "./Flows.ts"
import * as Report from "./Report.ts"
import { Session } from "./Session.ts"
import { Recorder } from "./Step.ts"

export interface Options {
  /** Flows to run (with what they need); every flow when empty or absent. */
  readonly flows?: ReadonlyArray<string> | undefined
  /** Receives every secret the run used (see `Environment.secrets`), at its end: tests check none is printed. */
  readonly secrets?: Set<string> | undefined
  /** Called with the mock network before the first flow: tests arm faults here. */
  readonly arrange?: ((network: MockNetwork) => void) | undefined
}

/** The flows' key-node policy: concurrent, for speed. */
const mode = "concurrent"

const policyNote =
  `called concurrently for speed; the configured default is ${LighthouseConfig.defaults.nodes.mode} ` +
  `with ${Duration.toMillis(LighthouseConfig.defaults.nodes.pause)} ms between two nodes (flow "policy" times both)`

/** The simulation as an Effect: the report, whatever passed or failed; an unknown flow name fails. */
export const simulation = (options: Options = {}): Effect.Effect<Report.Report, Flow.UnknownFlow> =>
  Effect.gen(function* () {
    const selected = yield* Flow.plan(flows, options.flows)
    const start = yield* Clock.currentTimeMillis

    // Setup is reported like a flow; without it nothing else can run.
    const setupStart = yield* Clock.currentTimeMillis
    const prepared = yield* Effect.gen(function* () {
      const env = yield* Effect.option(setup)
      return { env, steps: yield* (yield* Recorder).steps }
    }).pipe(Effect.provide(Recorder.layer, { local: true }))
    const setupReport: Report.FlowReport = {
      name: "setup",
      title: "local chain, contracts, mock network, wallets",
      status: Option.isSome(prepared.env) ? "passed" : "failed",
      ms: (yield* Clock.currentTimeMillis) - setupStart,
      steps: prepared.steps
    }

    const reports: Array<Report.FlowReport> = [setupReport]
    if (Option.isSome(prepared.env)) {
      const env = prepared.env.value
      const arrange = options.arrange
      if (arrange !== undefined) yield* Effect.sync(() => arrange(env.network))
      const failed = new Set<string>()
      yield* Effect.gen(function* () {
        for (const flow of selected) {
          const report = yield* Flow.run(flow, failed)
          if (report.status !== "passed") failed.add(flow.name)
          reports.push(report)
        }
      }).pipe(
        Effect.provide(Layer.mergeAll(libraryLayer(env, { mode }), Layer.succeed(Env, env), Session.layer), {
          local: true
        })
      )
    } else {
      for (const flow of selected)
        reports.push({
          name: flow.name,
          title: flow.title,
          status: "skipped",
          ms: 0,
          steps: [],
          reason: "setup failed"
        })
    }

    if (options.secrets !== undefined && Option.isSome(prepared.env)) {
      for (const secret of prepared.env.value.secrets) options.secrets.add(secret)
    }
    return Report.make({
      selected: selected.map((flow) => flow.name),
      header: Option.isSome(prepared.env) ? header(prepared.env.value, mode, policyNote) : undefined,
      flows: reports,
      ms: (yield* Clock.currentTimeMillis) - start
    })
  }).pipe(Effect.scoped)

/** The simulation as a Promise of its report. */
export const runSimulation = (options: Options = {}): Promise<Report.Report> => Effect.runPromise(simulation(options))
