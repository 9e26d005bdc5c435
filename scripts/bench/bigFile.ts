/**
 * "Big files end to end": a file of `BENCH_BIG_GIB` GiB (default 10) of seeded pseudo-random bytes
 * (AES-256-CTR's keystream under a key derived from the seed: it never repeats, so no block
 * dedupes), uploaded plain and encrypted, then downloaded verified and decrypted, against one
 * served local network keeping its blocks on disk (`serve --no-chain --state-dir DIR`).
 *
 * Each operation runs in a fresh child process (`bigChild.ts`: the built package under plain
 * `node`, default V8 flags plus `--expose-gc` for the baseline) measured by `measure.ts`: its RSS
 * peak over its level after set-up. The
 * server's RSS is sampled every 50 ms during each operation against its level just before it.
 * Both downloads are compared with the source by SHA-256 and deleted. Target: each peak growth
 * ≤ 64 MiB. The run needs about 4× the file's size of free disk (source, the stored plain and
 * encrypted copies, one download at a time); it is not part of `npm run bench` (20 minutes and
 * more for 10 GiB): `npx tsx --conditions=@lighthouse-effect/source scripts/bench/bigFile.ts`.
 * It prints the rows and rewrites the `## Big files end to end` section of BENCHMARKS.md.
 */
import { execFile } from "node:child_process"
import { createCipheriv, createHash } from "node:crypto"
import { createWriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import { tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { privateKeyToAccount } from "viem/accounts"
import { type Operation, type OperationInput, PRIVATE_KEY } from "./client.ts"
import { buildPackage, envNumber, type Measured, MiB, sha256Of } from "./measure.ts"
import { type Server, startServer } from "./network.ts"
import * as Report from "./report.ts"

const API_KEY = "bench-big-key"
const childScript = fileURLToPath(new URL("bigChild.ts", import.meta.url))
const LIMIT_MIB = 64

type BigOperation = Extract<Operation, "upload-verified" | "upload-encrypted" | "download-car" | "download-decrypt">

/** Writes `gib` GiB of the seed's keystream to `path`, 1 MiB at a time; answers its SHA-256. */
const writeSeededFile = async (path: string, gib: number, seed: string) => {
  const key = createHash("sha256").update(seed).digest()
  const keystream = createCipheriv("aes-256-ctr", key, Buffer.alloc(16))
  const zeros = Buffer.alloc(MiB)
  const hash = createHash("sha256")
  const out = createWriteStream(path)
  for (let i = 0; i < gib * 1024; i++) {
    const chunk = keystream.update(zeros)
    hash.update(chunk)
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
  return hash.digest("hex")
}

const child = (which: BigOperation, input: OperationInput) =>
  new Promise<Measured>((resolve, reject) => {
    const args = ["--expose-gc", childScript, which, JSON.stringify(input)]
    execFile(process.execPath, args, { maxBuffer: 16 * MiB }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${which} failed: ${error.message}\n${stderr}`))
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Measured)
    })
  })

interface Row {
  readonly operation: string
  readonly client: Measured
  readonly serverGrowthMiB: number
  readonly sameBytes?: boolean
}

/** Runs `which` in a child while sampling the server's RSS against its level just before. */
const measured = async (
  server: Server,
  operation: string,
  which: BigOperation,
  input: OperationInput
): Promise<Row> => {
  const before = server.rss()
  let peak = before
  const timer = setInterval(() => {
    peak = Math.max(peak, server.rss())
  }, 50)
  try {
    const client = await child(which, input)
    return { operation, client, serverGrowthMiB: (Math.max(peak, server.rss()) - before) / MiB }
  } finally {
    clearInterval(timer)
  }
}

/** The four operations in order; each download is compared with the source, then deleted. */
const rounds = async (server: Server, file: string, sourceSha: string, dir: string) => {
  const out = nodePath.join(dir, "out.bin")
  const input = (extra: Partial<OperationInput> = {}): OperationInput => ({
    urls: server.urls,
    apiKey: API_KEY,
    file,
    out,
    ...extra
  })
  const plain = await measured(server, "plain upload (verified)", "upload-verified", input())
  const encrypted = await measured(server, "encrypted upload", "upload-encrypted", input())
  const downloads: Array<Row> = []
  for (const [operation, which, cid] of [
    ["verified download (CAR)", "download-car", plain.client.cid],
    ["decrypting download", "download-decrypt", encrypted.client.cid]
  ] as const) {
    const row = await measured(server, operation, which, input({ cid }))
    downloads.push({ ...row, sameBytes: (await sha256Of(out)) === sourceSha })
    await fs.rm(out, { force: true })
  }
  return [plain, encrypted, ...downloads]
}

const section = (rows: ReadonlyArray<Row>, gib: number) => {
  const within = (mib: number) => (mib <= LIMIT_MIB ? "yes" : "**no**")
  const met = rows.every(
    (r) => r.client.growthMiB <= LIMIT_MIB && r.serverGrowthMiB <= LIMIT_MIB && r.sameBytes !== false
  )
  return [
    "## Big files end to end",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/bigFile.ts\` on Node ${process.version}:`,
    `a ${gib} GiB file of seeded pseudo-random bytes against one served local network keeping its blocks on disk;`,
    "each operation a fresh client process (the built package under plain `node`, `bigChild.ts`) with default V8 flags;",
    "peak RSS growth over the level before the operation; V8's young generation: how much its committed size (both semi-spaces) grew by the end.",
    "",
    "| operation | wall | client CPU | client peak growth | V8's young generation, committed growth | server peak growth | bytes equal | ≤ 64 MiB |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.operation} | ${(r.client.wallMs / 1000).toFixed(0)} s | ${(r.client.cpuMs / 1000).toFixed(0)} s | ` +
        `${r.client.growthMiB.toFixed(1)} MiB | ${r.client.youngGrowthMiB.toFixed(0)} MiB | ${r.serverGrowthMiB.toFixed(1)} MiB | ` +
        `${r.sameBytes === undefined ? "–" : r.sameBytes ? "yes" : "**no**"} | ` +
        `${within(Math.max(r.client.growthMiB, r.serverGrowthMiB))} |`
    ),
    "",
    `Target: client and server peak growth each ≤ ${LIMIT_MIB} MiB, the bytes compared by SHA-256: ${met ? "met" : "**not met**"}.`
  ].join("\n")
}

const main = async () => {
  const gib = envNumber("BENCH_BIG_GIB") ?? 10
  // The children load the built package, as a Node program does.
  buildPackage()
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "lighthouse-big-"))
  const address = privateKeyToAccount(PRIVATE_KEY).address
  const file = nodePath.join(dir, "big.bin")
  // The file first: a server left idle for the minutes it takes shrinks its young generation, and
  // its first upload's growth would measure V8 growing it back rather than the upload.
  const sourceSha = await writeSeededFile(file, gib, `lighthouse-effect big file ${gib}`)
  const server = await startServer(nodePath.join(dir, "state"), { address, apiKey: API_KEY })
  try {
    const rows = await rounds(server, file, sourceSha, dir)
    const text = section(rows, gib)
    console.log(text)
    Report.writeSection(text)
    if (rows.some((r) => r.sameBytes === false)) throw new Error("a download wrote other bytes")
  } finally {
    await server.stop()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
