/**
 * `npm run test:runtimes`: the same scenario (`scenario.ts`) on every runtime the library claims,
 * against the local network served on loopback (free ports, no chain): Node (this process's, the
 * pinned 24), Bun and Deno (from their npm packages) running the sources, and workerd without Node
 * compatibility running the scenario bundled as wrangler bundles a worker (esbuild, browser
 * platform, conditions workerd/worker/browser) and as Vite bundles it; the esbuild bundle also
 * runs in a headless Chromium page (a cross-origin caller: every request passes CORS). The
 * Cloudflare Worker example of docs/runtimes.md is bundled and served by workerd too, and called over HTTP.
 *
 * Quiet when it passes (one line); on a failure it prints what the failing runtime printed and
 * exits 1.
 */
import "../../../tooling/requireNode.mjs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { generatePrivateKey } from "viem/accounts"
import { bundleWithEsbuild, bundleWithVite, readmeWorker } from "./bundle.ts"
import { openInChromium } from "./chromium.ts"
import { bin, root, runProcess, source } from "./processes.ts"
import { checkReadmeWorker } from "./readmeWorker.ts"
import type { ScenarioInput, ScenarioReport } from "./scenario.ts"
import { startWorkerd, workerdVersion } from "./workerd.ts"

/** Where a runtime's scenario ran, and what it must have seen. */
interface Run {
  readonly name: string
  readonly fileSystem: boolean
  /** Runs the scenario with this input; the report, or the runtime's output as the error. */
  readonly run: (input: ScenarioInput) => Promise<ScenarioReport>
}

class RuntimeFailed extends Error {
  constructor(runtime: string, detail: string) {
    super(`${runtime}: ${detail}`)
    this.name = "RuntimeFailed"
  }
}

/** A runtime with Node's APIs running `main.ts`, the input as its argument, the report on stdout. */
/** `stateHome`: where the encrypted upload's key journal goes (not the user's own state directory). */
const processRun = (name: string, command: string, args: ReadonlyArray<string>, stateHome: string): Run => ({
  name,
  fileSystem: true,
  run: async (input) => {
    const main = join(root, "scripts/test/runtimes/main.ts")
    const result = await runProcess(command, [...args, main, JSON.stringify(input)], { XDG_STATE_HOME: stateHome })
    if (result.status !== 0) throw new RuntimeFailed(name, `exit ${result.status}\n${result.output}`)
    return JSON.parse(result.stdout) as ScenarioReport
  }
})

/** The scenario worker's `fetch` handler reached by `call` (workerd over HTTP, or in a Chromium page). */
const workerRun = (
  name: string,
  call: (body: string) => Promise<{ readonly status: number; readonly text: string }>
): Run => ({
  name,
  fileSystem: false,
  run: async (input) => {
    const { status, text } = await call(JSON.stringify(input))
    if (status !== 200) throw new RuntimeFailed(name, `HTTP ${status}\n${text}`)
    return JSON.parse(text) as ScenarioReport
  }
})

/** POSTs to a worker served by workerd. */
const post = (url: string) => async (body: string) => {
  const response = await fetch(url, { method: "POST", body })
  return { status: response.status, text: await response.text() }
}

const expectedSteps = [
  "sign in",
  "plain upload, verified download",
  "encrypted upload, decrypting download",
  "key shards saved and recovered",
  "access condition",
  "ipns",
  "file info, uploads list",
  "path input"
]

/** What every report must show; the runs must also agree with each other (see `main`). */
const checkReport = (run: Run, report: ScenarioReport) => {
  const problems = [
    JSON.stringify(report.steps) === JSON.stringify(expectedSteps) ? "" : `steps ${JSON.stringify(report.steps)}`,
    // Only a runtime without Node takes the web paths (WebCrypto, no file system).
    report.isNode === run.fileSystem ? "" : `isNode is ${report.isNode}`,
    run.fileSystem || report.node === null ? "" : `claims Node ${report.node}`,
    run.fileSystem === report.pathInput.startsWith("bafk") ? "" : `path input: ${report.pathInput}`,
    run.fileSystem || report.pathInput === "PlatformError NotFound" ? "" : `path input: ${report.pathInput}`
  ].filter((problem) => problem !== "")
  if (problems.length > 0) throw new RuntimeFailed(run.name, problems.join("; "))
}

const pathContent = "a file read from a path\n"

const inputFor = (served: ServedMockNetwork, path: string, fileSystem: boolean): ScenarioInput => ({
  hosts: {
    api: served.urls.api,
    node: served.urls.node,
    gateway: served.urls.gateway,
    encryption: served.urls.encryption
  },
  ownerKey: generatePrivateKey(),
  friendKey: generatePrivateKey(),
  path,
  pathContent: pathContent,
  fileSystem
})

/** Runs every runtime one after the other (2 shared cores); the reports in order. */
const runAll = async (runs: ReadonlyArray<Run>, served: ServedMockNetwork, path: string) => {
  const reports: Array<ScenarioReport> = []
  for (const run of runs) {
    const report = await run.run(inputFor(served, path, run.fileSystem))
    checkReport(run, report)
    reports.push(report)
  }
  const cids = new Set(reports.map((report) => report.plainCid))
  if (cids.size !== 1) throw new RuntimeFailed("all", `the same bytes gave different CIDs: ${[...cids].join(", ")}`)
  const paths = new Set(reports.filter((_, i) => runs[i]!.fileSystem).map((report) => report.pathInput))
  if (paths.size !== 1) throw new RuntimeFailed("all", `the same file gave different CIDs: ${[...paths].join(", ")}`)
  return reports
}

const main = async () => {
  const started = performance.now()
  const work = await mkdtemp(join(tmpdir(), "lighthouse-effect-runtimes-"))
  const served = await serveMockNetwork()
  try {
    const path = join(work, "from-a-path.txt")
    await writeFile(path, pathContent)
    const scenarioWorker = join(root, "scripts/test/runtimes/worker.ts")
    const bundles = {
      esbuild: await bundleWithEsbuild({ path: scenarioWorker }, join(work, "esbuild")),
      vite: await bundleWithVite(scenarioWorker, join(work, "vite")),
      example: await bundleWithEsbuild(await readmeWorker(), join(work, "example"))
    }
    const account = served.network.seedAccount(
      "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" // Hardhat's second public test account
    )
    const workerd = await startWorkerd(work, [
      { name: "esbuild", file: bundles.esbuild, bindings: {} },
      { name: "vite", file: bundles.vite, bindings: {} },
      {
        name: "example",
        file: bundles.example,
        bindings: { LIGHTHOUSE_API_KEY: account.apiKey, LIGHTHOUSE_HOSTS: JSON.stringify(served.urls) }
      }
    ])
    const browser = await openInChromium(bundles.esbuild).catch(async (error: unknown) => {
      await workerd.stop()
      throw error
    })
    try {
      const stateHome = join(work, "state")
      const runs = [
        processRun(`Node ${process.versions.node}`, process.execPath, [`--conditions=${source}`], stateHome),
        processRun("Bun", bin("bun"), [`--conditions=${source}`], stateHome),
        processRun(
          "Deno",
          bin("deno"),
          [
            "run",
            `--conditions=${source}`,
            "--node-modules-dir=manual",
            "--allow-net=127.0.0.1",
            "--allow-read",
            `--allow-write=${stateHome}`,
            // The key journal: the owner checks of its files (uid, gid) and, without HOME, the home.
            "--allow-sys=uid,gid,homedir",
            "--allow-env"
          ],
          stateHome
        ),
        workerRun("workerd (esbuild bundle)", post(workerd.urls.esbuild!)),
        workerRun("workerd (Vite bundle)", post(workerd.urls.vite!)),
        workerRun(`Chromium ${browser.version}`, browser.call)
      ]
      const reports = await runAll(runs, served, path)
      await checkReadmeWorker(workerd.urls.example!)
      const agents = reports.map((report) => report.userAgent.replace("/", " ")).slice(1, 3)
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      console.log(
        `runtimes: the scenario passed on Node ${process.versions.node}, ${agents.join(", ")} and workerd ` +
          `${await workerdVersion()} without Node compatibility (esbuild and Vite bundles) and Chromium ` +
          `${browser.version}; ` +
          `the worker of docs/runtimes.md answered in workerd (${seconds} s)`
      )
    } finally {
      await settleWithin(browser.close(), "closing Chromium")
      await workerd.stop()
    }
  } finally {
    await settleWithin(served.close(), "closing the local network")
    await rm(work, { recursive: true, force: true })
  }
}

/**
 * Waits for a clean-up step at most 10 s: a close that never settles (seen once in CI runs: the
 * scenario had passed and the runner sat idle for minutes) must not hold `npm test`.
 */
const settleWithin = (step: Promise<unknown>, what: string) =>
  new Promise<void>((done) => {
    const limit = setTimeout(() => {
      process.stderr.write(`test:runtimes: ${what} took over 10 s; going on\n`)
      done()
    }, 10_000)
    step
      .then(
        () => done(),
        () => done()
      )
      .finally(() => clearTimeout(limit))
  })

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`test:runtimes failed: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
)
