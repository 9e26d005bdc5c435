/**
 * `npm start`: the whole library against a local, offline network, as a user would use it. An
 * in-process Hardhat chain with the payment contract and two stablecoins, the mock network (msw,
 * in this process) and four wallets; then every capability, flow by flow, with a report of each
 * step (✓/✗, what it did, a one-line result, its time). Exits 1 when any step fails.
 *
 * Options: `--json` (the report as JSON on stdout), `--step NAME` (one flow and the flows it
 * needs; repeatable), `--list` (the flows), `--no-color`. With `LIGHTHOUSE_SIMULATE_SECRETS_FILE`
 * set, every secret the run used (private keys, API keys, JWTs, file keys) is written there as a
 * JSON array, readable by the owner only, and nowhere else: the test that checks the output for
 * leaks learns them so.
 *
 * `runSimulation(options)` runs it in process and returns the report (see `simulate/Run.ts`).
 */
import "../tooling/requireNode.mjs"
import { writeFileSync } from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { Effect } from "effect"
import { flows } from "./simulate/Flows.ts"
import { formatText } from "./simulate/Report.ts"
import { simulation } from "./simulate/Run.ts"

export { runSimulation, simulation } from "./simulate/Run.ts"

const usage = "usage: tsx scripts/simulate.ts [--json] [--step NAME]… [--list] [--no-color]"

const main = async (): Promise<number> => {
  const { values } = parseArgs({
    options: {
      json: { type: "boolean", default: false },
      step: { type: "string", multiple: true },
      list: { type: "boolean", default: false },
      "no-color": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false }
    },
    strict: true
  })
  if (values.help) {
    console.log(usage)
    return 0
  }
  if (values.list) {
    const width = Math.max(...flows.map((flow) => flow.name.length))
    for (const flow of flows) {
      const needs = flow.needs.length === 0 ? "" : `  (needs ${flow.needs.join(", ")})`
      console.log(`${flow.name.padEnd(width)}  ${flow.title}${needs}`)
    }
    return 0
  }

  const secretsFile = process.env.LIGHTHOUSE_SIMULATE_SECRETS_FILE
  const secrets = secretsFile === undefined ? undefined : new Set<string>()
  const outcome = await Effect.runPromise(Effect.result(simulation({ flows: values.step, secrets })))
  if (secretsFile !== undefined) writeFileSync(secretsFile, JSON.stringify([...secrets!]), { mode: 0o600 })
  if (outcome._tag === "Failure") {
    console.error(`${outcome.failure.message}\n${usage}`)
    return 2
  }
  const report = outcome.success
  if (values.json) console.log(JSON.stringify(report, null, 2))
  else {
    const color = process.stdout.isTTY === true && !values["no-color"] && process.env.NO_COLOR === undefined
    console.log(formatText(report, { color }))
  }
  return report.ok ? 0 : 1
}

// Run only as the entry point: tests import `runSimulation` from here.
const entry = process.argv[1]
if (entry !== undefined && nodePath.resolve(entry) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error)
      process.exitCode = 2
    }
  )
}
