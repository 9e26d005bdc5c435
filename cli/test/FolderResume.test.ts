/**
 * A killed folder download resumes: `download CID -o DIR` is SIGKILLed once some of the folder's
 * files are on disk, then run again; the tree equals the folder, the files that were complete are
 * kept as they were (not rewritten: same inode and mtime), and no temporary file or lock is left.
 * The gateway is a small trustless one on loopback serving the folder's CAR (`dag-scope=all`); its
 * first answer stops after the blocks of the first files and holds, so the process is killed
 * mid-download, deterministically (a retry of the first process holds too).
 */
import { readdir, readFile, stat } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as nodePath from "node:path"
import * as dagPb from "@ipld/dag-pb"
import { importer } from "ipfs-unixfs-importer"
import { carHeader, carSection } from "lighthouse-effect/mocks/testing"
import { CID } from "multiformats/cid"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome } from "./support/commands.ts"
import { buildExecutable, type Executable, runExecutable } from "./support/executable.ts"
import { startExecutable, waitFor } from "./support/processes.ts"

/** Eight files of 300 KiB (two blocks each), four of them in a subfolder. */
const files: ReadonlyArray<{ readonly path: string; readonly content: Uint8Array }> = Array.from(
  { length: 8 },
  (_, n) => ({
    path: n < 4 ? `f${n}.bin` : `sub/f${n}.bin`,
    content: new Uint8Array(300 * 1024).map((_, i) => (i * (n + 3) + (i >> 10)) & 0xff)
  })
)
/** Answers stop after the blocks of this many files (in the CAR's order), and half the next, and hold until the kill. */
const filesBeforeHold = 3

let executable: Executable
let server: Server
let url: string
let folder: CID
const blocks = new Map<string, Uint8Array>()
/** Resolved once the first process is killed: answers no longer hold (a retry of the first's holds too). */
let release!: () => void
let holding = true

/** The DAG under `cid`, depth first, as a `dag-scope=all` CAR orders it. */
function* dagOrder(cid: CID): Generator<CID> {
  yield cid
  if (cid.code !== dagPb.code) return
  for (const link of dagPb.decode(blocks.get(cid.toString())!).Links) yield* dagOrder(link.Hash)
}

/** How many of the CAR's blocks make up the first `count` files (their last block included). */
const blocksThroughFiles = (order: ReadonlyArray<CID>, count: number) => {
  let seen = 0
  let index = 0
  for (const [i, cid] of order.entries()) {
    // A file's bytes end with a raw leaf followed by a dag-pb node or the end of the CAR.
    const next = order[i + 1]
    if (cid.code !== dagPb.code && (next === undefined || next.code === dagPb.code)) {
      seen++
      index = i + 1
      if (seen === count) break
    }
  }
  return index
}

const startGateway = async () => {
  const put = async (cid: CID, bytes: Uint8Array) => {
    blocks.set(cid.toString(), bytes)
    return cid
  }
  const source = files.map((file) => ({ path: file.path, content: file.content }))
  for await (const entry of importer(source, { put }, { cidVersion: 1, rawLeaves: true, wrapWithDirectory: true })) {
    if (entry.path === "") folder = entry.cid
  }
  const order = [...dagOrder(folder)]
  // And after the next file's node and first leaf: that file is half written when the process dies.
  const holdAfter = blocksThroughFiles(order, filesBeforeHold) + 2
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  server = createServer(async (request, response) => {
    const requested = new URL(request.url ?? "/", "http://gateway")
    if (requested.searchParams.get("format") === "raw") {
      const bytes = blocks.get(CID.parse(requested.pathname.split("/")[2] ?? "").toString())!
      response.writeHead(200, { "content-type": "application/vnd.ipld.raw" }).end(bytes)
      return
    }
    const write = (bytes: Uint8Array) => response.write(bytes)
    response.writeHead(200, { "content-type": "application/vnd.ipld.car; version=1; order=dfs; dups=y" })
    write(await carHeader([folder]))
    for (const [i, cid] of order.entries()) {
      if (holding && i === holdAfter) await held
      write(carSection({ cid, bytes: blocks.get(cid.toString())! }))
    }
    response.end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  executable = await buildExecutable()
  await startGateway()
}, 120_000)

afterAll(async () => {
  release?.()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => server?.close(() => resolve()))
  await executable?.remove()
})

/** Every entry under `dir`, `/`-separated, folders included. */
const entriesUnder = async (dir: string) =>
  (await readdir(dir, { recursive: true })).map((entry) => entry.split(nodePath.sep).join("/")).sort()

describe("a killed folder download", () => {
  it("resumes: the tree equals the folder, complete files are kept, nothing temporary is left", async () => {
    const home = await freshConfigHome()
    const env = { XDG_CONFIG_HOME: home, LIGHTHOUSE_GATEWAY_URL: url }
    const out = nodePath.join(home, "out")
    const args = ["download", folder.toString(), "-o", out, "--json"]
    const first = startExecutable(executable, args, env)
    const complete = files.slice(0, filesBeforeHold).map((file) => file.path)
    await waitFor(`${complete.join(", ")} and a file being written on disk`, async () => {
      const present = await entriesUnder(out).catch((): ReadonlyArray<string> => [])
      return complete.every((path) => present.includes(path)) && present.some((path) => path.endsWith(".partial"))
    })
    expect((await first.signal("SIGKILL")).signal).toBe("SIGKILL")
    holding = false
    release()
    const before = await Promise.all(complete.map((path) => stat(nodePath.join(out, path))))

    const second = await runExecutable(executable, args, env, { timeoutMs: 45_000 })
    expect(second.code, second.stderr).toBe(0)
    const report = JSON.parse(second.stdout) as { kept: Array<string>; written: Array<string>; files: number }
    expect(report.files).toBe(files.length)
    expect([...report.kept].sort()).toEqual(complete)
    expect([...report.written].sort()).toEqual(
      files
        .slice(filesBeforeHold)
        .map((file) => file.path)
        .sort()
    )

    // The tree is the folder, byte for byte, with nothing else in it (no `.partial` file) and no lock beside it.
    expect(await entriesUnder(out)).toEqual(["sub", ...files.map((file) => file.path)].sort())
    for (const file of files)
      expect(new Uint8Array(await readFile(nodePath.join(out, file.path)))).toEqual(file.content)
    expect(await readdir(home)).not.toContain("out.lock")
    const after = await Promise.all(complete.map((path) => stat(nodePath.join(out, path))))
    expect(after.map((s) => [s.ino, s.mtimeMs])).toEqual(before.map((s) => [s.ino, s.mtimeMs]))
  }, 90_000)
})
