/**
 * Transfer benchmarks against the provider's own client, `@lighthouse-web3/sdk` 0.4.7, on the same
 * file and the same mock network, in the same run:
 *
 * - an encrypted upload of a 256 MiB file (target: peak memory ≤ 1/8 of the SDK's);
 * - a plain upload of a 1 GiB file (target: ≤ 128 MiB of memory growth);
 * - downloading and decrypting the 256 MiB file into a file (key recovery included);
 * - and for each, wall time no worse than the SDK's.
 *
 * Each side of each case runs in a fresh child process (this file, with this process's loader
 * flags and `--expose-gc`), so nothing earlier is in its figures: after setup (layers, sign-in,
 * the SDK's configuration) it collects garbage twice, takes its RSS as the baseline, then samples
 * `process.memoryUsage().rss` every 5 ms during the operation (and reads the kernel's peak RSS,
 * `VmHWM`, reset at the baseline, when Linux offers it) and reports the peak's growth over the
 * baseline and the operation's wall time.
 *
 * The mock network runs in this (parent) process as a real HTTP server on 127.0.0.1
 * (`mocks/src/server/serve.ts`, the same msw handlers) rather than inside each child through msw:
 * msw's interception keeps the whole request body in memory (its socket-level parser pushes into
 * an unbounded stream, and each handler reads a clone), and the mock node keeps every stored
 * block in memory; in a child both would be counted against the client being measured. Both
 * clients talk to the same server over loopback; the SDK's hosts are pointed at it by setting
 * its (mutable) configuration objects, kavach's included.
 *
 * Sizes: `BENCH_ENCRYPTED_MIB` (default 256), `BENCH_PLAIN_MIB` (default 1024), `BENCH_RUNS`
 * (runs per side, the median is kept; default 1).
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/transfer.ts` prints the rows and rewrites the `## Transfers` section of
 * BENCHMARKS.md; `run()` returns the rows for `scripts/bench/index.ts`.
 */

import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import { createRequire } from "node:module"
import { cpus, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, ManagedRuntime } from "effect"
import { Auth, Download, Signer, Upload } from "lighthouse-effect"
import { serveMockNetwork } from "lighthouse-effect/mocks/server"
import { privateKeyToAccount } from "viem/accounts"
import { clientLayer, envNumber, type Measured, MiB, makeFile, measure, sha256Of } from "./measure.ts"
import * as Report from "./report.ts"

export type BenchRow = Report.BenchRow

/** Options of {@link run}. */
export interface RunOptions {
  /** Size of the encrypted upload / download, in MiB. @default 256 (env `BENCH_ENCRYPTED_MIB`) */
  readonly encryptedMiB?: number
  /** Size of the plain upload, in MiB. @default 1024 (env `BENCH_PLAIN_MIB`) */
  readonly plainMiB?: number
  /** Runs per side; the median is kept. @default 1 (env `BENCH_RUNS`) */
  readonly runs?: number
}

const SDK_NAME = "@lighthouse-web3/sdk 0.4.7"
// Hardhat's account #1: a throw-away key for the local network only.
const PRIVATE_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const API_KEY = "bench-api-key"
const CHILD = "--transfer-child"
const self = fileURLToPath(import.meta.url)

type Side = "ours" | "sdk"
type Case = "encrypted-upload" | "plain-upload" | "download-decrypt"

interface ChildInput {
  readonly urls: Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>
  readonly file: string
  readonly cid?: string | undefined
  readonly out?: string | undefined
}

// =============================================================================
// Child: one operation, measured
// =============================================================================

const ours = async (which: Case, input: ChildInput): Promise<Measured> => {
  const layer = clientLayer(input.urls)
  const runtime = ManagedRuntime.make(layer)
  const signer = Signer.makeFromAccount(privateKeyToAccount(PRIVATE_KEY))
  const token = await runtime.runPromise(Effect.flatMap(Effect.service(Auth.Auth), (auth) => auth.token(signer)))
  const upload = await runtime.runPromise(Effect.service(Upload.Upload))
  const download = await runtime.runPromise(Effect.service(Download.Download))
  const result = await measure(async () => {
    switch (which) {
      case "plain-upload":
        return (await runtime.runPromise(upload.file(Upload.Input.path(input.file), { apiKey: API_KEY }))).Hash
      case "encrypted-upload":
        return (
          await runtime.runPromise(
            upload.encryptedFile(Upload.Input.path(input.file), { apiKey: API_KEY, address: signer.address, token })
          )
        ).Hash
      case "download-decrypt":
        await runtime.runPromise(download.toFile(input.cid!, input.out!, { decrypt: { signer } }))
        return undefined
    }
  })
  await runtime.dispose()
  return result
}

const sdk = async (which: Case, input: ChildInput): Promise<Measured> => {
  // The SDK's hosts are module-level objects: point them (and its kavach's) at the served network.
  const sdkRequire = createRequire(createRequire(import.meta.url).resolve("@lighthouse-web3/sdk"))
  const { lighthouseConfig } = sdkRequire("../lighthouse.config") as {
    lighthouseConfig: Record<string, unknown>
  }
  lighthouseConfig.lighthouseAPI = input.urls.api
  lighthouseConfig.lighthouseNode = input.urls.node
  lighthouseConfig.lighthouseGateway = input.urls.gateway
  lighthouseConfig.lighthouseBLSNode = input.urls.encryption
  const kavachConfig = sdkRequire("@lighthouse-web3/kavach/dist/config").defaultConfig as Record<string, unknown>
  kavachConfig.lighthouseAuthNode = input.urls.encryption
  kavachConfig.lighthouseBLSNode = input.urls.encryption
  const { default: lighthouse } = await import("@lighthouse-web3/sdk")
  const account = privateKeyToAccount(PRIVATE_KEY)
  const { data } = await lighthouse.getAuthMessage(account.address)
  const signature = await account.signMessage({ message: data.message as string })
  return measure(async () => {
    switch (which) {
      case "plain-upload":
        return ((await lighthouse.upload(input.file, API_KEY)).data as { Hash: string }).Hash
      case "encrypted-upload": {
        const uploaded = await lighthouse.uploadEncrypted(input.file, API_KEY, account.address, signature)
        return (uploaded.data as ReadonlyArray<{ Hash: string }>)[0]!.Hash
      }
      case "download-decrypt": {
        const { data: key } = await lighthouse.fetchEncryptionKey(input.cid!, account.address, signature)
        const plain = await lighthouse.decryptFile(input.cid!, key.key as string)
        await fs.writeFile(input.out!, new Uint8Array(plain as ArrayBuffer))
        return undefined
      }
    }
  })
}

// =============================================================================
// Parent: files, the served network, the children
// =============================================================================

/** Runs one side of one case in a fresh process. */
const inChild = (side: Side, which: Case, input: ChildInput) =>
  new Promise<Measured>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--expose-gc", ...process.execArgv, self, CHILD, side, which, JSON.stringify(input)],
      { maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${side} ${which} failed: ${error.message}\n${stderr}`))
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Measured)
      }
    )
  )

/** Each case's medians, ours against the SDK's: peak memory growth, then wall time. */
const rowsOf = (
  results: Readonly<Record<string, ReadonlyArray<Measured>>>,
  encryptedMiB: number,
  plainMiB: number
): Array<BenchRow> => {
  const pick = (key: string, field: "wallMs" | "growthMiB") => Report.median(results[key]!.map((m) => m[field]))
  const rows: Array<BenchRow> = []
  const cases: ReadonlyArray<{
    readonly key: Case
    readonly label: string
    readonly memoryTarget: { readonly text: string; readonly pass: (ours: number, sdk: number) => boolean }
  }> = [
    {
      key: "encrypted-upload",
      label: `encrypted upload, ${encryptedMiB} MiB file`,
      memoryTarget: { text: "≤ 1/8 of the SDK's", pass: (o, s) => o <= s / 8 }
    },
    {
      key: "plain-upload",
      label: `plain upload, ${plainMiB} MiB file`,
      memoryTarget: { text: "≤ 128 MiB", pass: (o) => o <= 128 }
    },
    {
      key: "download-decrypt",
      label: `download + decrypt into a file, ${encryptedMiB} MiB (key recovery included)`,
      memoryTarget: { text: "below the SDK's", pass: (o, s) => o < s }
    }
  ]
  for (const c of cases) {
    const memOurs = pick(`${c.key}/ours`, "growthMiB")
    const memSdk = pick(`${c.key}/sdk`, "growthMiB")
    rows.push({
      benchmark: `${c.label}: peak RSS growth`,
      value: memOurs,
      unit: "MiB",
      baseline: { name: SDK_NAME, value: memSdk },
      ratio: memOurs / memSdk,
      target: c.memoryTarget.text,
      pass: c.memoryTarget.pass(memOurs, memSdk)
    })
    const timeOurs = pick(`${c.key}/ours`, "wallMs") / 1000
    const timeSdk = pick(`${c.key}/sdk`, "wallMs") / 1000
    rows.push({
      benchmark: `${c.label}: wall time`,
      value: timeOurs,
      unit: "s",
      baseline: { name: SDK_NAME, value: timeSdk },
      ratio: timeOurs / timeSdk,
      target: "≤ the SDK's",
      pass: timeOurs <= timeSdk
    })
  }
  return rows
}

/** Runs every transfer benchmark and returns its rows. */
export const run = async (options: RunOptions = {}): Promise<ReadonlyArray<BenchRow>> => {
  const encryptedMiB = options.encryptedMiB ?? envNumber("BENCH_ENCRYPTED_MIB") ?? 256
  const plainMiB = options.plainMiB ?? envNumber("BENCH_PLAIN_MIB") ?? 1024
  const runs = options.runs ?? envNumber("BENCH_RUNS") ?? 1
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "bench-transfer-"))
  const served = await serveMockNetwork({ defaultDataLimit: Number.MAX_SAFE_INTEGER })
  const address = privateKeyToAccount(PRIVATE_KEY).address
  const seed = () => served.network.seedAccount(address, { apiKey: API_KEY, dataLimit: Number.MAX_SAFE_INTEGER })
  try {
    const encryptedFile = nodePath.join(dir, "encrypted-source.bin")
    const plainFile = nodePath.join(dir, "plain-source.bin")
    await makeFile(encryptedFile, encryptedMiB)
    await makeFile(plainFile, plainMiB)
    const input = (file: string, extra: Partial<ChildInput> = {}): ChildInput => ({ urls: served.urls, file, ...extra })
    const results: Record<string, Array<Measured>> = {}
    const record = (key: string, measured: Measured) => {
      results[key] ??= []
      results[key].push(measured)
    }
    const fresh = () => {
      // Stored content is dropped between cases so the server does not grow without end.
      served.network.reset()
      seed()
    }

    for (let r = 0; r < runs; r++) {
      for (const side of ["ours", "sdk"] as const) {
        fresh()
        record(`plain-upload/${side}`, await inChild(side, "plain-upload", input(plainFile)))
      }
      fresh()
      // Both download the file this library uploaded (the SDK decrypts it: interop), then the SDK uploads its own.
      const uploaded = await inChild("ours", "encrypted-upload", input(encryptedFile))
      record("encrypted-upload/ours", uploaded)
      for (const side of ["ours", "sdk"] as const) {
        const out = nodePath.join(dir, `decrypted-${side}.bin`)
        record(
          `download-decrypt/${side}`,
          await inChild(side, "download-decrypt", input(encryptedFile, { cid: uploaded.cid, out }))
        )
        if ((await sha256Of(out)) !== (await sha256Of(encryptedFile))) throw new Error(`${side} decrypted other bytes`)
        await fs.rm(out)
      }
      record("encrypted-upload/sdk", await inChild("sdk", "encrypted-upload", input(encryptedFile)))
    }

    return rowsOf(results, encryptedMiB, plainMiB)
  } finally {
    await served.close()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

// =============================================================================
// Report
// =============================================================================

/** The rows as the `## Transfers` section of BENCHMARKS.md. */
export const markdownSection = (rows: ReadonlyArray<BenchRow>, options: RunOptions = {}): string =>
  [
    "## Transfers",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/transfer.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads); ${options.runs ?? envNumber("BENCH_RUNS") ?? 1} run(s) per side, median.`,
    "",
    ...Report.comparisonTable(rows),
    "",
    "Each side of each case runs in a fresh process; memory is the peak RSS (sampled every 5 ms, and the kernel's",
    "`VmHWM`) over the RSS after setup and two full collections. Both clients send to the same mock network,",
    "served over loopback HTTP from the parent process (in-process msw would keep whole request bodies in the",
    "measured process). Wall times include the key nodes' calls with each client's default policy: this library",
    "pauses 1 s between nodes (its sequential default), kavach sleeps 1 s after every node. Both sides download and decrypt the",
    "file this library uploaded; the SDK's decrypted bytes are written to a file like this library's, and both",
    "outputs are checked against the source. This library runs over `NodeHttpClient.layerNodeHttp`: over",
    "`FetchHttpClient` (undici's `fetch`) a streamed request body stays in memory until the request ends (a 1 GiB",
    "upload over it grew by 1024 MiB in a development run), so Node applications should give uploads",
    "`node:http`. Files are read in 256 KiB chunks (64 KiB doubled the plain upload's CPU time).",
    ""
  ].join("\n")

if (process.argv[1] === self && process.argv[2] === CHILD) {
  const side = process.argv[3] as Side
  const which = process.argv[4] as Case
  const input = JSON.parse(process.argv[5]!) as ChildInput
  const measured = side === "ours" ? await ours(which, input) : await sdk(which, input)
  console.log(JSON.stringify(measured))
  // The SDK leaves timers and sockets behind.
  process.exit(0)
} else if (process.argv[1] === self) {
  const rows = await run()
  Report.printRows(rows)
  Report.writeSection(markdownSection(rows))
}
