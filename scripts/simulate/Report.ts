/**
 * The simulation's report: what each step did, how long it took and, when it failed, the typed
 * error's `_tag` and message; grouped by flow, with a header saying what the run was made of
 * (chain, contracts, wallets, key-node policy). Plain data, so `--json` prints it as it is.
 *
 * @since 0.1.0
 */

// =============================================================================
// Models
// =============================================================================

/** A failure as the user sees it: the error's `_tag` and message. */
export interface StepError {
  readonly tag: string
  readonly message: string
}

/** One step: a capability of the library exercised once. */
export interface StepReport {
  /** The capability shown, e.g. `upload.file` or `access.refused`. */
  readonly capability: string
  /** What was done, in words. */
  readonly name: string
  readonly ok: boolean
  /** Wall time of the step. */
  readonly ms: number
  /** One line: CIDs, amounts, counts; on failure, `_tag: message`. */
  readonly detail: string
  readonly error?: StepError | undefined
}

/** `skipped`: a flow it needs failed, so it was not run. */
export type FlowStatus = "passed" | "failed" | "skipped"

export interface FlowReport {
  readonly name: string
  readonly title: string
  readonly status: FlowStatus
  readonly ms: number
  readonly steps: ReadonlyArray<StepReport>
  /** Why it was skipped. */
  readonly reason?: string | undefined
}

/** What the run was made of. */
export interface Header {
  readonly chainId: number
  /** Addresses of the local deployment. */
  readonly contracts: Readonly<Record<string, string>>
  /** Addresses of the wallets by role. */
  readonly wallets: Readonly<Record<string, string>>
  /** The key-node policy of the flows, and a note on the configured default. */
  readonly nodePolicy: { readonly mode: "sequential" | "concurrent"; readonly note: string }
  /** Mock hosts, as the library addresses them (msw answers in process). */
  readonly hosts: Readonly<Record<string, string>>
}

export interface Report {
  readonly ok: boolean
  /** Flows asked for (`--step`), or every flow. */
  readonly selected: ReadonlyArray<string>
  readonly header: Header | undefined
  readonly flows: ReadonlyArray<FlowReport>
  readonly totals: {
    readonly steps: number
    readonly passed: number
    readonly failed: number
    readonly skipped: number
  }
  readonly ms: number
}

/** Every capability the report shows, passed or not, in order. */
export const capabilities = (report: Report): ReadonlyArray<string> => [
  ...new Set(report.flows.flatMap((flow) => flow.steps.map((step) => step.capability)))
]

/** Assembles the report from the flows run (and skipped). */
export const make = (input: {
  readonly selected: ReadonlyArray<string>
  readonly header: Header | undefined
  readonly flows: ReadonlyArray<FlowReport>
  readonly ms: number
}): Report => {
  const steps = input.flows.flatMap((flow) => flow.steps)
  const failed = steps.filter((step) => !step.ok).length
  const skipped = input.flows.filter((flow) => flow.status === "skipped").length
  return {
    ok: failed === 0 && skipped === 0 && input.flows.every((flow) => flow.status === "passed"),
    selected: input.selected,
    header: input.header,
    flows: input.flows,
    totals: { steps: steps.length, passed: steps.length - failed, failed, skipped },
    ms: input.ms
  }
}

// =============================================================================
// Text
// =============================================================================

const green = (s: string, color: boolean) => (color ? `\x1b[32m${s}\x1b[0m` : s)
const red = (s: string, color: boolean) => (color ? `\x1b[31m${s}\x1b[0m` : s)
const dim = (s: string, color: boolean) => (color ? `\x1b[2m${s}\x1b[0m` : s)

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** The report for a terminal: header, one line per step, totals. */
export const formatText = (report: Report, options: { readonly color?: boolean } = {}): string => {
  const color = options.color ?? false
  const lines: Array<string> = ["lighthouse-effect simulation: every capability against a local, offline network"]
  const header = report.header
  if (header !== undefined) {
    lines.push(
      `  chain       in-process Hardhat (EDR), chain id ${header.chainId}`,
      `  contracts   ${Object.entries(header.contracts)
        .map(([name, address]) => `${name} ${address}`)
        .join(", ")}`,
      `  network     mock API, upload nodes and gateways (IPFS, Walrus), 5 key nodes (msw, in process): ${Object.values(header.hosts).join(", ")}`,
      `  wallets     ${Object.entries(header.wallets)
        .map(([role, address]) => `${role} ${address}`)
        .join(", ")}`,
      `  key nodes   ${header.nodePolicy.mode}: ${header.nodePolicy.note}`
    )
  }
  const nameWidth = Math.max(24, ...report.flows.flatMap((flow) => flow.steps.map((step) => step.name.length)))
  for (const flow of report.flows) {
    const mark = flow.status === "passed" ? green("✓", color) : flow.status === "failed" ? red("✗", color) : "-"
    lines.push("", `${mark} ${flow.name}: ${flow.title}  ${dim(`(${flow.ms} ms)`, color)}`)
    if (flow.status === "skipped") lines.push(`    skipped: ${flow.reason ?? "a flow it needs failed"}`)
    for (const step of flow.steps) {
      const stepMark = step.ok ? green("✓", color) : red("✗", color)
      const ms = `${step.ms} ms`.padStart(8)
      lines.push(`  ${stepMark} ${step.name.padEnd(nameWidth)} ${dim(ms, color)}  ${step.detail}`)
    }
  }
  const { steps, passed, failed, skipped } = report.totals
  const verdict = report.ok ? green("PASSED", color) : red("FAILED", color)
  lines.push(
    "",
    `${verdict}: ${passed}/${steps} steps passed, ${failed} failed` +
      `${skipped > 0 ? `, ${skipped} flows skipped` : ""}, setup + ${report.flows.filter((flow) => flow.name !== "setup").length} flows in ${seconds(report.ms)}`
  )
  return lines.join("\n")
}
