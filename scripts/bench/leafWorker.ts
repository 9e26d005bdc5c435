/**
 * Leaf hashing on a second core: a large file's CID calculation, as a verified upload does it
 * (`Verify.cidsOf` over the file read in 256 KiB chunks by Effect's Node file system, the upload's
 * own reader), with the leaf worker forced on against forced off (`LIGHTHOUSE_EFFECT_LEAF_WORKER`),
 * taking turns, each run in a fresh child process:
 *
 * - the large file (`BENCH_LEAF_MIB`, default 1024) on every core this machine has: wall time,
 *   the process's CPU time and the main thread's own (Linux), and the workers started;
 * - the same pinned to one core (`taskset -c 0`: `availableParallelism()` is 1, so forced on must
 *   start no worker and take the time of off);
 * - a 4 MiB file, below the 16 MiB threshold: forced on starts no worker.
 *
 * Targets (issue 40): ≥ 1.5× wall-time speed-up on a quiet 2-core machine, no slower on one core,
 * off when small. Beside them, what bounds the speed-up: SHA-256 of the file on this thread against
 * the main thread's CPU without the worker (the rest, reads, copies and dag-pb framing, stays here).
 *
 * Runs: `BENCH_LEAF_RUNS` (default 5) of each case, medians kept.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/leafWorker.ts` prints the rows and
 * rewrites the `## Leaf hashing on a second core` section of BENCHMARKS.md.
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import { createRequire, syncBuiltinESMExports } from "node:module"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { envNumber, MiB, makeFile } from "./measure.ts"
import * as Report from "./report.ts"

type Mode = "on" | "off"

/** One CID calculation in a child. */
interface Run {
  readonly wallMs: number
  /** User + system CPU time of the whole process (the worker's thread included). */
  readonly cpuMs: number
  /** The main thread's own CPU time, where Linux tells it. */
  readonly mainCpuMs: number | undefined
  readonly workers: number
  readonly cid: string
}

const CHILD = "--leaf-child"
const self = fileURLToPath(import.meta.url)

/** The main thread's user + system CPU time in ms (`/proc/self/task/<pid>/stat`, clock ticks of 10 ms). */
const mainThreadCpuMs = (): number | undefined => {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

/**
 * Counts the leaf workers started from now on: the module's `Worker` is replaced before the library
 * is imported (and the ES module bindings synced), so the library's import of it is the counting
 * one. Only workers evaluated from a string count (the leaf worker's kind): tsx's esbuild starts one
 * from a file to compile synchronously.
 */
const countWorkers = () => {
  const threads = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads")
  const counted = { workers: 0 }
  const Original = threads.Worker
  threads.Worker = class extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args)
      if (args[1]?.eval === true) counted.workers++
    }
  }
  syncBuiltinESMExports()
  return counted
}

/** Child: the CIDs of `file`, measured; the mode comes from the environment the parent set. */
const runChild = async (file: string): Promise<Run> => {
  const counted = countWorkers()
  const { Effect, Stream } = await import("effect")
  const FileSystem = await import("effect/FileSystem")
  const NodeFileSystem = await import("@effect/platform-node/NodeFileSystem")
  const { Verify } = await import("lighthouse-effect")
  const calculation = Effect.gen(function* () {
    const fileSystem = yield* FileSystem.FileSystem
    const content = fileSystem.stream(file, { chunkSize: 256 * 1024 }).pipe(Stream.orDie)
    const entries = yield* Verify.cidsOf([{ path: nodePath.basename(file), content }], { cidVersion: 1 })
    return entries.at(-1)!.cid.toString()
  }).pipe(Effect.provide(NodeFileSystem.layer))
  const mainBefore = mainThreadCpuMs()
  const cpu = process.cpuUsage()
  const started = performance.now()
  const cid = await Effect.runPromise(calculation)
  const wallMs = performance.now() - started
  const used = process.cpuUsage(cpu)
  const mainAfter = mainThreadCpuMs()
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    mainCpuMs: mainBefore === undefined || mainAfter === undefined ? undefined : mainAfter - mainBefore,
    workers: counted.workers,
    cid
  }
}

/** One run in a child with the worker forced `mode`, on every core or pinned to core 0. */
const inChild = (file: string, mode: Mode, pinned: boolean) =>
  new Promise<Run>((resolve, reject) => {
    const node = [process.execPath, ...process.execArgv, self, CHILD, file]
    const [command, ...args] = pinned ? ["taskset", "-c", "0", ...node] : node
    execFile(
      command!,
      args,
      { env: { ...process.env, LIGHTHOUSE_EFFECT_LEAF_WORKER: mode }, maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${mode}${pinned ? " (one core)" : ""} failed: ${error.message}\n${stderr}`))
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Run)
      }
    )
  })

interface Pair {
  readonly on: ReadonlyArray<Run>
  readonly off: ReadonlyArray<Run>
}

/** `runs` of on and off, taking turns (which goes first alternates), every CID the same. */
const pairOf = async (file: string, runs: number, pinned: boolean): Promise<Pair> => {
  const on: Array<Run> = []
  const off: Array<Run> = []
  for (let r = 0; r < runs; r++) {
    for (const mode of r % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)) {
      const run = await inChild(file, mode, pinned)
      ;(mode === "on" ? on : off).push(run)
      console.log(
        `  ${nodePath.basename(file)} ${mode}${pinned ? " (one core)" : ""}: ${Report.figure(run.wallMs / 1000)} s, ` +
          `CPU ${Report.figure(run.cpuMs / 1000)} s, workers ${run.workers}, load ${loadavg()[0]!.toFixed(1)}`
      )
    }
  }
  const cids = new Set([...on, ...off].map((run) => run.cid))
  if (cids.size !== 1) throw new Error(`${file}: the CIDs differ between runs (${[...cids].join(", ")})`)
  return { on, off }
}

const medianOf = (runs: ReadonlyArray<Run>, field: "wallMs" | "cpuMs" | "mainCpuMs") =>
  Report.median(runs.map((run) => run[field] ?? Number.NaN)) / 1000

const maxWorkers = (runs: ReadonlyArray<Run>) => Math.max(...runs.map((run) => run.workers))

/** Seconds of SHA-256 over `mib` MiB in 256 KiB leaves on this thread: the work the worker can take. */
const sha256Seconds = (mib: number) => {
  const leaf = new Uint8Array(256 * 1024).fill(7)
  const cpu = process.cpuUsage()
  for (let i = 0; i < mib * 4; i++) createHash("sha256").update(leaf).digest()
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / 1e6
}

/** The rows of the large file on every core, pinned to one, and the small file. */
const rowsOf = (label: string, all: Pair, one: Pair, small: Pair, hashing: number): Array<Report.BenchRow> => {
  const wall = { on: medianOf(all.on, "wallMs"), off: medianOf(all.off, "wallMs") }
  const pinned = { on: medianOf(one.on, "wallMs"), off: medianOf(one.off, "wallMs") }
  const main = { on: medianOf(all.on, "mainCpuMs"), off: medianOf(all.off, "mainCpuMs") }
  return [
    {
      benchmark: `${label}, worker on: wall time (workers started: ${maxWorkers(all.on)})`,
      value: wall.on,
      unit: "s",
      baseline: { name: "off", value: wall.off },
      ratio: wall.off / wall.on,
      target: "≥ 1.5× speed-up (quiet 2 cores)",
      pass: wall.off / wall.on >= 1.5 && maxWorkers(all.on) === 1
    },
    {
      benchmark: `${label}, worker on: CPU time, all threads`,
      value: medianOf(all.on, "cpuMs"),
      unit: "s",
      baseline: { name: "off", value: medianOf(all.off, "cpuMs") },
      ratio: medianOf(all.on, "cpuMs") / medianOf(all.off, "cpuMs"),
      target: "reported",
      pass: true
    },
    {
      benchmark: `${label}, worker on: main thread's CPU time`,
      value: main.on,
      unit: "s",
      baseline: { name: "off", value: main.off },
      ratio: main.on / main.off,
      target: "reported",
      pass: true
    },
    {
      benchmark: `${label}, SHA-256 of its leaves on one thread (what the worker can take): share of off's main thread`,
      value: hashing,
      unit: "s",
      baseline: { name: "off's main thread", value: main.off },
      ratio: hashing / main.off,
      target: `reported (bound: ${Report.figure(main.off / Math.max(main.off - hashing, 1e-9))}× speed-up)`,
      pass: true
    },
    {
      benchmark: `${label}, one core (taskset), forced on: wall time (workers started: ${maxWorkers(one.on)})`,
      value: pinned.on,
      unit: "s",
      baseline: { name: "off", value: pinned.off },
      ratio: pinned.on / pinned.off,
      target: "≤ 1.05× off, no worker",
      pass: pinned.on <= pinned.off * 1.05 && maxWorkers(one.on) === 0
    },
    {
      benchmark: `4 MiB file, forced on: workers started`,
      value: maxWorkers(small.on),
      unit: "",
      baseline: { name: "off", value: maxWorkers(small.off) },
      target: "0 (below 16 MiB)",
      pass: maxWorkers(small.on) === 0
    }
  ]
}

const main = async () => {
  const mib = envNumber("BENCH_LEAF_MIB") ?? 1024
  const runs = envNumber("BENCH_LEAF_RUNS") ?? 5
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "lighthouse-leaf-bench-"))
  try {
    const large = nodePath.join(dir, `${mib}MiB.bin`)
    const small = nodePath.join(dir, "4MiB.bin")
    await makeFile(large, mib)
    await makeFile(small, 4)
    const load = loadavg()[0]!
    const label = `${mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`} CID calculation`
    console.log(`${label}, ${runs} runs per case, ${availableParallelism()} cores, load ${load.toFixed(1)}`)
    const all = await pairOf(large, runs, false)
    const one = await pairOf(large, runs, true)
    const smallPair = await pairOf(small, 1, false)
    const rows = rowsOf(label, all, one, smallPair, sha256Seconds(mib))
    const loadAfter = loadavg()[0]!
    Report.printRows(rows)
    Report.writeSection(
      [
        "## Leaf hashing on a second core",
        "",
        `\`npx tsx --conditions=@lighthouse-effect/source scripts/bench/leafWorker.ts\`: a ${label.replace(" CID calculation", "")} random file's CIDs`,
        "as a verified upload computes them (`Verify.cidsOf` over the file in 256 KiB reads), the leaf worker",
        `forced on against forced off, taking turns, each run a fresh process, medians of ${runs};`,
        `${availableParallelism()} cores, load average ${load.toFixed(1)} before and ${loadAfter.toFixed(1)} after.`,
        "The one-core pair runs under `taskset -c 0`; the main thread's CPU time is read from /proc.",
        "",
        ...Report.comparisonTable(rows)
      ].join("\n")
    )
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === CHILD) {
  process.stdout.write(`${JSON.stringify(await runChild(process.argv[3]!))}\n`)
} else {
  await main()
}
