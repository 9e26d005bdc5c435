/**
 * What verification costs, side by side in one run on the same file and the same mock network:
 *
 * - a plain upload of a 1 GiB file with `verify: true` (the CIDs computed while sending) and with
 *   `verify: false`;
 * - a download of it into a file with `verification: "required"` (the gateway's CAR checked block
 *   by block) and with `verification: "off"` (`cat`, unverified);
 * - and this machine's SHA-256 throughput (`node:crypto`), the floor of what checking costs.
 *
 * Targets: client CPU time with verification ≤ 1.15× without; peak RSS growth with verification
 * within 64 MiB of without. Each case runs in a fresh child process (see `measure.ts`); the mock
 * network is served over loopback HTTP by the parent, as in `transfer.ts`.
 *
 * Sizes: `BENCH_VERIFY_MIB` (default 1024), `BENCH_RUNS` (runs per case, median kept; default 1).
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/verify.ts` prints the rows and
 * rewrites the `## Verification` section of BENCHMARKS.md.
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, ManagedRuntime } from "effect"
import { Download, Upload } from "lighthouse-effect"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { privateKeyToAccount } from "viem/accounts"
import { clientLayer, envNumber, type Measured, MiB, makeFile, measure, sha256Of } from "./measure.ts"
import * as Report from "./report.ts"

type Case = "upload-verified" | "upload-unverified" | "download-verified" | "download-unverified"

interface ChildInput {
  readonly urls: Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>
  readonly file: string
  readonly cid?: string | undefined
  readonly out?: string | undefined
}

const API_KEY = "bench-api-key"
// Hardhat's account #1: a throw-away key for the local network only.
const ADDRESS = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address
const CHILD = "--verify-child"
const self = fileURLToPath(import.meta.url)

/** Child: one case, measured. */
const runCase = async (which: Case, input: ChildInput): Promise<Measured> => {
  const runtime = ManagedRuntime.make(clientLayer(input.urls))
  const upload = await runtime.runPromise(Effect.service(Upload.Upload))
  const download = await runtime.runPromise(Effect.service(Download.Download))
  const file = Upload.Input.path(input.file)
  const measured = await measure(async () => {
    switch (which) {
      case "upload-verified":
        return (await runtime.runPromise(upload.file(file, { apiKey: API_KEY }))).Hash
      case "upload-unverified":
        return (await runtime.runPromise(upload.file(file, { apiKey: API_KEY, verify: false }))).Hash
      case "download-verified":
        await runtime.runPromise(download.toFile(input.cid!, input.out!, { verification: "required" }))
        return undefined
      case "download-unverified":
        await runtime.runPromise(download.toFile(input.cid!, input.out!, { verification: "off" }))
        return undefined
    }
  })
  await runtime.dispose()
  return measured
}

const inChild = (which: Case, input: ChildInput) =>
  new Promise<Measured>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--expose-gc", ...process.execArgv, self, CHILD, which, JSON.stringify(input)],
      { maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${which} failed: ${error.message}\n${stderr}`))
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Measured)
      }
    )
  )

/** SHA-256 of `mib` MiB in 1 MiB updates: MiB/s and CPU seconds per GiB. */
const sha256Throughput = (mib: number) => {
  const block = new Uint8Array(MiB).fill(7)
  const hash = createHash("sha256")
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let i = 0; i < mib; i++) hash.update(block)
  hash.digest()
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { mibPerSecond: mib / seconds, cpuSecondsPerGiB: ((used.user + used.system) / 1e6) * (1024 / mib) }
}

/** Runs every case and returns the rows. */
type Results = Readonly<Record<Case, ReadonlyArray<Measured>>>

/** `runs` rounds of every case against the served network, each download checked against the source. */
const measureCases = async (served: ServedMockNetwork, dir: string, file: string, runs: number): Promise<Results> => {
  const results: Record<Case, Array<Measured>> = {
    "upload-unverified": [],
    "upload-verified": [],
    "download-unverified": [],
    "download-verified": []
  }
  for (let r = 0; r < runs; r++) {
    let cid: string | undefined
    for (const which of ["upload-unverified", "upload-verified"] as const) {
      // Stored content is dropped between uploads so the server does not grow without end.
      served.network.reset()
      served.network.seedAccount(ADDRESS, { apiKey: API_KEY, dataLimit: Number.MAX_SAFE_INTEGER })
      const measured = await inChild(which, { urls: served.urls, file })
      if (cid !== undefined && measured.cid !== cid) throw new Error(`${which} answered ${measured.cid}, not ${cid}`)
      cid = measured.cid
      results[which].push(measured)
    }
    for (const which of ["download-unverified", "download-verified"] as const) {
      const out = nodePath.join(dir, `${which}.bin`)
      results[which].push(await inChild(which, { urls: served.urls, file, cid, out }))
      if ((await sha256Of(out)) !== (await sha256Of(file))) throw new Error(`${which} wrote other bytes`)
      await fs.rm(out)
    }
  }
  return results
}

/** CPU, wall time and memory of one operation, verified against unverified. */
const comparisonRows = (results: Results, operation: "upload" | "download", label: string): Array<Report.BenchRow> => {
  const pick = (key: Case, field: "wallMs" | "cpuMs" | "growthMiB") => Report.median(results[key].map((m) => m[field]))
  const on = `${operation}-verified` as const
  const off = `${operation}-unverified` as const
  const cpu = { on: pick(on, "cpuMs") / 1000, off: pick(off, "cpuMs") / 1000 }
  const wall = { on: pick(on, "wallMs") / 1000, off: pick(off, "wallMs") / 1000 }
  const memory = { on: pick(on, "growthMiB"), off: pick(off, "growthMiB") }
  return [
    {
      benchmark: `${label}, verified: client CPU time`,
      value: cpu.on,
      unit: "s",
      baseline: { name: "unverified", value: cpu.off },
      ratio: cpu.on / cpu.off,
      target: "≤ 1.15× unverified",
      pass: cpu.on <= cpu.off * 1.15
    },
    {
      benchmark: `${label}, verified: wall time`,
      value: wall.on,
      unit: "s",
      baseline: { name: "unverified", value: wall.off },
      ratio: wall.on / wall.off,
      target: "reported",
      pass: true
    },
    {
      benchmark: `${label}, verified: peak RSS growth`,
      value: memory.on,
      unit: "MiB",
      baseline: { name: "unverified", value: memory.off },
      target: "≤ unverified + 64 MiB",
      pass: memory.on <= memory.off + 64
    }
  ]
}

/** This machine's SHA-256: the floor of what checking every byte once costs. */
const floorRows = (mib: number): Array<Report.BenchRow> => {
  const sha = sha256Throughput(Math.min(mib, 1024))
  return [
    {
      benchmark: "SHA-256 on this machine (node:crypto, 1 MiB updates): throughput",
      value: sha.mibPerSecond,
      unit: "MiB/s",
      target: "the floor of checking: every byte is hashed once",
      pass: true
    },
    {
      benchmark: "SHA-256 on this machine: CPU time per GiB",
      value: sha.cpuSecondsPerGiB,
      unit: "s",
      target: "the least verification can add per GiB",
      pass: true
    }
  ]
}

/** Runs every case and returns the rows. */
export const run = async (): Promise<ReadonlyArray<Report.BenchRow>> => {
  const mib = envNumber("BENCH_VERIFY_MIB") ?? 1024
  const runs = envNumber("BENCH_RUNS") ?? 1
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "bench-verify-"))
  const served = await serveMockNetwork({ defaultDataLimit: Number.MAX_SAFE_INTEGER })
  try {
    const file = nodePath.join(dir, "source.bin")
    await makeFile(file, mib)
    const results = await measureCases(served, dir, file, runs)
    return [
      ...comparisonRows(results, "upload", `plain upload, ${mib} MiB file`),
      ...comparisonRows(results, "download", `download into a file, ${mib} MiB`),
      ...floorRows(mib)
    ]
  } finally {
    await served.close()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

/** The rows as the `## Verification` section of BENCHMARKS.md. */
export const markdownSection = (rows: ReadonlyArray<Report.BenchRow>): string =>
  [
    "## Verification",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx scripts/bench/verify.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads); ${envNumber("BENCH_RUNS") ?? 1} run(s) per case, median.`,
    "",
    ...Report.comparisonTable(rows),
    "",
    "Each case runs in a fresh process over `node:http` against the mock network served over loopback HTTP; CPU is",
    "the client process's user + system time during the operation. Verified uploads compute the CIDs of the bytes as",
    "they are sent (the UnixFS importer with a blockstore that keeps nothing); verified downloads read the gateway's",
    "CAR (`?format=car`) and hash every block before its bytes are written; unverified ones use `cat`. Both",
    "downloads write the file and are checked against the source. The SHA-256 rows are the floor: verification",
    "hashes every byte once, and the importer (or the CAR walk) adds the rest.",
    ""
  ].join("\n")

if (process.argv[1] === self && process.argv[2] === CHILD) {
  const measured = await runCase(process.argv[3] as Case, JSON.parse(process.argv[4]!) as ChildInput)
  console.log(JSON.stringify(measured))
  process.exit(0)
} else if (process.argv[1] === self) {
  const rows = await run()
  Report.printRows(rows)
  Report.writeSection(markdownSection(rows))
}
