/**
 * The scenario on a runtime with Node's APIs (Node, Bun, Deno), over `LighthouseNode.layer`: the input is the
 * first argument (JSON), the report is printed as one JSON line. A failure prints its message and
 * exits 1.
 */
import { Effect } from "effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { layerOptions, type ScenarioInput, scenario } from "./scenario.ts"

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : (JSON.stringify(error) ?? String(error))

const input = JSON.parse(process.argv[2] ?? "{}") as ScenarioInput

Effect.runPromise(scenario(input).pipe(Effect.provide(LighthouseNode.layer(layerOptions(input))))).then(
  (report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`)
  },
  (error: unknown) => {
    // The library's errors keep what went wrong below them as `cause`.
    const cause = error instanceof Error && error.cause !== undefined ? `\n  cause: ${describe(error.cause)}` : ""
    process.stderr.write(`${describe(error)}${cause}\n`)
    process.exit(1)
  }
)
