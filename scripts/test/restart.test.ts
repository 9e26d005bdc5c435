/**
 * `npm run serve --state-dir DIR` as a child process: what it was given is there after a restart
 * with the same directory (the same API key lists the upload, the gateway returns the same bytes,
 * as a CAR too), and a server killed with SIGKILL in the middle of an upload comes back with no
 * record pointing at a block it does not hold, and with `--gc` without the blocks the cut upload left.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CarBlockIterator } from "@ipld/car"
import { sha256 } from "multiformats/hashes/sha2"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const address = "0x00000000000000000000000000000000000000c3"
const apiKey = "restart-test-key"

interface Running {
  readonly child: ChildProcess
  readonly urls: Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>
  /** What `--gc` did before serving. */
  readonly garbage?: { readonly kept: number; readonly removed: number }
}

const running: Array<ChildProcess> = []
let dir: string

/** `serve --state-dir` on free ports, without the chain; resolves once it prints its addresses. */
const serve = (stateDir: string, seed: boolean, extra: ReadonlyArray<string> = []): Promise<Running> => {
  // `--import tsx` rather than tsx's CLI: one process, so SIGKILL hits the server itself.
  const args = ["--conditions=@lighthouse-effect/source", "--import", "tsx", "scripts/serve.ts", "--json", "--no-chain"]
  args.push("--free-ports", "--state-dir", stateDir, "--data-limit", String(1024 ** 3))
  if (seed) args.push("--seed", `${address}:${apiKey}`)
  args.push(...extra)
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  running.push(child)
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const end = out.indexOf("\n")
      if (end >= 0) resolve({ child, ...(JSON.parse(out.slice(0, end)) as Omit<Running, "child">) })
    })
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
}

const stop = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill(signal)
  })

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "restart-"))
})
afterEach(async () => {
  for (const child of running.splice(0)) await stop(child, "SIGTERM")
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

// 2 MiB + 3 bytes that never repeat a 256 KiB chunk: 9 leaves and a root, 10 blocks.
const content = (() => {
  const bytes = new Uint8Array(2 * 1024 * 1024 + 3)
  let state = 12345
  for (let i = 0; i < bytes.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
})()

const upload = async (node: string, name: string, body: Uint8Array) => {
  const form = new FormData()
  form.append("file", new Blob([body as BlobPart]), name)
  const response = await fetch(`${node}/api/v0/add?cid-version=1`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { Hash: string }).Hash
}

/** How many block files `blockstore-fs` holds under `directory`. */
const blockFiles = async (directory: string) =>
  (await readdir(directory, { recursive: true })).filter((name) => name.endsWith(".data")).length

const listed = async (api: string) => {
  const response = await fetch(`${api}/api/user/files_uploaded?lastKey=null`, {
    headers: { Authorization: `Bearer ${apiKey}` }
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { fileList: ReadonlyArray<{ cid: string; fileName: string }> }).fileList
}

describe("serve --state-dir", () => {
  it("has everything again after a restart with the same directory", async () => {
    const stateDir = join(dir, "kept")
    const first = await serve(stateDir, true)
    const cid = await upload(first.urls.node, "kept.bin", content)
    await stop(first.child, "SIGTERM")

    const second = await serve(stateDir, false)
    expect((await listed(second.urls.api)).map((file) => [file.fileName, file.cid])).toEqual([["kept.bin", cid]])
    const back = await fetch(`${second.urls.gateway}/ipfs/${cid}`)
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(content)
    const car = await fetch(`${second.urls.gateway}/ipfs/${cid}?format=car`)
    expect(car.headers.get("content-type")).toBe("application/vnd.ipld.car; version=1; order=dfs; dups=n")
    const blocks = await CarBlockIterator.fromBytes(new Uint8Array(await car.arrayBuffer()))
    expect((await blocks.getRoots()).map(String)).toEqual([cid])
    let count = 0
    for await (const block of blocks) {
      expect((await sha256.digest(block.bytes)).digest).toEqual(block.cid.multihash.digest)
      count += 1
    }
    expect(count).toBe(10)
  })

  it("killed with SIGKILL during an upload, comes back with no record of blocks it lacks", async () => {
    const stateDir = join(dir, "killed")
    const first = await serve(stateDir, true)
    const kept = await upload(first.urls.node, "before.bin", content)
    // A 64 MiB upload whose body is still streaming when the server dies.
    const controller = new AbortController()
    const chunk = new Uint8Array(1024 * 1024).fill(7)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull: (stream) => {
        if (sent === 0)
          stream.enqueue(
            new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n')
          )
        sent += 1
        if (sent > 64) stream.close()
        else stream.enqueue(chunk)
        if (sent === 16) first.child.kill("SIGKILL")
      }
    })
    const cut = fetch(`${first.urls.node}/api/v0/add?cid-version=1`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "content-type": "multipart/form-data; boundary=b" },
      body,
      signal: controller.signal,
      duplex: "half"
    } as RequestInit)
    await expect(cut).rejects.toThrow()
    await stop(first.child, "SIGKILL")

    // `--gc` takes what the cut upload left: only the 10 blocks of the recorded file stay on disk.
    const second = await serve(stateDir, false, ["--gc"])
    expect(second.garbage?.kept).toBe(10)
    expect(await blockFiles(join(stateDir, "blocks"))).toBe(10)
    const files = await listed(second.urls.api)
    expect(files.map((file) => file.fileName)).toEqual(["before.bin"])
    for (const file of files) {
      const car = await fetch(`${second.urls.gateway}/ipfs/${file.cid}?format=car`)
      const blocks = await CarBlockIterator.fromBytes(new Uint8Array(await car.arrayBuffer()))
      let count = 0
      for await (const _ of blocks) count += 1
      expect(count).toBe(10)
    }
    expect(files[0]!.cid).toBe(kept)
  })
})
