/**
 * `lighthouse-effect dev` with the options `npm run serve` has (one command line for both): extra
 * gateways with faults of their own serving the same content, seeded accounts with their API key,
 * a `--gateway` it cannot serve (one line, exit 2), a value its flag's schema refuses (exit 2), and
 * a taken port (one line naming it and the flag that moves it, exit 1). The executable is spawned.
 */
import { writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:net"
import * as nodePath from "node:path"
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, lastLine } from "./support/commands.ts"
import { buildExecutable, type Dev, type Executable, runExecutable, startDev } from "./support/executable.ts"

let executable: Executable
let dev: Dev | undefined
const address = privateKeyToAddress(generatePrivateKey()).toLowerCase()
const apiKey = "a-seeded-api-key"

beforeAll(async () => {
  executable = await buildExecutable()
  dev = await startDev(executable, ["--gateway", "status=429", "--gateway", "honest", "--seed", `${address}:${apiKey}`])
}, 120_000)

afterAll(async () => {
  await dev?.stop()
  await executable?.remove()
})

interface Served {
  readonly gateways: ReadonlyArray<{ readonly url: string; readonly faults: ReadonlyArray<string> }>
  readonly accounts: ReadonlyArray<{ readonly address: string; readonly apiKey: string }>
}

describe("dev with serve's options", () => {
  it("serves the same content from each extra gateway under its faults, to the seeded account's key", async () => {
    const served = dev!.served as unknown as Served
    expect(served.gateways.map((gateway) => gateway.faults)).toEqual([["status=429"], []])
    expect(served.accounts).toEqual([{ address, apiKey }])
    const file = nodePath.join(await freshConfigHome(), "hello.txt")
    await writeFile(file, "hello from dev")
    const env = { ...dev!.hosts, XDG_CONFIG_HOME: nodePath.dirname(file), LIGHTHOUSE_API_KEY: apiKey }
    const uploaded = await runExecutable(executable, ["upload", file, "--json"], env)
    expect(uploaded.code, uploaded.stderr).toBe(0)
    const { cid } = JSON.parse(uploaded.stdout) as { cid: string }
    const [limited, honest] = served.gateways
    expect((await fetch(`${limited!.url}/ipfs/${cid}`)).status).toBe(429)
    expect(await (await fetch(`${honest!.url}/ipfs/${cid}`)).text()).toBe("hello from dev")
  })

  it("refuses a --gateway it cannot serve and a port out of range: one line, exit 2", async () => {
    const faults = await runExecutable(executable, ["dev", "--free-ports", "--gateway", "rate=10MB"], {})
    expect(faults).toEqual({
      code: 2,
      stdout: "",
      stderr: '--gateway rate=10MB: rate needs a size in bytes (e.g. 1048576, 512KiB, 10MiB), got "10MB"\n'
    })
    const port = await runExecutable(executable, ["dev", "--chain-port", "70000"], {})
    expect(port).toMatchObject({ code: 2, stdout: "" })
    expect(lastLine(port.stderr)).toBe(
      'Invalid value for flag --chain-port: "70000". Expected: Schema validation failed: Expected a value between 0 and 65535'
    )
  })

  it("names a taken port and the flag that moves it, and exits 1", async () => {
    const held = await new Promise<Server>((resolve) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => resolve(server))
    })
    const taken = (held.address() as { port: number }).port
    try {
      const ran = await runExecutable(executable, ["dev", "--free-ports", "--api-port", String(taken)], {})
      expect(ran).toEqual({
        code: 1,
        stdout: "",
        stderr: `port ${taken} on 127.0.0.1 (the api host) is already in use: stop what holds it, or move the api host with --api-port N (0 picks a free port)\n`
      })
    } finally {
      await new Promise((resolve) => held.close(resolve))
    }
  })
})
