/**
 * Folder downloads against downloading the same bytes as one file, in the same run on the network
 * served over loopback HTTP with its blocks on disk (issue 39):
 *
 * - `BENCH_FOLDER_MIB` MiB (default 1 024) in `BENCH_FOLDER_FILES` files (default 1 000);
 * - `BENCH_SMALL_FILES` files (default 10 000) of 1 KiB each;
 *
 * each folder uploaded once, and a file of the same bytes (the folder's files end to end) once.
 * Then, `BENCH_FOLDER_RUNS` times (default 3), alternately and each in a fresh child process (this
 * file, with `--expose-gc`): `Download.toDirectory` of the folder into a new directory, and
 * `Download.toFile` of the file with `verification: "required"` (the same trustless CAR, every block
 * checked, as `toDirectory` always does). The medians of the client's CPU time (user + system) and
 * peak RSS growth are kept (`measure.ts`: after set-up and two collections).
 *
 * Targets: the folder's CPU ≤ 1.5× the file's, its RSS growth ≤ 64 MiB.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/folders.ts` prints the rows and
 * rewrites the `## Folder downloads` section of BENCHMARKS.md.
 */
import { execFile } from "node:child_process"
import { randomFillSync } from "node:crypto"
import { createWriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, ManagedRuntime } from "effect"
import { Download, Upload } from "lighthouse-effect"
import { serveMockNetwork } from "lighthouse-effect/mocks/server"
import { privateKeyToAccount } from "viem/accounts"
import { clientLayer, envNumber, type Measured, MiB, measure } from "./measure.ts"
import * as Report from "./report.ts"

type Urls = Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>
type Side = "folder" | "file"

interface ChildInput {
  readonly urls: Urls
  readonly cid: string
  readonly out: string
}

const API_KEY = "bench-api-key"
// Hardhat's account #1: a throw-away key for the local network only.
const ADDRESS = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address
const CHILD = "--folders-child"
const self = fileURLToPath(import.meta.url)
/** Files per sub-folder. */
const PER_FOLDER = 100

// =============================================================================
// Child: one download, measured
// =============================================================================

const child = async (side: Side, input: ChildInput): Promise<Measured> => {
  const runtime = ManagedRuntime.make(clientLayer(input.urls))
  const download = await runtime.runPromise(Effect.service(Download.Download))
  const result = await measure(async () => {
    if (side === "folder") {
      const report = await runtime.runPromise(download.toDirectory(input.cid, input.out))
      if (report.skipped.length > 0) throw new Error(`the folder download skipped ${report.skipped.length} entries`)
    } else await runtime.runPromise(download.toFile(input.cid, input.out, { verification: "required" }))
    return undefined
  })
  await runtime.dispose()
  return result
}

const inChild = (side: Side, input: ChildInput) =>
  new Promise<Measured>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--expose-gc", ...process.execArgv, self, CHILD, side, JSON.stringify(input)],
      { maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${side} download failed: ${error.message}\n${stderr}`))
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Measured)
      }
    )
  )

// =============================================================================
// Parent: the trees, the served network, the children
// =============================================================================

/** `files` files of `each` random bytes, `PER_FOLDER` to a sub-folder, and `whole`: all of them end to end. */
const makeTree = async (dir: string, whole: string, files: number, each: number) => {
  const out = createWriteStream(whole)
  const content = new Uint8Array(each)
  for (let i = 0; i < files; i++) {
    const path = nodePath.join(dir, `d${String(Math.floor(i / PER_FOLDER)).padStart(3, "0")}`, `f${i}.bin`)
    if (i % PER_FOLDER === 0) await fs.mkdir(nodePath.dirname(path), { recursive: true })
    randomFillSync(content)
    await fs.writeFile(path, content)
    if (!out.write(Buffer.from(content))) await new Promise<void>((resolve) => out.once("drain", () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
}

/** The bytes of every file under `dir`, end to end in the order `makeTree` wrote them, equal `whole`'s. */
const checkTree = async (dir: string, whole: string, files: number, each: number) => {
  const expected = await fs.readFile(whole)
  for (let i = 0; i < files; i++) {
    const path = nodePath.join(dir, `d${String(Math.floor(i / PER_FOLDER)).padStart(3, "0")}`, `f${i}.bin`)
    const got = await fs.readFile(path)
    if (!got.equals(expected.subarray(i * each, (i + 1) * each))) throw new Error(`${path} holds other bytes`)
  }
}

interface Case {
  readonly label: string
  readonly files: number
  readonly each: number
}

interface CaseResult {
  readonly label: string
  readonly folder: ReadonlyArray<Measured>
  readonly file: ReadonlyArray<Measured>
}

const runCase = async (
  dir: string,
  urls: Urls,
  upload: Upload.Upload["Service"],
  runtime: ManagedRuntime.ManagedRuntime<Upload.Upload, unknown>,
  c: Case,
  runs: number
): Promise<CaseResult> => {
  const tree = nodePath.join(dir, "tree")
  const whole = nodePath.join(dir, "whole.bin")
  await makeTree(tree, whole, c.files, c.each)
  const folderCid = (await runtime.runPromise(upload.folder(Upload.Input.directory(tree), { apiKey: API_KEY }))).Hash
  const fileCid = (await runtime.runPromise(upload.file(Upload.Input.path(whole), { apiKey: API_KEY }))).Hash
  const folder: Array<Measured> = []
  const file: Array<Measured> = []
  for (let r = 0; r < runs; r++) {
    // Turns at going first: the first download of a round pays for the page cache's state.
    for (const side of r % 2 === 0 ? (["folder", "file"] as const) : (["file", "folder"] as const)) {
      const out = nodePath.join(dir, `out-${side}-${r}`)
      const measured = await inChild(side, { urls, cid: side === "folder" ? folderCid : fileCid, out })
      if (side === "folder") {
        if (r === 0) await checkTree(out, whole, c.files, c.each)
        folder.push(measured)
      } else file.push(measured)
      await fs.rm(out, { recursive: true, force: true })
    }
  }
  await fs.rm(tree, { recursive: true, force: true })
  await fs.rm(whole, { force: true })
  return { label: c.label, folder, file }
}

const rowsOf = (result: CaseResult): Array<Report.BenchRow> => {
  const cpu = (ms: ReadonlyArray<Measured>) => Report.median(ms.map((m) => m.cpuMs)) / 1000
  const growth = (ms: ReadonlyArray<Measured>) => Report.median(ms.map((m) => m.growthMiB))
  const runs = (ms: ReadonlyArray<Measured>, pick: (m: Measured) => number) =>
    ms.map((m) => Report.figure(pick(m))).join(", ")
  const folderCpu = cpu(result.folder)
  const fileCpu = cpu(result.file)
  const folderGrowth = growth(result.folder)
  return [
    {
      benchmark: `folder download, ${result.label}: client CPU (median; runs ${runs(result.folder, (m) => m.cpuMs / 1000)} s against ${runs(result.file, (m) => m.cpuMs / 1000)})`,
      value: folderCpu,
      unit: "s",
      baseline: { name: "the same bytes as one file, CAR-verified", value: fileCpu },
      ratio: folderCpu / fileCpu,
      target: "≤ 1.5× the file's",
      pass: folderCpu <= fileCpu * 1.5
    },
    {
      benchmark: `folder download, ${result.label}: peak RSS growth (median; runs ${runs(result.folder, (m) => m.growthMiB)} MiB)`,
      value: folderGrowth,
      unit: "MiB",
      baseline: { name: "the same bytes as one file", value: growth(result.file) },
      ratio: folderGrowth / growth(result.file),
      target: "≤ 64 MiB",
      pass: folderGrowth <= 64
    }
  ]
}

export const run = async (): Promise<ReadonlyArray<Report.BenchRow>> => {
  const bigFiles = envNumber("BENCH_FOLDER_FILES") ?? 1000
  const bigMiB = envNumber("BENCH_FOLDER_MIB") ?? 1024
  const smallFiles = envNumber("BENCH_SMALL_FILES") ?? 10000
  const runs = envNumber("BENCH_FOLDER_RUNS") ?? 3
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "bench-folders-"))
  const served = await serveMockNetwork({
    defaultDataLimit: Number.MAX_SAFE_INTEGER,
    stateDir: nodePath.join(dir, "network")
  })
  const runtime = ManagedRuntime.make(clientLayer(served.urls))
  try {
    served.network.seedAccount(ADDRESS, { apiKey: API_KEY, dataLimit: Number.MAX_SAFE_INTEGER })
    const upload = await runtime.runPromise(Effect.service(Upload.Upload))
    const cases: ReadonlyArray<Case> = [
      { label: `${bigMiB} MiB in ${bigFiles} files`, files: bigFiles, each: Math.floor((bigMiB * MiB) / bigFiles) },
      { label: `${smallFiles} files of 1 KiB`, files: smallFiles, each: 1024 }
    ]
    const rows: Array<Report.BenchRow> = []
    for (const c of cases) {
      const result = await runCase(dir, served.urls, upload, runtime, c, runs)
      console.log(
        `${c.label}: done (load average ${loadavg()
          .map((n) => n.toFixed(2))
          .join(", ")})`
      )
      rows.push(...rowsOf(result))
    }
    return rows
  } finally {
    await runtime.dispose()
    await served.close()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

/** The rows as the `## Folder downloads` section of BENCHMARKS.md. */
export const markdownSection = (rows: ReadonlyArray<Report.BenchRow>): string =>
  [
    "## Folder downloads",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/folders.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads); load average ${loadavg()[0]!.toFixed(2)} at the end.`,
    "",
    ...Report.comparisonTable(rows),
    "",
    "`Download.toDirectory` of an uploaded folder into a new directory against `Download.toFile` of a file holding",
    'the same bytes (the folder\'s files end to end) with `verification: "required"`: both read one trustless CAR',
    "from the network served over loopback HTTP with its blocks on disk and check every block. Each download runs",
    "in a fresh process, the two alternately and taking turns at going first; CPU is the process's user + system",
    "time during the download, memory the peak RSS over the RSS after set-up and two full collections.",
    ""
  ].join("\n")

if (process.argv[1] === self && process.argv[2] === CHILD) {
  const measured = await child(process.argv[3] as Side, JSON.parse(process.argv[4]!) as ChildInput)
  console.log(JSON.stringify(measured))
} else if (process.argv[1] === self) {
  const rows = await run()
  Report.printRows(rows)
  Report.writeSection(markdownSection(rows))
}
