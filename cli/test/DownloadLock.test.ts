/**
 * Two `download --resume` processes for one file: the first holds `<file>.lock` while it runs, the
 * second exits 1 with `DownloadInProgress` naming the first's process id, and the file the first
 * publishes is the content. The gateway is a small trustless one on loopback (CARs and raw blocks
 * of one file) that holds its first answer after one block until the test lets it go on, so the
 * first process is mid-download, deterministically, when the second starts.
 */
import { readdir, readFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as nodePath from "node:path"
import { importer } from "ipfs-unixfs-importer"
import { carHeader, carSection, trustlessBlocks } from "lighthouse-effect/mocks/testing"
import { CID } from "multiformats/cid"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome } from "./support/commands.ts"
import { buildExecutable, type Executable } from "./support/executable.ts"
import { startExecutable } from "./support/processes.ts"

const content = new Uint8Array(700 * 1024).map((_, i) => (i * 37 + (i >> 12)) & 0xff)

let executable: Executable
let server: Server
let url: string
let cid: CID
const blocks = new Map<string, Uint8Array>()
/** Resolves when the first CAR request arrives; the answer then waits for `release`. */
let firstAsked!: Promise<void>
let release!: () => void

const startGateway = async () => {
  for await (const entry of importer(
    [{ content }],
    {
      put: async (block: CID, bytes: Uint8Array) => {
        blocks.set(block.toString(), bytes)
        return block
      }
    },
    { cidVersion: 1, rawLeaves: true }
  )) {
    cid = entry.cid
  }
  const get = (block: CID) => blocks.get(block.toString())!
  let asked: () => void
  firstAsked = new Promise((resolve) => {
    asked = resolve
  })
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  let first = true
  server = createServer(async (request, response) => {
    const requested = new URL(request.url ?? "/", "http://gateway")
    const block = CID.parse(requested.pathname.split("/")[2] ?? "")
    if (requested.searchParams.get("format") === "raw") {
      response.writeHead(200, { "content-type": "application/vnd.ipld.raw" }).end(get(block))
      return
    }
    const [from, to] = (requested.searchParams.get("entity-bytes") ?? "0:*").split(":")
    const range = { from: Number(from), ...(to === "*" ? {} : { to: Number(to) + 1 }) }
    response.writeHead(200, { "content-type": "application/vnd.ipld.car; version=1; order=dfs; dups=y" })
    response.write(await carHeader([block]))
    const sections = [...trustlessBlocks(get, block, range)].map(carSection)
    response.write(sections[0])
    if (first) {
      first = false
      asked()
      await held
    }
    for (const section of sections.slice(1)) response.write(section)
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
  await new Promise<void>((resolve) => server?.close(() => resolve()))
  await executable?.remove()
})

describe("two download --resume processes for one file", () => {
  it("the second exits 1 with DownloadInProgress; the first publishes the content", async () => {
    const home = await freshConfigHome()
    const env = { XDG_CONFIG_HOME: home, LIGHTHOUSE_GATEWAY_URL: url }
    const target = nodePath.join(home, "copy.bin")
    const args = ["download", cid.toString(), "-o", target, "--resume", "--json"]
    const first = startExecutable(executable, args, env)
    await firstAsked
    const second = await startExecutable(executable, args, env).ended
    expect(second.code).toBe(1)
    expect(JSON.parse(second.stdout)).toEqual({
      error: {
        _tag: "DownloadInProgress",
        message: `Another download into ${target} is in progress (process ${first.pid} holds ${target}.lock)`
      }
    })
    release()
    const done = await first.ended
    expect(done.code, done.stderr).toBe(0)
    expect(JSON.parse(done.stdout)).toEqual({
      cid: cid.toString(),
      output: target,
      bytes: content.length,
      verification: { verified: true }
    })
    expect(new Uint8Array(await readFile(target))).toEqual(content)
    expect(await readdir(home)).not.toContain("copy.bin.lock")
  }, 60_000)
})
