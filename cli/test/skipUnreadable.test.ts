/**
 * `upload <folder>` with entries that cannot be read, through the real executable against `dev`
 * over loopback: by default the first one fails the upload, named on stderr (and in `--json`);
 * `--skip-unreadable` uploads the rest and names each entry it skipped, on stderr in text mode and
 * in the `--json` result, plain and `--encrypted` (whose list of results becomes `files`).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { devAccount } from "./support/account.ts"
import { buildExecutable, type Dev, type Executable, runExecutable, startDev } from "./support/executable.ts"

let executable: Executable
let dev: Dev | undefined
let env: Record<string, string>
let scratch: string
let site: string

/** Runs the executable with `args` over a clean environment. */
const cli = (args: ReadonlyArray<string>) => runExecutable(executable, args, env)

beforeAll(async () => {
  executable = await buildExecutable()
  dev = await startDev(executable)
  env = (await devAccount(executable, dev, { LIGHTHOUSE_NODE_POLICY: "concurrent" })).env
  // site/a.txt, site/loop/c.txt, site/loop/self → its own folder, site/broken → nothing.
  scratch = await mkdtemp(nodePath.join(tmpdir(), "skip-unreadable-"))
  site = nodePath.join(scratch, "site")
  await mkdir(nodePath.join(site, "loop"), { recursive: true })
  await writeFile(nodePath.join(site, "a.txt"), "alpha\n")
  await writeFile(nodePath.join(site, "loop", "c.txt"), "charlie\n")
  await symlink(".", nodePath.join(site, "loop", "self"))
  await symlink("missing.txt", nodePath.join(site, "broken"))
}, 120_000)

afterAll(async () => {
  await dev?.stop()
  await executable?.remove()
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
})

const skipped = [
  { path: "broken", reason: "broken link" },
  { path: "loop/self", reason: "symlink loop" }
]
const skippedLines = [
  "Skipped unreadable entry: broken (broken link)",
  "Skipped unreadable entry: loop/self (symlink loop)"
]

/** Each test spawns several processes, each starting in a few seconds on a loaded machine. */
const SLOW = 180_000

describe("upload of a folder with a symlink loop and a broken link", () => {
  it(
    "fails by default, naming the first bad entry; nothing is uploaded",
    async () => {
      const [text, json] = await Promise.all([cli(["upload", site]), cli(["upload", site, "--json"])])
      expect(text).toEqual({ code: 1, stdout: "", stderr: "Unreadable entry in folder: broken (broken link)\n" })
      expect(json.code).toBe(1)
      expect(JSON.parse(json.stdout)).toEqual({
        error: { _tag: "UnreadableEntry", message: "Unreadable entry in folder: broken (broken link)" }
      })
      const listed = await cli(["uploads", "--json"])
      expect(JSON.parse(listed.stdout)).toEqual([])
    },
    SLOW
  )

  it(
    "--skip-unreadable uploads the rest; text names each skipped entry on stderr, --json in the result",
    async () => {
      const text = await cli(["upload", site, "--skip-unreadable"])
      expect(text.code, text.stderr).toBe(0)
      expect(text.stderr.split("\n").filter((line) => line.startsWith("Skipped"))).toEqual(skippedLines)
      const [cid, name, stored] = text.stdout.trim().split(/ {2}/)
      expect(name).toBe("site")

      const json = await cli(["upload", site, "--skip-unreadable", "--json"])
      expect(json.code, json.stderr).toBe(0)
      expect(json.stderr).not.toContain("Skipped")
      expect(JSON.parse(json.stdout)).toEqual({
        uploads: [{ cid, name: "site", storedBytes: Number(stored?.replace(/ bytes stored$/, "")) }],
        skipped
      })
    },
    SLOW
  )

  it(
    "--encrypted --skip-unreadable: each file its own CID, the skipped entries named alike",
    async () => {
      const text = await cli(["upload", site, "--encrypted", "--skip-unreadable"])
      expect(text.code, text.stderr).toBe(0)
      expect(text.stderr.split("\n").filter((line) => line.startsWith("Skipped"))).toEqual(skippedLines)
      expect(
        text.stdout
          .trim()
          .split("\n")
          .map((line) => line.split(/ {2}/)[1])
      ).toEqual(["a.txt", "loop-c.txt"])

      const json = await cli(["upload", site, "--encrypted", "--skip-unreadable", "--json"])
      expect(json.code, json.stderr).toBe(0)
      const { uploads, skipped: listed } = JSON.parse(json.stdout) as {
        uploads: ReadonlyArray<{ name: string }>
        skipped: unknown
      }
      expect(uploads.map((file) => file.name)).toEqual(["a.txt", "loop-c.txt"])
      expect(listed).toEqual(skipped)
    },
    SLOW
  )
})
