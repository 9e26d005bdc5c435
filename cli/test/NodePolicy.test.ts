/**
 * `upload --encrypted` of a folder and the key nodes' pace, through the real executable against
 * `dev` over loopback: `--node-policy sequential|concurrent` sets the key-node mode over
 * `LIGHTHOUSE_NODE_POLICY`, and before the files are sent the upload states the key nodes'
 * estimated time (files × the sequential pacing), as an `estimate` event with `--progress ndjson`,
 * else as a note on stderr.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { devAccount } from "./support/account.ts"
import { buildExecutable, type Dev, type Executable, runExecutable, startDev } from "./support/executable.ts"
import { runOnTerminal, scriptCommand } from "./support/processes.ts"

let executable: Executable
let dev: Dev | undefined
let env: Record<string, string>
let scratch: string

const cli = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) =>
  runExecutable(executable, args, { ...env, ...extra }, { timeoutMs: 150_000 })

/** A folder of `count` small files. */
const folderOf = async (name: string, count: number) => {
  const folder = nodePath.join(scratch, name)
  await mkdir(folder, { recursive: true })
  for (let i = 0; i < count; i++) await writeFile(nodePath.join(folder, `f${i}.txt`), `file ${i}\n`)
  return folder
}

const firstLine = (text: string): unknown => JSON.parse(text.split("\n")[0] ?? "")

beforeAll(async () => {
  executable = await buildExecutable()
  dev = await startDev(executable)
  env = (await devAccount(executable, dev)).env
  scratch = await mkdtemp(nodePath.join(tmpdir(), "node-policy-"))
}, 120_000)

afterAll(async () => {
  await dev?.stop()
  await executable?.remove()
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
})

describe("upload --encrypted <folder> and the key nodes' pace", () => {
  it("--node-policy concurrent overrides LIGHTHOUSE_NODE_POLICY: the estimate event says so, first, with no pacing", async () => {
    const folder = await folderOf("six", 6)
    const ran = await cli(
      ["upload", folder, "--encrypted", "--node-policy", "concurrent", "--progress", "ndjson", "--json"],
      { LIGHTHOUSE_NODE_POLICY: "sequential" }
    )
    expect(ran.code, ran.stderr).toBe(0)
    expect(firstLine(ran.stderr)).toEqual({ event: "estimate", files: 6, nodePolicy: "concurrent", keyNodesSeconds: 0 })
    expect((JSON.parse(ran.stdout) as { uploads: ReadonlyArray<unknown> }).uploads).toHaveLength(6)
  }, 180_000)

  it("sequential (the default): estimates 4 pauses per 4 files, and takes at least that long", async () => {
    const folder = await folderOf("five", 5)
    const started = Date.now()
    const ran = await cli(["upload", folder, "--encrypted", "--progress", "ndjson", "--json"])
    const elapsed = Date.now() - started
    expect(ran.code, ran.stderr).toBe(0)
    // 5 files: two rounds of 4 saves at once, each walking the 5 nodes 1 s apart.
    expect(firstLine(ran.stderr)).toEqual({ event: "estimate", files: 5, nodePolicy: "sequential", keyNodesSeconds: 8 })
    expect(elapsed).toBeGreaterThanOrEqual(8_000)
  }, 180_000)

  it("--node-policy sequential overrides LIGHTHOUSE_NODE_POLICY=concurrent; without ndjson the estimate is a note", async () => {
    const folder = await folderOf("two", 2)
    const ran = await cli(["upload", folder, "--encrypted", "--node-policy", "sequential"], {
      LIGHTHOUSE_NODE_POLICY: "concurrent"
    })
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toBe(
      "Saving the key shards of 2 files on the 5 key nodes takes about 4 s " +
        "(sequential: 1s between nodes; --node-policy concurrent calls them at once)\n"
    )
  }, 180_000)

  // A pseudo-terminal from util-linux's `script`; without it there is no terminal to run on.
  it.skipIf(scriptCommand === undefined)(
    "on a terminal (a pty) the note is shown, and --progress ndjson's estimate event too",
    async () => {
      const folder = await folderOf("terminal", 3)
      const concurrent = ["upload", folder, "--encrypted", "--node-policy", "concurrent"]
      const note = await runOnTerminal(executable, concurrent, env)
      expect(note.code, note.stdout).toBe(0)
      expect(note.stdout).toContain(
        "Saving the key shards of 3 files on the 5 key nodes at once (--node-policy concurrent)\r\n"
      )
      const event = await runOnTerminal(executable, [...concurrent, "--progress", "ndjson"], env)
      expect(event.code, event.stdout).toBe(0)
      expect(event.stdout).toContain(
        `${JSON.stringify({ event: "estimate", files: 3, nodePolicy: "concurrent", keyNodesSeconds: 0 })}\r\n`
      )
      expect(event.stdout).not.toContain("Saving the key shards")
    },
    180_000
  )

  it("--quiet states no estimate", async () => {
    const folder = await folderOf("quiet", 2)
    const quiet = await cli(["upload", folder, "--encrypted", "--node-policy", "concurrent", "--quiet"])
    expect(quiet).toMatchObject({ code: 0, stderr: "" })
  }, 180_000)

  it("a plain folder and an encrypted file state no estimate", async () => {
    const folder = await folderOf("plain", 2)
    const plain = await cli(["upload", folder, "--progress", "ndjson", "--json"])
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stderr).not.toContain('"estimate"')
    const file = await cli(["upload", nodePath.join(folder, "f0.txt"), "--encrypted", "--node-policy", "concurrent"])
    expect(file.code, file.stderr).toBe(0)
    expect(file.stderr).toBe("")
  }, 180_000)

  it("an unknown policy is a usage error (exit 2) naming the flag; --help documents it", async () => {
    const ran = await cli(["upload", scratch, "--encrypted", "--node-policy", "fast"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toContain("node-policy")
    const help = await cli(["upload", "--help"])
    expect(help.stdout).toContain("--node-policy")
    expect(help.stdout).toContain("LIGHTHOUSE_NODE_POLICY")
  }, 180_000)
})
