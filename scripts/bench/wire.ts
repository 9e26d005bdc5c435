/**
 * "Against the wire": this library's client CPU per GiB against the floors of the same bytes on the
 * same served local network in the same run: curl (where present), a bare Node pipeline
 * (`wireFloor.ts`, fixed code), SHA-256 of the file and bare `node:crypto` AES-256-GCM.
 *
 * Every case is a fresh process measured from the outside: its user + system CPU time, children
 * included, as `/usr/bin/time` reports it (or the shell's `times` where it is absent). The library's
 * child (`wireChild.ts`) is the built package under plain `node`, as a Node program runs it (built
 * first). A Node process is measured less the median of the same program's start-up without the
 * transfer (the library's child: imports, `LighthouseNode.layer`, sign-in; the floors: plain `node` and the imports).
 * Each figure is the median of `BENCH_WIRE_RUNS` (default 5) processes, with the spread (min–max).
 * Every download writes a file that does not exist yet (the one before is removed first), curl's
 * and the floors' too: truncating a file in place reuses its memory in the page cache, which the
 * library's download, written under a temporary name and renamed, cannot. The library's three
 * downloads take turns at going first in a round: on this machine the first large write after the
 * floors' costs kernel time the others do not pay (BENCHMARKS.md, "where the time goes").
 * The served network (`npm run serve -- --no-chain --state-dir DIR --free-ports`, one process for
 * the whole run) is measured too: its CPU time (`/proc/<pid>/stat`) while answering curl's plain
 * `/ipfs/` and its `?format=car`.
 *
 * Sizes: `BENCH_WIRE_MIB` (default 1024), `BENCH_WIRE_RUNS` (default 5); a quick look:
 * `BENCH_WIRE_MIB=128 BENCH_WIRE_RUNS=3 npx tsx --conditions=@lighthouse-effect/source scripts/bench/wire.ts`.
 * It prints the rows and rewrites the `## Against the wire` section of BENCHMARKS.md.
 */
import { execFile, execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { privateKeyToAccount } from "viem/accounts"
import { type Operation, type OperationInput, PRIVATE_KEY, type Urls } from "./client.ts"
import { buildPackage, envNumber, MiB, makeFile, sha256Of } from "./measure.ts"
import { type Server, startServer } from "./network.ts"
import * as Report from "./report.ts"

const API_KEY = "bench-wire-key"
const childScript = fileURLToPath(new URL("wireChild.ts", import.meta.url))
const floorScript = fileURLToPath(new URL("wireFloor.ts", import.meta.url))

// =============================================================================
// Parent: processes measured from the outside
// =============================================================================

interface Timed {
  readonly cpuS: number
  readonly stdout: string
}

const hasTime = existsSync("/usr/bin/time")

/** Runs `command` to its end; its user + system CPU time, children included, as the OS accounts it. */
const timed = (command: string, args: ReadonlyArray<string>, timesFile: string) =>
  new Promise<Timed>((resolve, reject) => {
    const [file, argv] = hasTime
      ? ["/usr/bin/time", ["-f", "%U %S", "-o", timesFile, command, ...args]]
      : ["sh", ["-c", `"$@" && times > ${JSON.stringify(timesFile)}`, "sh", command, ...args]]
    execFile(file, argv, { maxBuffer: 16 * MiB }, async (error, stdout, stderr) => {
      if (error) return reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stderr}`))
      const text = await fs.readFile(timesFile, "utf8")
      // `times`: the shell's own line, then its children's, each "0m0.40s 0m0.10s".
      const figures = hasTime
        ? text.trim().split("\n").at(-1)!.split(" ").map(Number)
        : text
            .trim()
            .split("\n")
            .at(-1)!
            .split(" ")
            .map((t) => {
              const [, m, s] = /(\d+)m([\d.]+)s/.exec(t)!
              return Number(m) * 60 + Number(s)
            })
      resolve({ cpuS: figures[0]! + figures[1]!, stdout })
    })
  })

/** The server process's user + system CPU seconds so far. */
const serverCpu = (server: Server): number => {
  const stat = readFileSync(`/proc/${server.process.pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim())
  return (Number(fields[11]) + Number(fields[12])) / ticks
}

interface Floors {
  readonly curl: boolean
  readonly dir: string
  readonly file: string
  readonly urls: Urls
}

/** The library's child on the built package, run by plain `node` as a Node program runs it. */
const nodeLibrary = (which: Operation, input: OperationInput, timesFile: string) =>
  timed(process.execPath, [childScript, which, JSON.stringify(input)], timesFile)

const nodeFloor = (args: ReadonlyArray<string>, timesFile: string) =>
  timed(process.execPath, [floorScript, ...args], timesFile)

const curlArgs = {
  upload: (f: Floors) => [
    "-sS",
    "-H",
    `Authorization: Bearer ${API_KEY}`,
    "-F",
    `file=@${f.file}`,
    `${f.urls.node}/api/v0/add?cid-version=1&wrap-with-directory=false`
  ],
  download: (f: Floors, cid: string, car: boolean) => [
    "-sS",
    "--fail",
    "-o",
    nodePath.join(f.dir, "curl-out.bin"),
    `${f.urls.gateway}/ipfs/${cid}${car ? "?format=car" : ""}`
  ]
}

// =============================================================================
// Runs and rows
// =============================================================================

/** Every figure's samples in seconds, by name. */
type Samples = Record<string, Array<number>>

const sample = (samples: Samples, key: string, value: number) => {
  samples[key] ??= []
  samples[key].push(value)
}

/** Round `index` of every case, in a fixed order but for the library's downloads, which take turns at going first. */
const round = async (samples: Samples, f: Floors, server: Server, index: number) => {
  const times = nodePath.join(f.dir, "times.txt")
  const out = nodePath.join(f.dir, "out.bin")
  const input = (extra: Partial<OperationInput> = {}): OperationInput => ({
    urls: f.urls,
    apiKey: API_KEY,
    file: f.file,
    out,
    ...extra
  })
  sample(samples, "node start-up", (await nodeFloor(["none"], times)).cpuS)
  sample(samples, "library start-up", (await nodeLibrary("none", input(), times)).cpuS)
  sample(samples, "sha256", (await nodeFloor(["sha256", f.file], times)).cpuS)
  sample(samples, "aes", (await nodeFloor(["aes", f.file], times)).cpuS)
  sample(samples, "node upload", (await nodeFloor(["upload", f.urls.node, API_KEY, f.file], times)).cpuS)
  sample(samples, "loaded start-up", (await nodeFloor(["none-loaded"], times)).cpuS)
  sample(samples, "loaded upload", (await nodeFloor(["upload-loaded", f.urls.node, API_KEY, f.file], times)).cpuS)
  const unverified = await nodeLibrary("upload-unverified", input(), times)
  sample(samples, "upload-unverified", unverified.cpuS)
  sample(samples, "upload-verified", (await nodeLibrary("upload-verified", input(), times)).cpuS)
  const cid = unverified.stdout.trim().split("\n").at(-1)!
  const encrypted = await nodeLibrary("upload-encrypted", input(), times)
  sample(samples, "upload-encrypted", encrypted.cpuS)
  const encryptedCid = encrypted.stdout.trim().split("\n").at(-1)!
  await fs.rm(out, { force: true })
  sample(samples, "node download", (await nodeFloor(["download", `${f.urls.gateway}/ipfs/${cid}`, out], times)).cpuS)
  await fs.rm(out, { force: true })
  sample(
    samples,
    "loaded download",
    (await nodeFloor(["download-loaded", `${f.urls.gateway}/ipfs/${cid}`, out], times)).cpuS
  )
  await fs.rm(out, { force: true })
  // The first download after the floors' pays this VM's kernel time for memory handed back to its
  // host (BENCHMARKS.md, "where the time goes"): each round starts with another one.
  const downloads = ["download-off", "download-car", "download-decrypt"] as const
  for (const which of [...downloads.slice(index % 3), ...downloads.slice(0, index % 3)]) {
    const target = which === "download-decrypt" ? encryptedCid : cid
    sample(samples, which, (await nodeLibrary(which, input({ cid: target }), times)).cpuS)
    await sameBytes(f.file, out, which)
  }
  if (f.curl) {
    sample(samples, "curl upload", (await timed("curl", curlArgs.upload(f), times)).cpuS)
    for (const car of [false, true]) {
      await fs.rm(nodePath.join(f.dir, "curl-out.bin"), { force: true })
      const before = serverCpu(server)
      sample(
        samples,
        car ? "curl car" : "curl download",
        (await timed("curl", curlArgs.download(f, cid, car), times)).cpuS
      )
      sample(samples, car ? "server car" : "server plain", serverCpu(server) - before)
    }
  } else {
    for (const car of [false, true]) {
      const before = serverCpu(server)
      const url = `${f.urls.gateway}/ipfs/${cid}${car ? "?format=car" : ""}`
      await nodeFloor(["download", url, nodePath.join(f.dir, "floor-out.bin")], times)
      sample(samples, car ? "server car" : "server plain", serverCpu(server) - before)
    }
  }
}

const sameBytes = async (source: string, out: string, which: string) => {
  if ((await sha256Of(out)) !== (await sha256Of(source))) throw new Error(`${which} wrote other bytes`)
  await fs.rm(out)
}

/** A figure in s/GiB: the median and the spread (min–max) of its samples, each less `startUp`. */
interface Figure {
  readonly median: number
  readonly min: number
  readonly max: number
}

const perGiB = (samples: ReadonlyArray<number>, startUp: number, mib: number): Figure => {
  const scaled = samples.map((s) => ((s - startUp) * 1024) / mib)
  return { median: Report.median(scaled), min: Math.min(...scaled), max: Math.max(...scaled) }
}

const shown = (f: Figure) => `${Report.figure(f.median)} (${Report.figure(f.min)}–${Report.figure(f.max)})`

interface Row {
  readonly operation: string
  readonly here: Figure
  /** The floor the ratio is against, and its name. */
  readonly floor: { readonly name: string; readonly value: number }
  /** The other floors: the Node pipeline (when curl is the floor), and the Node pipeline with the library loaded. */
  readonly alsoFloors: ReadonlyArray<{ readonly name: string; readonly value: number }>
  readonly targetText: string
  readonly target: number
}

/** Every row of the section, from the samples of every round. */
const rowsOf = (samples: Samples, mib: number, curl: boolean) => {
  const nodeStart = Report.median(samples["node start-up"]!)
  const loadedStart = Report.median(samples["loaded start-up"]!)
  const libraryStart = Report.median(samples["library start-up"]!)
  const lib = (key: string) => perGiB(samples[key]!, libraryStart, mib)
  const bare = (key: string) => perGiB(samples[key]!, nodeStart, mib)
  const outside = (key: string) => perGiB(samples[key]!, 0, mib)
  const floors = {
    sha256: bare("sha256"),
    aes: bare("aes"),
    nodeUpload: bare("node upload"),
    nodeDownload: bare("node download"),
    loadedUpload: perGiB(samples["loaded upload"]!, loadedStart, mib),
    loadedDownload: perGiB(samples["loaded download"]!, loadedStart, mib),
    ...(curl
      ? { curlUpload: outside("curl upload"), curlDownload: outside("curl download"), curlCar: outside("curl car") }
      : {})
  }
  const up = curl
    ? { name: "curl", value: floors.curlUpload!.median }
    : { name: "Node pipeline", value: floors.nodeUpload.median }
  const down = curl
    ? { name: "curl", value: floors.curlDownload!.median }
    : { name: "Node pipeline", value: floors.nodeDownload.median }
  const loaded = "Node pipeline, library loaded"
  const alsoUp = [
    ...(curl ? [{ name: "Node pipeline", value: floors.nodeUpload.median }] : []),
    { name: loaded, value: floors.loadedUpload.median }
  ]
  const alsoDown = [
    ...(curl ? [{ name: "Node pipeline", value: floors.nodeDownload.median }] : []),
    { name: loaded, value: floors.loadedDownload.median }
  ]
  const sha = floors.sha256.median
  const aes = floors.aes.median
  const row = (
    operation: string,
    key: string,
    floor: Row["floor"],
    also: Row["alsoFloors"],
    k: number,
    extra: number,
    extraText: string
  ): Row => ({
    operation,
    here: lib(key),
    floor,
    alsoFloors: also,
    targetText: `≤ ${k}× ${floor.name}${extraText} = ${Report.figure(k * floor.value + extra)}`,
    target: k * floor.value + extra
  })
  const rows: Array<Row> = [
    row("plain upload, `verify: false`", "upload-unverified", up, alsoUp, 3, 0, ""),
    row("plain upload, verified (default)", "upload-verified", up, alsoUp, 3, 2 * sha, " + 2× SHA-256"),
    row('download into a file, `verification: "off"`', "download-off", down, alsoDown, 2, 0, ""),
    row("download into a file, CAR verified", "download-car", down, alsoDown, 2, 2 * sha, " + 2× SHA-256"),
    row("encrypted upload (verified)", "upload-encrypted", up, alsoUp, 3, 2 * sha + aes, " + 2× SHA-256 + AES"),
    row(
      "decrypting download (CAR verified)",
      "download-decrypt",
      down,
      alsoDown,
      2,
      2 * sha + aes,
      " + 2× SHA-256 + AES"
    )
  ]
  const serverPlain = outside("server plain")
  const serverCar = outside("server car")
  return { rows, floors, serverPlain, serverCar, nodeStart, loadedStart, libraryStart }
}

type Result = ReturnType<typeof rowsOf>

const tableOf = (result: Result): Array<string> => [
  "| operation | this library, s/GiB (spread) | floor, s/GiB | ratio | target, s/GiB | met |",
  "|---|---|---|---|---|---|",
  ...result.rows.map((r) => {
    const also = r.alsoFloors
      .map((f) => `; ${f.name} ${Report.figure(f.value)} (${Report.figure(r.here.median / f.value)}×)`)
      .join("")
    return (
      `| ${r.operation} | ${shown(r.here)} | ${r.floor.name} ${Report.figure(r.floor.value)}${also} | ` +
      `${Report.figure(r.here.median / r.floor.value)}× | ${r.targetText} | ${r.here.median <= r.target ? "yes" : "**no**"} |`
    )
  }),
  `| served network: \`?format=car\` answer (server CPU) | ${shown(result.serverCar)} | plain \`/ipfs/\` ${shown(result.serverPlain)} | ` +
    `${Report.figure(result.serverCar.median / result.serverPlain.median)}× | ≤ 1.5× plain = ${Report.figure(1.5 * result.serverPlain.median)} | ` +
    `${result.serverCar.median <= 1.5 * result.serverPlain.median ? "yes" : "**no**"} |`
]

const floorTable = (result: Result): Array<string> => {
  const f = result.floors
  const line = (name: string, figure: Figure | undefined) => (figure ? [`| ${name} | ${shown(figure)} |`] : [])
  return [
    "| floor | s/GiB (spread) |",
    "|---|---|",
    ...line("curl, upload (`-F file=@…` to `/api/v0/add`)", f.curlUpload),
    ...line("curl, download (`/ipfs/{cid}` into a file)", f.curlDownload),
    ...line("curl, download of `?format=car` into a file", f.curlCar),
    ...line("Node pipeline, upload (`fs.createReadStream` → `http.request`, 1 MiB reads)", f.nodeUpload),
    ...line("Node pipeline, download (`http.request` → `fs.createWriteStream`)", f.nodeDownload),
    ...line(
      "Node pipeline, upload, library loaded (the same code after loading what the library's child loads)",
      f.loadedUpload
    ),
    ...line("Node pipeline, download, library loaded", f.loadedDownload),
    ...line("SHA-256 of the file (`node:crypto`, 1 MiB reads)", f.sha256),
    ...line("AES-256-GCM over the file (`node:crypto`, 1 MiB reads)", f.aes)
  ]
}

const sectionOf = (result: Result, mib: number, runs: number, curl: boolean): string =>
  [
    "## Against the wire",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/wire.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads); a ${mib} MiB random file, ${runs} fresh processes per figure, median (min–max).`,
    "",
    ...tableOf(result),
    "",
    ...floorTable(result),
    "",
    `Client CPU is user + system time of the whole process, children included, as ${hasTime ? "`/usr/bin/time`" : "the shell's `times`"} reports it,`,
    `in seconds per GiB. The library's child is the built package run by plain \`node\` (\`wireChild.ts\`, \`LighthouseNode.layer\`), as a`,
    "Node program runs it. Node processes are counted less their start-up without the transfer, measured alike: the library's",
    `child (imports, layers, sign-in) ${Report.figure(result.libraryStart)} s, plain \`node\` with the floor's imports ${Report.figure(result.nodeStart)} s,`,
    `the same with the library loaded ${Report.figure(result.loadedStart)} s. "Library loaded" is the same Node pipeline in a process that first`,
    "loads what the library's child loads (`lighthouse-effect`, `lighthouse-effect/node`, `effect`, `viem/accounts`) and uses none",
    "of it: Node gives every socket read a new buffer, and V8 answers that memory with full collections, each marking the",
    "whole heap, so the same bytes cost more in a process with more code loaded.",
    `${curl ? "curl" : "curl is absent here, so the bare Node pipeline"} is the floor the ratios are against; the Node pipeline`,
    "(`scripts/bench/wireFloor.ts`) is fixed code, not tuned. All against one served local network",
    "(`serve --no-chain --state-dir DIR --free-ports`); the server's CPU is read from `/proc/<pid>/stat` while it answers",
    "curl. Every download writes a file that does not exist yet, and is compared with the file by SHA-256; the library's",
    "three downloads take turns at going first in a round (the first large write after the floors' paid more kernel time)."
  ].join("\n")

const main = async () => {
  const mib = envNumber("BENCH_WIRE_MIB") ?? 1024
  const runs = envNumber("BENCH_WIRE_RUNS") ?? 5
  const curl = process.env.BENCH_WIRE_NO_CURL === undefined && hasCurl()
  // The children load the built package, as a Node program does.
  buildPackage()
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "bench-wire-"))
  const address = privateKeyToAccount(PRIVATE_KEY).address
  const server = await startServer(nodePath.join(dir, "state"), { address, apiKey: API_KEY })
  try {
    const file = nodePath.join(dir, "source.bin")
    await makeFile(file, mib)
    const floors: Floors = { curl, dir, file, urls: server.urls }
    const samples: Samples = {}
    for (let r = 0; r < runs; r++) {
      console.log(`round ${r + 1} of ${runs}`)
      await round(samples, floors, server, r)
    }
    const section = sectionOf(rowsOf(samples, mib, curl), mib, runs, curl)
    console.log(section)
    Report.writeSection(section)
  } finally {
    await server.stop()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

const hasCurl = () => {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
