/**
 * The command line's start-up, through the packed binary: `npm run pack:cli` makes the package,
 * npm installs it into an empty project, and in one run, taking turns, Node's own start
 * (`node -e 0`), `lighthouse-effect --help`, and `lighthouse-effect upload` of a 1 KiB file to the
 * network `lighthouse-effect dev` serves on loopback. Each figure is the median wall time of its
 * runs; the targets are over Node's own start in the same run. Then what `npx` adds: the same
 * `--help` through `npx lighthouse-effect` in that project (npx finding the local bin).
 *
 * `BENCH_CLI_RUNS` sets the runs of each (default 15).
 *
 * @since 0.1.0
 */
import "../../tooling/requireNode.mjs"
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { figure, median, writeSection } from "./report.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const runs = Number(process.env.BENCH_CLI_RUNS ?? 15)
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-cli-start-"))
const npmCli = process.env.npm_execpath ?? "npm"
const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync(process.execPath, [npmCli, ...args, "--loglevel=error"], { cwd, encoding: "utf8" })

/** The package as `npm run pack:cli` makes it, installed into an empty project: its bin. */
const install = () => {
  // pack:cli prints the library's tarball, then the command line's.
  const cli = npm(["run", "-s", "pack:cli", "--", work], root).trim().split("\n").at(-1)!
  const project = join(work, "project")
  mkdirSync(project)
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "start", private: true }))
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", cli], project)
  return { project, bin: join(project, "node_modules", ".bin", "lighthouse-effect") }
}

/** `dev` on free ports from the installed bin: the hosts' variables, and the process to stop. */
const startDev = (bin: string, cwd: string) =>
  new Promise<{ readonly env: Record<string, string>; readonly dev: ChildProcess }>((resolve, reject) => {
    const dev = spawn(process.execPath, [bin, "dev", "--free-ports", "--json"], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"]
    })
    dev.once("exit", (code) => reject(new Error(`dev exited with ${code}`)))
    createInterface({ input: dev.stdout! }).once("line", (line) => resolve({ env: JSON.parse(line).env, dev }))
  })

/**
 * CPU time (user + system, ms) of this process's children that have ended, from `/proc/self/stat`
 * (its 16th and 17th fields, in clock ticks of 10 ms); `undefined` where there is no `/proc`.
 * On a busy machine the wall time of a start waits for a core; its CPU time does not.
 */
const childrenCpuMs = (): number | undefined => {
  if (!existsSync("/proc/self/stat")) return undefined
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[13]) + Number(fields[14])) * 10
}

/** Wall and CPU milliseconds of one run of `command`; a failing run stops the bench. */
const timed = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv) => {
  const [started, cpu] = [performance.now(), childrenCpuMs()]
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8" })
  const wall = performance.now() - started
  const after = childrenCpuMs()
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: exit ${result.status}\n${result.stderr}`)
  return { wall, cpu: cpu === undefined || after === undefined ? Number.NaN : after - cpu }
}

const { project, bin } = install()
const { env: hosts, dev } = await startDev(bin, project)
const env = {
  ...process.env,
  ...hosts,
  XDG_CONFIG_HOME: project,
  // The first of Hardhat's public test accounts: `api-key` signs with it and saves the key `upload` uses.
  LIGHTHOUSE_PRIVATE_KEY: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
}
writeFileSync(join(project, "one.bin"), randomBytes(1024))
timed(process.execPath, [bin, "api-key"], project, env)

const cases = {
  node: [process.execPath, ["-e", "0"]],
  help: [process.execPath, [bin, "--help"]],
  upload: [process.execPath, [bin, "upload", "one.bin", "--json"]],
  npxHelp: [process.execPath, [npmCli, "exec", "--offline", "--", "lighthouse-effect", "--help"]]
} as const
type Sample = ReturnType<typeof timed>
const samples: Record<keyof typeof cases, Array<Sample>> = { node: [], help: [], upload: [], npxHelp: [] }
const load = loadavg()[0] ?? 0
// One warm-up of each (Node's compile cache is written by the first run), then turns.
for (let turn = -1; turn < runs; turn++)
  for (const [name, [command, args]] of Object.entries(cases)) {
    const sample = timed(command, args, project, env)
    if (turn >= 0) samples[name as keyof typeof cases].push(sample)
  }
dev.kill("SIGINT")
rmSync(work, { recursive: true, force: true })

const medians = (name: keyof typeof cases) => ({
  wall: median(samples[name].map((sample) => sample.wall)),
  cpu: median(samples[name].map((sample) => sample.cpu))
})
const [node, help, upload, npxHelp] = [medians("node"), medians("help"), medians("upload"), medians("npxHelp")]
const s = (ms: number) => (Number.isNaN(ms) ? "–" : `${figure(ms / 1000)} s`)
const met = (over: number, budget: number) => (over <= budget ? "met" : "**not met**")
const row = (what: string, m: typeof node, budget: number) =>
  `| ${what} | ${s(m.wall)} | +${s(m.wall - node.wall)} | ${s(m.cpu)} | +${s(m.cpu - node.cpu)} | ≤ node + ${s(budget)} | ` +
  `${met(m.wall - node.wall, budget)} (CPU: ${met(m.cpu - node.cpu, budget)}) |`
const section = [
  "## Command-line start-up",
  "",
  `\`scripts/bench/cliStart.ts\`: the packed \`lighthouse-effect-cli\` installed by npm, medians of ${runs} runs taken in`,
  `turns in one run (load average ${load.toFixed(1)} at the start); wall time, and CPU time (user + system) of the process.`,
  "",
  "| what | wall | over `node -e 0` | CPU | over `node -e 0` | target | met |",
  "|---|---|---|---|---|---|---|",
  `| \`node -e 0\` | ${s(node.wall)} | – | ${s(node.cpu)} | – | – | – |`,
  row("`lighthouse-effect --help`", help, 250),
  row("`lighthouse-effect upload` of 1 KiB to `dev` on loopback", upload, 500),
  `| \`npx lighthouse-effect --help\` (installed locally) | ${s(npxHelp.wall)} | +${s(npxHelp.wall - node.wall)} | ${s(npxHelp.cpu)} | +${s(npxHelp.cpu - node.cpu)} | – | – |`,
  "",
  `npx adds ${s(npxHelp.wall - help.wall)} to every call (npm's own start and its lookup of the bin): a script calling the`,
  "command line per file should run the installed bin (`node_modules/.bin/lighthouse-effect`, or a global install)."
].join("\n")
writeSection(section)
console.log(section)
