/**
 * The served local network's own cost, in memory and on disk side by side (`npm run serve`, with
 * and without `--state-dir`), each in a fresh server process whose RSS is read from
 * `/proc/<pid>/status` every 50 ms:
 *
 * - bulk: 10 files of 100 MiB uploaded one after the other, then downloaded back through the
 *   gateway; server RSS growth over the idle server (target on disk: ≤ 64 MiB each way) and
 *   throughput;
 * - load: 32 clients at once, each uploading a 1 MiB file and downloading it back in a loop for
 *   `BENCH_LOAD_SECONDS` (default 60): operations, bytes, failures (target: none) and peak RSS.
 *
 * Every byte is checked: uploads stream pseudo-random bytes (never held whole), downloads are
 * hashed as they arrive and compared with the upload's hash.
 *
 * Sizes: `BENCH_FILES` (10), `BENCH_FILE_MIB` (100), `BENCH_CLIENTS` (32), `BENCH_LOAD_SECONDS` (60).
 * `npx tsx scripts/bench/network.ts` prints the rows and rewrites the `## Local network` section of
 * BENCHMARKS.md.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { request } from "node:http"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Report from "./report.ts"

const MiB = 1024 * 1024
const env = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback)
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name} must be a positive number`)
  return value
}
const files = env("BENCH_FILES", 10)
const fileMiB = env("BENCH_FILE_MIB", 100)
const clients = env("BENCH_CLIENTS", 32)
const loadSeconds = env("BENCH_LOAD_SECONDS", 60)
const loadFileBytes = MiB
const address = "0x00000000000000000000000000000000000000b1"
const apiKey = "bench-network-key"
const root = fileURLToPath(new URL("../..", import.meta.url))

// =============================================================================
// The server
// =============================================================================

export interface Server {
  readonly process: ChildProcess
  readonly urls: Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>
  readonly rss: () => number
  readonly stop: () => Promise<void>
}

const rssOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
}

/** `serve` in a child process of its own (no chain), on free ports; `stateDir` puts it on disk; `seed` is the account it knows. */
export const startServer = async (
  stateDir: string | undefined,
  seed: { readonly address: string; readonly apiKey: string } = { address, apiKey }
): Promise<Server> => {
  const args = [
    "--conditions=@lighthouse-effect/source",
    "--import",
    "tsx",
    "scripts/serve.ts",
    "--json",
    "--no-chain",
    "--free-ports"
  ]
  args.push("--data-limit", String(64 * 1024 * MiB), "--seed", `${seed.address}:${seed.apiKey}`)
  if (stateDir !== undefined) args.push("--state-dir", stateDir)
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (chunk) => {
    stderr += chunk
  })
  const line = await new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk) => {
      out += chunk
      const end = out.indexOf("\n")
      if (end >= 0) resolve(out.slice(0, end))
    })
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
  const { urls } = JSON.parse(line) as { urls: Server["urls"] }
  return {
    process: child,
    urls,
    rss: () => rssOf(child.pid!),
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/** Samples the server's RSS until stopped; answers the peak. */
const sampler = (server: Server) => {
  let peak = server.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, server.rss())
  }, 50)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, server.rss())
    }
  }
}

// =============================================================================
// Clients (node:http: a streamed request body is sent as it is produced)
// =============================================================================

/** `size` pseudo-random bytes from `seed`, in 256 KiB chunks, produced on demand. */
function* pseudoRandom(size: number, seed: number): Generator<Uint8Array> {
  let state = seed >>> 0 || 1
  for (let sent = 0; sent < size; ) {
    const chunk = new Uint8Array(Math.min(256 * 1024, size - sent))
    const words = new Uint32Array(chunk.buffer, 0, chunk.byteLength >>> 2)
    for (let i = 0; i < words.length; i++) {
      state ^= state << 13
      state ^= state >>> 17
      state ^= state << 5
      words[i] = state >>> 0
    }
    sent += chunk.byteLength
    yield chunk
  }
}

const boundary = "----lighthouse-effect-bench"

/** Uploads `size` bytes as one file; answers its CID and the bytes' SHA-256. */
export const uploadFile = (node: string, name: string, size: number, seed: number) =>
  new Promise<{ cid: string; sha256: string }>((resolve, reject) => {
    const hash = createHash("sha256")
    const url = new URL(`${node}/api/v0/add?cid-version=1`)
    const req = request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": `multipart/form-data; boundary=${boundary}` }
    })
    req.on("error", reject)
    req.on("response", (response) => {
      let text = ""
      response.on("data", (chunk) => {
        text += chunk
      })
      response.on("end", () => {
        if (response.statusCode !== 200) reject(new Error(`upload answered ${response.statusCode}: ${text}`))
        else resolve({ cid: (JSON.parse(text) as { Hash: string }).Hash, sha256: hash.digest("hex") })
      })
    })
    const chunks = pseudoRandom(size, seed)
    const writeNext = () => {
      for (;;) {
        const next = chunks.next()
        if (next.done) {
          req.end(`\r\n--${boundary}--\r\n`)
          return
        }
        hash.update(next.value)
        if (!req.write(next.value)) {
          req.once("drain", writeNext)
          return
        }
      }
    }
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`
    )
    writeNext()
  })

/** Downloads `/ipfs/<cid>`; answers the bytes' SHA-256 and count. */
export const downloadFile = (gateway: string, cid: string) =>
  new Promise<{ sha256: string; bytes: number }>((resolve, reject) => {
    const hash = createHash("sha256")
    let bytes = 0
    request(`${gateway}/ipfs/${cid}`, (response) => {
      if (response.statusCode !== 200) reject(new Error(`download answered ${response.statusCode}`))
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.byteLength
        hash.update(chunk)
      })
      response.on("end", () => resolve({ sha256: hash.digest("hex"), bytes }))
      response.on("error", reject)
    })
      .on("error", reject)
      .end()
  })

// =============================================================================
// Cases
// =============================================================================

interface Bulk {
  readonly uploadGrowth: number
  readonly downloadGrowth: number
  readonly uploadMiBs: number
  readonly downloadMiBs: number
}

/** One small round trip, so the idle figure is taken after the code paths have run once. */
const warmUp = async (server: Server) => {
  const { cid, sha256 } = await uploadFile(server.urls.node, "warm-up.bin", 4 * MiB, 99)
  if ((await downloadFile(server.urls.gateway, cid)).sha256 !== sha256) throw new Error("warm-up came back different")
}

const bulk = async (server: Server): Promise<Bulk> => {
  await warmUp(server)
  const idle = server.rss()
  const uploading = sampler(server)
  const started = performance.now()
  const uploaded = []
  for (let i = 0; i < files; i++)
    uploaded.push(await uploadFile(server.urls.node, `bulk-${i}.bin`, fileMiB * MiB, i + 1))
  const uploadSeconds = (performance.now() - started) / 1000
  const uploadPeak = uploading.stop()
  const before = server.rss()
  const downloading = sampler(server)
  const downloadStart = performance.now()
  for (const file of uploaded) {
    const back = await downloadFile(server.urls.gateway, file.cid)
    if (back.sha256 !== file.sha256) throw new Error(`${file.cid} came back different`)
  }
  const downloadSeconds = (performance.now() - downloadStart) / 1000
  const downloadPeak = downloading.stop()
  const total = files * fileMiB
  return {
    uploadGrowth: (uploadPeak - idle) / MiB,
    downloadGrowth: (downloadPeak - before) / MiB,
    uploadMiBs: total / uploadSeconds,
    downloadMiBs: total / downloadSeconds
  }
}

interface Load {
  readonly operations: number
  readonly failures: number
  /** What the failures were, each kind once. */
  readonly reasons: ReadonlyArray<string>
  readonly mibPerSecond: number
  readonly peakGrowth: number
}

/** `clients` loops of upload + download + compare, for `seconds`. */
export const load = async (server: Server, seconds: number, clientCount = clients): Promise<Load> => {
  await warmUp(server)
  const idle = server.rss()
  const sampling = sampler(server)
  const until = performance.now() + seconds * 1000
  let operations = 0
  let failures = 0
  const reasons = new Set<string>()
  let bytes = 0
  const client = async (id: number) => {
    for (let round = 0; performance.now() < until; round++) {
      try {
        const up = await uploadFile(
          server.urls.node,
          `load-${id}-${round}.bin`,
          loadFileBytes,
          id * 100_003 + round + 1
        )
        const down = await downloadFile(server.urls.gateway, up.cid)
        if (down.sha256 !== up.sha256) throw new Error(`${up.cid} came back different`)
        operations += 1
        bytes += 2 * loadFileBytes
      } catch (error) {
        failures += 1
        reasons.add(error instanceof Error ? error.message.replace(/Qm\w+|baf\w+/g, "<cid>") : String(error))
      }
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: clientCount }, (_, id) => client(id)))
  const elapsed = (performance.now() - started) / 1000
  return {
    operations,
    failures,
    reasons: [...reasons],
    mibPerSecond: bytes / MiB / elapsed,
    peakGrowth: (sampling.stop() - idle) / MiB
  }
}

// =============================================================================
// Main
// =============================================================================

const measure = async (mode: "memory" | "disk") => {
  const stateDir = mode === "disk" ? await mkdtemp(join(tmpdir(), "bench-network-")) : undefined
  try {
    const bulkServer = await startServer(stateDir)
    const bulkResult = await bulk(bulkServer).finally(() => bulkServer.stop())
    const loadServer = await startServer(stateDir)
    const loadResult = await load(loadServer, loadSeconds).finally(() => loadServer.stop())
    return { bulk: bulkResult, load: loadResult }
  } finally {
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true })
  }
}

const fmt = (value: number, digits = 1) => value.toFixed(digits)

type Measured = Awaited<ReturnType<typeof measure>>

/** Each figure in memory and on disk, with its target. */
const rowsOf = (memory: Measured, disk: Measured) => {
  const total = `${files} × ${fileMiB} MiB`
  const rows = [
    [
      `upload ${total}: server RSS growth`,
      `${fmt(memory.bulk.uploadGrowth)} MiB`,
      `${fmt(disk.bulk.uploadGrowth)} MiB`,
      "on disk ≤ 64 MiB",
      disk.bulk.uploadGrowth <= 64
    ],
    [
      `upload ${total}: throughput`,
      `${fmt(memory.bulk.uploadMiBs)} MiB/s`,
      `${fmt(disk.bulk.uploadMiBs)} MiB/s`,
      "",
      true
    ],
    [
      `download ${total}: server RSS growth`,
      `${fmt(memory.bulk.downloadGrowth)} MiB`,
      `${fmt(disk.bulk.downloadGrowth)} MiB`,
      "on disk ≤ 64 MiB",
      disk.bulk.downloadGrowth <= 64
    ],
    [
      `download ${total}: throughput`,
      `${fmt(memory.bulk.downloadMiBs)} MiB/s`,
      `${fmt(disk.bulk.downloadMiBs)} MiB/s`,
      "",
      true
    ],
    [
      `${clients} clients × ${loadSeconds} s, 1 MiB up + down each: round trips`,
      String(memory.load.operations),
      String(disk.load.operations),
      "",
      true
    ],
    [
      `${clients} clients: failures (upload, download or bytes differ)`,
      String(memory.load.failures),
      String(disk.load.failures),
      "none",
      memory.load.failures === 0 && disk.load.failures === 0
    ],
    [
      `${clients} clients: throughput (up + down)`,
      `${fmt(memory.load.mibPerSecond)} MiB/s`,
      `${fmt(disk.load.mibPerSecond)} MiB/s`,
      "",
      true
    ],
    [
      `${clients} clients: peak server RSS growth`,
      `${fmt(memory.load.peakGrowth)} MiB`,
      `${fmt(disk.load.peakGrowth)} MiB`,
      "",
      true
    ]
  ] as const
  return rows
}

/** The `## Local network` section of BENCHMARKS.md. */
const sectionOf = (memory: Measured, disk: Measured): string => {
  const rows = rowsOf(memory, disk)
  const table = [
    "| benchmark | in memory | on disk (`--state-dir`) | target | met |",
    "|---|---|---|---|---|",
    ...rows.map(
      ([name, mem, dsk, target, met]) =>
        `| ${name} | ${mem} | ${dsk} | ${target} | ${target === "" ? "" : met ? "yes" : "no"} |`
    )
  ]
  const section = [
    "## Local network",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx scripts/bench/network.ts\` on Node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads).`,
    "",
    ...table,
    "",
    "`npm run serve` in a child process of its own per case (no chain), clients in the bench process over",
    "loopback HTTP (`node:http`, bodies streamed both ways). RSS is the server's `VmRSS`, sampled every 50 ms,",
    "over the idle server's (after one 4 MiB round trip). Every download is hashed and compared with its upload. In memory the server keeps",
    "every block in its heap, so its RSS grows by what was uploaded; on disk blocks stream to `blockstore-fs`",
    "files and back, and state goes to SQLite.",
    ...[memory, disk].flatMap((result, i) =>
      result.load.reasons.length === 0
        ? []
        : ["", `Load failures ${i === 0 ? "in memory" : "on disk"}: ${result.load.reasons.join("; ")}.`]
    )
  ].join("\n")
  return section
}

const main = async () => {
  const memory = await measure("memory")
  const disk = await measure("disk")
  const section = sectionOf(memory, disk)
  console.log(section)
  Report.writeSection(section)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
