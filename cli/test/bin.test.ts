/**
 * The real executable, spawned as a script would run it: `dev` serves the local network on free
 * loopback ports, and each command runs as its own process pointed at it by the `LIGHTHOUSE_*`
 * variables it printed. Only exit codes, stdout JSON and stderr are read.
 */
import { readFile, stat, writeFile } from "node:fs/promises"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome } from "./support/commands.ts"
import { buildExecutable, type Dev, type Executable, runExecutable, startDev } from "./support/executable.ts"
import { startExecutable } from "./support/processes.ts"

let executable: Executable

/** Runs the executable with `args` and `env` (over a clean environment), stdin from `input`. */
const cli = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, input?: string) =>
  runExecutable(executable, args, env, input === undefined ? {} : { input })

let dev: Dev | undefined
let hosts: Record<string, string>
let home: string
let env: Record<string, string>

beforeAll(async () => {
  executable = await buildExecutable()
  dev = await startDev(executable)
  hosts = dev.hosts
  home = await freshConfigHome()
  env = {
    ...hosts,
    XDG_CONFIG_HOME: home,
    LIGHTHOUSE_NODE_POLICY: "concurrent",
    LIGHTHOUSE_WALLET_PASSWORD: "a password for the test"
  }
}, 120_000)

afterAll(async () => {
  await dev?.stop()
  await executable?.remove()
})

describe("the executable against `dev` over loopback", () => {
  it("creates a wallet, gets an API key, uploads, downloads verified, lists, names it", async () => {
    const wallet = await cli(["wallet", "create", "--json"], env)
    expect(wallet.code, wallet.stderr).toBe(0)
    const { address, keystore } = JSON.parse(wallet.stdout) as { address: string; keystore: string }
    expect((await stat(keystore)).mode & 0o777).toBe(0o600)
    expect((await stat(nodePath.dirname(keystore))).mode & 0o777).toBe(0o700)

    const apiKey = await cli(["api-key", "--json"], env)
    expect(apiKey.code, apiKey.stderr).toBe(0)
    expect(JSON.parse(apiKey.stdout)).toEqual({
      address,
      saved: nodePath.join(home, "lighthouse-effect", "config.json")
    })

    const source = nodePath.join(home, "data.bin")
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251))
    await writeFile(source, bytes)
    const uploaded = await cli(["upload", source, "--json"], env)
    expect(uploaded.code, uploaded.stderr).toBe(0)
    const { cid } = JSON.parse(uploaded.stdout) as { cid: string }

    const target = nodePath.join(home, "copy.bin")
    const [downloaded, listed, key] = await Promise.all([
      cli(["download", cid, "-o", target, "--json"], env),
      cli(["uploads", "--json"], env),
      cli(["keys", "generate", "--json"], env)
    ])
    expect(downloaded.code, downloaded.stderr).toBe(0)
    expect(JSON.parse(downloaded.stdout)).toMatchObject({ cid, bytes: bytes.length, verification: { verified: true } })
    expect(Buffer.compare(await readFile(target), bytes)).toBe(0)
    expect(JSON.parse(listed.stdout)).toMatchObject([{ cid, fileName: "data.bin", publicKey: address }])

    const { ipnsName, ipnsId } = JSON.parse(key.stdout) as { ipnsName: string; ipnsId: string }
    const published = await cli(["keys", "publish", ipnsName, cid, "--json"], env)
    expect(JSON.parse(published.stdout)).toEqual({ Name: ipnsId, Value: `/ipfs/${cid}` })
  })

  it("exits 1 on a failure and 2 on bad usage, with the message on stderr and JSON on stdout", async () => {
    const [failure, usage] = await Promise.all([
      cli(["deals", "nonsense", "--json"], env),
      cli(["upload", "--json"], env)
    ])
    expect(failure).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ error: { _tag: "InvalidCid", message: "Invalid CID" } })}\n`,
      stderr: "Invalid CID\n"
    })
    expect(usage.code).toBe(2)
    expect(JSON.parse(usage.stdout)).toMatchObject({ error: { _tag: "MissingArgument" } })
  })

  it("exits 130 on SIGINT during an upload, and records nothing", async () => {
    const before = JSON.parse((await cli(["uploads", "--json"], env)).stdout) as ReadonlyArray<unknown>
    const child = startExecutable(executable, ["upload", "-", "--name", "endless.bin", "--json"], env, {
      stdin: "pipe"
    })
    const stdin = child.stdin!
    // A 4 MiB write cannot fit the pipe: once it drains, the upload is reading stdin, mid-transfer.
    const chunk = Buffer.alloc(4 * 1024 * 1024, 7)
    await new Promise<void>((resolve) => {
      if (stdin.write(chunk)) resolve()
      else stdin.once("drain", resolve)
    })
    stdin.on("error", () => {})
    const ended = await child.signal("SIGINT")
    expect([ended.code, ended.signal]).toEqual([130, null])
    expect(ended.stdout).toBe("")
    const after = JSON.parse((await cli(["uploads", "--json"], env)).stdout) as ReadonlyArray<unknown>
    expect(after).toEqual(before)
  })
})
