/**
 * Downloading one file from several gateways at once (`sources`, strategy `split`) against
 * today's default download from one gateway, in the same run on the same file:
 *
 * - three gateways, each served by a process of its own (`npm run serve -- --gateway rate=10MiB`)
 *   and capped at 10 MiB/s, all its answers together; the processes share one `--state-dir`, so
 *   each reads the blocks the first one stored;
 * - `split` over the three against the default download from one of them: wall time (target
 *   ≤ 0.45× of one gateway's), the client's CPU time beside it, and its peak RSS growth (target
 *   ≤ one gateway's growth + 32 MiB);
 * - `split` with one of the three lying (`--gateway rate=10MiB,lie`): the file must arrive intact
 *   (its SHA-256 against the source's), the liar dropped;
 * - `toFile` with `resume: true` from the three, the client killed (SIGKILL) once `<out>.partial`
 *   holds 90 % of the file, then run again: the bytes the gateway processes sent during the
 *   second run (their `wchar`, `/proc/<pid>/io`), against the file's size (target ≤ 12 %).
 *
 * Each download runs in a fresh child process (this file, `--expose-gc`), measured as
 * `measure.ts` says. Size: `BENCH_SOURCES_MIB` (default 1024); `BENCH_SOURCES_RATE_MIB` the cap
 * per gateway in MiB/s (default 10).
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/sources.ts` prints the rows and
 * rewrites the `## Many sources` section of BENCHMARKS.md; `scripts/bench/index.ts` runs it too.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { Effect, ManagedRuntime } from "effect"
import { Download, Upload } from "lighthouse-effect"
import { clientLayer, envNumber, type Measured, MiB, makeFile, measure, sha256Of } from "./measure.ts"
import * as Report from "./report.ts"

type Hosts = Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>

const self = fileURLToPath(import.meta.url)
const root = nodePath.resolve(nodePath.dirname(self), "..", "..")
const CHILD = "--sources-child"
const API_KEY = "bench-sources-key"
const ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

/** What a child downloads, and how. */
type Case = "one" | "split" | "resume"

interface ChildInput {
  readonly hosts: Hosts
  readonly cid: string
  readonly out: string
  /** The gateways of `split` and `resume`. */
  readonly sources: ReadonlyArray<string>
}

/** A child's figures, with the report of the sources it used. */
interface ChildResult extends Measured {
  readonly sources?:
    | ReadonlyArray<{ readonly gateway: string; readonly bytes: number; readonly dropped?: string }>
    | undefined
}

// =============================================================================
// Child: one download, measured
// =============================================================================

const download = async (which: Case, input: ChildInput): Promise<ChildResult> => {
  const runtime = ManagedRuntime.make(clientLayer(input.hosts))
  const service = await runtime.runPromise(Effect.service(Download.Download))
  let sources: ChildResult["sources"]
  const measured = await measure(async () => {
    const report = await runtime.runPromise(
      which === "one"
        ? service.toFile(input.cid, input.out)
        : service.toFile(input.cid, input.out, {
            sources: input.sources,
            strategy: "split",
            ...(which === "resume" ? { resume: true } : {})
          })
    )
    sources = report.sources
    return undefined
  })
  await runtime.dispose()
  return { ...measured, sources }
}

// =============================================================================
// Parent: the gateway processes, the file, the children
// =============================================================================

/** A serve process and what its `--json` line says. */
interface Gateway {
  readonly process: ChildProcess
  readonly hosts: Hosts
  /** Its `--gateway`s' URLs, in order. */
  readonly extra: ReadonlyArray<string>
}

/** Starts `npm run serve` with `args` (and `--json`); resolves once it listens. */
const startServe = (args: ReadonlyArray<string>): Promise<Gateway> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@lighthouse-effect/source", "--import", "tsx", "scripts/serve.ts", "--json", ...args],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return
      const served = JSON.parse(line) as { urls: Hosts; gateways: ReadonlyArray<{ url: string }> }
      resolve({ process: child, hosts: served.urls, extra: served.gateways.map((gateway) => gateway.url) })
    })
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)))
  })

const stopServe = async (gateway: Gateway) => {
  if (gateway.process.exitCode !== null) return
  const exited = new Promise((resolve) => gateway.process.once("exit", resolve))
  gateway.process.kill("SIGTERM")
  await exited
}

/** Bytes the process has written to files and sockets so far (Linux). */
const bytesWritten = (gateway: Gateway): number => {
  const match = /^wchar:\s+(\d+)$/m.exec(readFileSync(`/proc/${gateway.process.pid}/io`, "utf8"))
  if (match === null) throw new Error(`no wchar in /proc/${gateway.process.pid}/io`)
  return Number(match[1])
}

const childArgs = (which: Case, input: ChildInput) => [
  "--expose-gc",
  ...process.execArgv,
  self,
  CHILD,
  which,
  JSON.stringify(input)
]

/** Runs one download in a fresh process. */
const inChild = (which: Case, input: ChildInput) =>
  new Promise<ChildResult>((resolve, reject) =>
    execFile(process.execPath, childArgs(which, input), { maxBuffer: 16 * MiB }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${which} failed: ${error.message}\n${stderr}`))
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as ChildResult)
    })
  )

/**
 * A `resume` download killed (SIGKILL, nothing cleaned up) once `<out>.partial` holds `fraction`
 * of `size` bytes; resolves with the share it held.
 */
const interruptedAt = async (input: ChildInput, size: number, fraction: number): Promise<number> => {
  const child = spawn(process.execPath, childArgs("resume", input), { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  for (;;) {
    const held = await fs.stat(`${input.out}.partial`).then(
      (stat) => stat.size,
      () => 0
    )
    if (held >= size * fraction) break
    if (child.exitCode !== null) {
      // Verified ranges wait in the window (16 MiB) and reach the file together: a small file can
      // go from below the mark to whole between two looks.
      throw new Error(
        `the download ended (exit ${child.exitCode}) before it held ${fraction}: a larger file is needed ${stderr}`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  child.kill("SIGKILL")
  await exited
  return (await fs.stat(`${input.out}.partial`)).size / size
}

/** Uploads `file` through `gateway`'s upload node; its CID. */
const upload = async (gateway: Gateway, file: string) => {
  const runtime = ManagedRuntime.make(clientLayer(gateway.hosts))
  try {
    const uploader = await runtime.runPromise(Effect.service(Upload.Upload))
    return (await runtime.runPromise(uploader.file(Upload.Input.path(file), { apiKey: API_KEY }))).Hash
  } finally {
    await runtime.dispose()
  }
}

/** The figures of one run. */
interface Figures {
  readonly mib: number
  readonly rateMiB: number
  readonly one: ChildResult
  readonly split: ChildResult
  readonly lying: ChildResult
  readonly lyingIntact: boolean
  readonly interruptedShare: number
  readonly refetchedShare: number
  readonly resumedIntact: boolean
  /** The machine's 1-minute load average before and after the downloads. */
  readonly load: readonly [number, number]
}

/** The three gateway processes over one state dir (the third also serves a lying gateway), the file stored. */
const startGateways = async (stateDir: string, rateMiB: number) => {
  const common = ["--no-chain", "--free-ports", "--state-dir", stateDir]
  const capped = `rate=${rateMiB}MiB`
  const started: Array<Gateway> = []
  try {
    started.push(
      await startServe([
        ...common,
        "--seed",
        `${ADDRESS}:${API_KEY}`,
        "--data-limit",
        String(Number.MAX_SAFE_INTEGER),
        "--gateway",
        capped
      ])
    )
    started.push(await startServe([...common, "--gateway", capped]))
    started.push(await startServe([...common, "--gateway", capped, "--gateway", `${capped},lie`]))
  } catch (error) {
    await Promise.all(started.map(stopServe))
    throw error
  }
  return started
}

/** Every download of the bench, side by side. */
const measureAll = async (dir: string, mib: number, rateMiB: number): Promise<Figures> => {
  const file = nodePath.join(dir, "source.bin")
  await makeFile(file, mib)
  const expected = await sha256Of(file)
  const gateways = await startGateways(nodePath.join(dir, "state"), rateMiB)
  const loadBefore = loadavg()[0]!
  try {
    const [a, b, c] = gateways as [Gateway, Gateway, Gateway]
    const cid = await upload(a, file)
    const honest = [a.extra[0]!, b.extra[0]!, c.extra[0]!]
    const input = (name: string, sources: ReadonlyArray<string>): ChildInput => ({
      hosts: { ...a.hosts, gateway: a.extra[0]! },
      cid,
      out: nodePath.join(dir, name),
      sources
    })
    const intact = async (out: string) => {
      const same = (await sha256Of(out)) === expected
      await fs.rm(out)
      return same
    }

    const one = await inChild("one", input("one.bin", []))
    if (!(await intact(input("one.bin", []).out))) throw new Error("one gateway: other bytes arrived")
    const split = await inChild("split", input("split.bin", honest))
    if (!(await intact(input("split.bin", []).out))) throw new Error("split: other bytes arrived")
    const lyingInput = input("lying.bin", [a.extra[0]!, b.extra[0]!, c.extra[1]!])
    const lying = await inChild("split", lyingInput).catch((error: unknown) => {
      console.error(error)
      return undefined
    })
    const lyingIntact = lying !== undefined && (await intact(lyingInput.out))

    const resumeInput = input("resumed.bin", honest)
    const interruptedShare = await interruptedAt(resumeInput, mib * MiB, 0.9)
    const before = gateways.reduce((sum, gateway) => sum + bytesWritten(gateway), 0)
    await inChild("resume", resumeInput)
    const sent = gateways.reduce((sum, gateway) => sum + bytesWritten(gateway), 0) - before
    const resumedIntact = await intact(resumeInput.out)
    return {
      mib,
      rateMiB,
      one,
      split,
      lying: lying ?? { ...split, wallMs: Number.NaN },
      lyingIntact,
      interruptedShare,
      refetchedShare: sent / (mib * MiB),
      resumedIntact,
      load: [loadBefore, loadavg()[0]!]
    }
  } finally {
    await Promise.all(gateways.map(stopServe))
  }
}

/** The rows of one run. */
const rowsOf = (f: Figures): Array<Report.BenchRow> => {
  const what = `${f.mib} MiB from 3 gateways at ${f.rateMiB} MiB/s each`
  const one = `one gateway, default download`
  const ratio = f.split.wallMs / f.one.wallMs
  const liar = f.lying.sources?.find((source) => source.dropped !== undefined)
  return [
    {
      benchmark: `${what}, split: wall time`,
      value: f.split.wallMs / 1000,
      unit: "s",
      baseline: { name: one, value: f.one.wallMs / 1000 },
      ratio,
      target: "≤ 0.45×",
      pass: ratio <= 0.45
    },
    {
      benchmark: `${what}, split: client CPU time`,
      value: f.split.cpuMs / 1000,
      unit: "s",
      baseline: { name: one, value: f.one.cpuMs / 1000 },
      ratio: f.split.cpuMs / f.one.cpuMs,
      target: "reported",
      pass: true
    },
    {
      benchmark: `${what}, split: client peak RSS growth`,
      value: f.split.growthMiB,
      unit: "MiB",
      baseline: { name: one, value: f.one.growthMiB },
      target: "≤ one gateway's + 32 MiB",
      pass: f.split.growthMiB <= f.one.growthMiB + 32
    },
    {
      benchmark: `${what}, split, one of them lying: wall time, file intact (SHA-256)${liar === undefined ? "" : `, the liar dropped (${liar.dropped})`}`,
      value: f.lying.wallMs / 1000,
      unit: "s",
      target: "the same bytes",
      pass: f.lyingIntact
    },
    {
      benchmark: `${what}, split, resumed after the client was killed at ${(f.interruptedShare * 100).toFixed(1)} %: bytes sent again${f.resumedIntact ? "" : " (**other bytes arrived**)"}`,
      value: f.refetchedShare * 100,
      unit: "% of the file",
      target: "≤ 12 %",
      pass: f.refetchedShare <= 0.12 && f.resumedIntact
    }
  ]
}

/** The rows as the `## Many sources` section of BENCHMARKS.md. */
const markdownSection = (rows: ReadonlyArray<Report.BenchRow>, f: Figures): string =>
  [
    "## Many sources",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/sources.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads); one run, ${f.mib} MiB` +
      (f.mib === 1024 ? "." : ` (\`BENCH_SOURCES_MIB=${f.mib}\`; the target is about 1 GiB).`),
    "",
    ...Report.comparisonTable(rows),
    "",
    `Three \`npm run serve -- --gateway rate=${f.rateMiB}MiB\` processes share one \`--state-dir\` (the first stores the`,
    "file, each reads the blocks from the directory); each extra gateway's answers together are capped at the rate.",
    "The baseline is `toFile(cid, out)` with the first gateway as the configured one (one verified CAR); `split` is",
    '`toFile(cid, out, { sources, strategy: "split" })` over the three with the default range size (4 MiB), two',
    "requests per source and a 16 MiB window. Every download is a fresh client process, measured from after its layer",
    "is built: memory is its peak RSS (sampled every 5 ms and the kernel's `VmHWM`) over its RSS after two full",
    "collections, CPU its user + system time. The lying gateway (`rate=…,lie`) flips a byte in every answer. The",
    "resumed download is `toFile(…, { resume: true })`: the first client is killed with SIGKILL once",
    "`<out>.partial` holds 90 % of the file, a second one checks that part against the DAG and fetches the rest; the",
    "bytes sent again are what the three gateway processes wrote to their sockets during the second run (`wchar` of",
    "`/proc/<pid>/io`: block bytes, CAR framing, headers, and the DAG's inner blocks for the check) over the file's size.",
    `The machine's 1-minute load average was ${f.load[0].toFixed(1)} before the downloads and ${f.load[1].toFixed(1)} after`,
    `(${cpus().length} threads, shared with other work): on a busy machine both sides are slower than their caps.`,
    ""
  ].join("\n")

if (process.argv[1] === self && process.argv[2] === CHILD) {
  const result = await download(process.argv[3] as Case, JSON.parse(process.argv[4]!) as ChildInput)
  console.log(JSON.stringify(result))
} else if (process.argv[1] === self) {
  const mib = envNumber("BENCH_SOURCES_MIB") ?? 1024
  const rateMiB = envNumber("BENCH_SOURCES_RATE_MIB") ?? 10
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "bench-sources-"))
  try {
    const figures = await measureAll(dir, mib, rateMiB)
    const rows = rowsOf(figures)
    Report.printRows(rows)
    Report.writeSection(markdownSection(rows, figures))
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}
