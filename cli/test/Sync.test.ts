/**
 * `sync DIR` through the command line: the first run prints the snapshot's CID and bytes sent,
 * `--dry-run` says what a change would send and sends nothing, the second run sends the changed
 * file only, `sync --history DIR` lists both snapshots, and `download CID -o OUT` of each gives
 * the folder back as it was (`diff -r`). The index lives under `XDG_STATE_HOME`.
 */
import { execFileSync } from "node:child_process"
import { cp, mkdir, readdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

let mock: RunningMockNetwork
beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error" })
})
afterAll(() => mock.close())

interface SyncJson {
  readonly cid: string
  readonly mode: string
  readonly bytesSent: number
  readonly sent: ReadonlyArray<string>
  readonly unchanged: boolean
}

describe("sync", () => {
  it("sync DIR sends what changed, --dry-run sends nothing, --history lists snapshots that restore", async () => {
    const home = await freshConfigHome()
    const state = join(home, "state")
    const env = {
      LIGHTHOUSE_NODE_POLICY: "concurrent",
      XDG_CONFIG_HOME: home,
      XDG_STATE_HOME: state,
      LIGHTHOUSE_WALLET_PASSWORD: "correct horse battery staple"
    }
    for (const args of [
      ["wallet", "create", "--json"],
      ["api-key", "--json"]
    ]) {
      const ran = await run(args, env)
      expect(ran.code, ran.stderr).toBe(0)
    }
    const dir = join(home, "photos")
    await mkdir(join(dir, "sub"), { recursive: true })
    await writeFile(
      join(dir, "big.bin"),
      new Uint8Array(400_000).map((_, i) => (i * 13) & 0xff)
    )
    await writeFile(join(dir, "sub", "c.txt"), "charlie\n")

    const first = await run(["sync", dir, "--json"], env)
    expect(first.code, first.stderr).toBe(0)
    const one = json(first) as SyncJson
    expect([one.mode, one.sent]).toEqual(["partial", ["big.bin", "sub/c.txt"]])
    expect(one.bytesSent).toBeGreaterThan(400_000)
    const kept = join(home, "kept-1")
    await cp(dir, kept, { recursive: true })
    expect(await readdir(join(state, "lighthouse-effect", "sync"))).toHaveLength(1)

    await writeFile(join(dir, "sub", "c.txt"), "charlie, changed\n")
    const dry = await run(["sync", dir, "--dry-run"], env)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/^\S+ {2}would send \d+ bytes$/m)
    expect(dry.stdout).toContain("+ sub/c.txt\n")

    const second = await run(["sync", dir], env)
    expect(second.code, second.stderr).toBe(0)
    const [cid, how] = second.stdout.split("\n")[0]!.split("  ")
    expect(how).toMatch(/^sent \d+ bytes$/)
    expect(Number(how!.split(" ")[1])).toBeLessThan(2_000)

    const history = await run(["sync", "--history", dir, "--json"], env)
    expect(history.code, history.stderr).toBe(0)
    const snapshots = json(history) as ReadonlyArray<{ cid: string; mode: string }>
    expect(snapshots.map((s) => [s.cid, s.mode])).toEqual([
      [one.cid, "partial"],
      [cid, "partial"]
    ])
    for (const [index, source] of [kept, dir].entries()) {
      const out = join(home, `restored-${index}`)
      const downloaded = await run(["download", snapshots[index]!.cid, "-o", out], env)
      expect(downloaded.code, downloaded.stderr).toBe(0)
      expect(execFileSync("diff", ["-r", source, out], { encoding: "utf8" })).toBe("")
    }
  })
})
