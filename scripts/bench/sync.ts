/**
 * What `Upload.sync` sends, side by side in one run on one folder and the served network on disk:
 *
 * - the first run of a folder of `BENCH_SYNC_FILES` files (default 1 000) holding `BENCH_SYNC_MIB`
 *   MiB in all (default 1 024): every block goes;
 * - a second run, nothing changed: the root node alone goes (the node's answer vouches for the
 *   whole snapshot), and no file is read (the index knows them);
 * - a third run, one file rewritten: that file's blocks and the folder nodes above it;
 * - the provider's SDK (`@lighthouse-web3/sdk`, in a child process) uploading the same folder twice,
 *   as its users back a folder up: the bytes its second upload sends, against the bytes this
 *   library's second run sends. Both are counted on the wire (request lines, headers and bodies,
 *   through a TCP relay in front of the node host), the SDK's whole folder in multipart form.
 *
 * Targets (issue 39): the unchanged run sends ≤ 1 % of the first run's bytes in ≤ 10 % of its wall
 * time; the one-file run sends that file's bytes plus the folder nodes, nothing else (checked as:
 * at most the file's size plus the root's block plus 1 KiB of CAR framing). The client runs in
 * this process over `node:http`, the network is served over loopback HTTP with its blocks on disk.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/sync.ts` prints the rows and
 * rewrites the `## Sync` section of BENCHMARKS.md.
 */
import { execFile } from "node:child_process"
import { randomFillSync } from "node:crypto"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import { cpus, tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, ManagedRuntime } from "effect"
import { Upload } from "lighthouse-effect"
import { pointProviderSdkAt, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { privateKeyToAccount } from "viem/accounts"
import { clientLayer, envNumber, MiB } from "./measure.ts"
import * as Report from "./report.ts"

const API_KEY = "bench-api-key"
// Hardhat's account #1: a throw-away key for the local network only.
const ADDRESS = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address
const self = fileURLToPath(import.meta.url)
const SDK_CHILD = "--sdk-child"
const SDK_NAME = "@lighthouse-web3/sdk 0.4.7"

type Urls = Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>

/** A TCP relay to `target` on loopback, counting the bytes its clients send through it. */
const countingRelay = async (target: string) => {
  const { hostname, port } = new URL(target)
  let sent = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    }
    client.on("data", (chunk: Buffer) => {
      sent += chunk.length
    })
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port: own } = server.address() as net.AddressInfo
  return {
    url: `http://127.0.0.1:${own}`,
    /** Bytes sent through the relay since the last call. */
    take: () => {
      const taken = sent
      sent = 0
      return taken
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** The SDK's folder upload in a child process (it leaves timers and sockets behind); its CID. */
const sdkUpload = (urls: Urls, folder: string) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [...process.execArgv, self, SDK_CHILD, JSON.stringify({ urls, folder })],
      { maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the SDK's upload failed: ${error.message}\n${stderr}`))
        else resolve(stdout.trim().split("\n").at(-1)!)
      }
    )
  )

const sdkChild = async (input: { readonly urls: Urls; readonly folder: string }) => {
  pointProviderSdkAt(input.urls)
  const { default: lighthouse } = await import("@lighthouse-web3/sdk")
  const answer = (await lighthouse.upload(input.folder, API_KEY)).data as { readonly Hash: string }
  console.log(answer.Hash)
}

/** `files` files of random bytes, `bytes` in all, 10 to a sub-folder. */
const makeTree = async (dir: string, files: number, bytes: number) => {
  const each = Math.floor(bytes / files)
  const content = new Uint8Array(each)
  for (let i = 0; i < files; i++) {
    const path = nodePath.join(dir, `d${String(Math.floor(i / 10)).padStart(3, "0")}`, `f${i}.bin`)
    await fs.mkdir(nodePath.dirname(path), { recursive: true })
    randomFillSync(content)
    await fs.writeFile(path, content)
  }
  return { each, first: nodePath.join(dir, "d000", "f0.bin") }
}

/** One sync, timed. */
const timed = async (run: () => Promise<Upload.SyncResult>) => {
  const started = performance.now()
  const result = await run()
  return { result, seconds: (performance.now() - started) / 1000 }
}

export const run = async (): Promise<ReadonlyArray<Report.BenchRow>> => {
  const files = envNumber("BENCH_SYNC_FILES") ?? 1000
  const mib = envNumber("BENCH_SYNC_MIB") ?? 1024
  const dir = await fs.mkdtemp(nodePath.join(tmpdir(), "bench-sync-"))
  const served = await serveMockNetwork({
    defaultDataLimit: Number.MAX_SAFE_INTEGER,
    stateDir: nodePath.join(dir, "network")
  })
  const relay = await countingRelay(served.urls.node)
  const urls = { ...served.urls, node: relay.url }
  const runtime = ManagedRuntime.make(clientLayer(urls))
  try {
    served.network.seedAccount(ADDRESS, { apiKey: API_KEY, dataLimit: Number.MAX_SAFE_INTEGER })
    const source = nodePath.join(dir, "source")
    const { each, first: changed } = await makeTree(source, files, mib * MiB)
    const upload = await runtime.runPromise(Effect.service(Upload.Upload))
    const sync = () =>
      runtime.runPromise(upload.sync(source, { apiKey: API_KEY, stateDirectory: nodePath.join(dir, "state") }))
    const first = await timed(sync)
    relay.take()
    const unchanged = await timed(sync)
    const unchangedWire = relay.take()
    if (!unchanged.result.unchanged) throw new Error("the second run's snapshot differs from the first")
    await fs.writeFile(changed, randomFillSync(new Uint8Array(each)))
    const oneFile = await timed(sync)
    if (oneFile.result.sent.join() !== "d000/f0.bin")
      throw new Error(`one change sent ${oneFile.result.sent.length} files`)
    await sdkUpload(urls, source)
    relay.take()
    const sdkCid = await sdkUpload(urls, source)
    const sdkWire = relay.take()
    if (sdkCid !== oneFile.result.cid)
      console.log(`the SDK's CID ${sdkCid} is not the snapshot's ${oneFile.result.cid}`)
    const label = `${files} files, ${mib} MiB`
    const firstBytes = first.result.bytesSent / MiB
    return [
      {
        benchmark: `sync of an unchanged folder (${label}): bytes sent`,
        value: unchanged.result.bytesSent / MiB,
        unit: "MiB",
        baseline: { name: "first run", value: firstBytes },
        ratio: unchanged.result.bytesSent / first.result.bytesSent,
        target: "≤ 0.01× the first run",
        pass: unchanged.result.bytesSent <= first.result.bytesSent * 0.01
      },
      {
        benchmark: `sync of an unchanged folder (${label}): wall time`,
        value: unchanged.seconds,
        unit: "s",
        baseline: { name: "first run", value: first.seconds },
        ratio: unchanged.seconds / first.seconds,
        target: "≤ 0.10× the first run",
        pass: unchanged.seconds <= first.seconds * 0.1
      },
      {
        benchmark: `sync with one ${Report.figure(each / 1024)} KiB file changed (${label}): bytes sent`,
        value: oneFile.result.bytesSent / MiB,
        unit: "MiB",
        baseline: { name: "first run", value: firstBytes },
        ratio: oneFile.result.bytesSent / first.result.bytesSent,
        target: "the file, its folder nodes and the root only",
        pass: oneFile.result.bytesSent <= each + unchanged.result.bytesSent + 2048 + 1024
      },
      {
        benchmark: `second backup of an unchanged folder (${label}): bytes on the wire (${unchangedWire} against ${sdkWire})`,
        value: unchangedWire / MiB,
        unit: "MiB",
        baseline: { name: `${SDK_NAME}, its second upload`, value: sdkWire / MiB },
        ratio: unchangedWire / sdkWire,
        target: "≤ 0.01× the SDK's",
        pass: unchangedWire <= sdkWire * 0.01
      }
    ]
  } finally {
    await runtime.dispose()
    await relay.close()
    await served.close()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

/** The rows as the `## Sync` section of BENCHMARKS.md. */
export const markdownSection = (rows: ReadonlyArray<Report.BenchRow>): string =>
  [
    "## Sync",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx scripts/bench/sync.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads).`,
    "",
    ...Report.comparisonTable(rows),
    "",
    "`Upload.sync` of one folder three times against the network served over loopback HTTP with its blocks on disk:",
    "the first run sends every block as one CAR through `dag/import`; the second, nothing changed, reads no file (the",
    "index in the state directory knows each one's size, time and CID) and sends the root node alone, which the node",
    "takes because it holds everything under it; the third sends the rewritten file's blocks and the nodes of the",
    "folders above it. Bytes are the CAR's, but for the last row: there both clients' requests to the node host are",
    "counted on the wire (a TCP relay in front of it), this library's second run against the provider's SDK",
    "uploading the same folder a second time (it has no incremental mode: every file goes again).",
    ""
  ].join("\n")

if (process.argv[1] === self && process.argv[2] === SDK_CHILD) {
  await sdkChild(JSON.parse(process.argv[3]!))
  process.exit(0)
} else if (process.argv[1] === self) {
  const rows = await run()
  Report.printRows(rows)
  Report.writeSection(markdownSection(rows))
}
