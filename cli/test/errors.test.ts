/**
 * The executable names where and why a command failed, on one line: a request to a closed local
 * port, a host variable that is no URL (a `ConfigError` before any request, exit 1), and with
 * `--json` the failure's method, URL and cause. No network is served: the port is bound, then closed.
 */
import { execFile } from "node:child_process"
import { createServer } from "node:net"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome } from "./support/commands.ts"
import { buildExecutable, type Executable } from "./support/executable.ts"

const root = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")
let executable: Executable
let home: string
let port: number

interface Exited {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the executable with `args` and `env` over a clean environment. */
const cli = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
  new Promise<Exited>((resolve) => {
    const child = execFile(
      process.execPath,
      [executable.bin, ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: home, ...env } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (child.exitCode ?? null), stdout, stderr })
    )
    child.stdin?.end("")
  })

const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error("no port"))
      server.close(() => resolve(address.port))
    })
  })

beforeAll(async () => {
  executable = await buildExecutable()
  home = await freshConfigHome()
  port = await closedPort()
}, 120_000)

afterAll(async () => {
  await executable?.remove()
})

describe("a failure names where and why", () => {
  it("no answer: one line with the method, the URL and connect ECONNREFUSED; --json adds them as fields", async () => {
    const env = { LIGHTHOUSE_API_URL: `http://127.0.0.1:${port}`, LIGHTHOUSE_API_KEY: "a-key" }
    const url = `http://127.0.0.1:${port}/api/user/user_data_usage`
    const [text, json] = await Promise.all([cli(["usage"], env), cli(["usage", "--json"], env)])
    expect(text).toEqual({
      code: 1,
      stdout: "",
      stderr: `Network error (GET ${url}: connect ECONNREFUSED)\n`
    })
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({
      error: { _tag: "NetworkError", message: "Network error", method: "GET", url, cause: "connect ECONNREFUSED" }
    })
    expect(json.stderr).toBe(`Network error (GET ${url}: connect ECONNREFUSED)\n`)
  })

  it("an upload: POST and the upload node's address", async () => {
    const ran = await cli(["upload", "-", "--progress", "none"], {
      LIGHTHOUSE_NODE_URL: `http://127.0.0.1:${port}`,
      LIGHTHOUSE_API_KEY: "a-key"
    })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toMatch(
      new RegExp(
        `^Network error \\(POST http://127\\.0\\.0\\.1:${port}/api/v0/add\\?[^ ]*: connect ECONNREFUSED\\)\\n$`
      )
    )
  })

  it("LIGHTHOUSE_API_URL=not-a-url: a ConfigError on one line before any request, exit 1", async () => {
    const env = { LIGHTHOUSE_API_URL: "not-a-url", LIGHTHOUSE_API_KEY: "a-key" }
    const [text, json] = await Promise.all([cli(["usage"], env), cli(["usage", "--json"], env)])
    const line = `Invalid configuration: LIGHTHOUSE_API_URL: Expected an http:// or https:// URL, got "not-a-url"`
    expect(text).toEqual({ code: 1, stdout: "", stderr: `${line}\n` })
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({ error: { _tag: "ConfigError", message: line } })
  })

  it("any variable that does not parse is one line too", async () => {
    const ran = await cli(["usage"], { LIGHTHOUSE_REQUEST_TIMEOUT_MS: "eight seconds", LIGHTHOUSE_API_KEY: "a-key" })
    expect(ran).toEqual({
      code: 1,
      stdout: "",
      stderr: "Invalid configuration: LIGHTHOUSE_REQUEST_TIMEOUT_MS: Expected a string representing a finite number\n"
    })
  })

  it("a secret in a host's address is never printed, on stderr or in --json", async () => {
    const secrets = fc.sample(fc.stringMatching(/^[A-Za-z0-9._~-]{12,24}$/), { numRuns: 3, seed: 35 })
    const runs = await Promise.all(
      secrets.map((secret) =>
        cli(["usage", "--json"], {
          LIGHTHOUSE_API_URL: `http://me:${secret}@127.0.0.1:${port}`,
          LIGHTHOUSE_API_KEY: "a-key"
        }).then((ran) => ({ secret, ran }))
      )
    )
    for (const { secret, ran } of runs) {
      expect(ran.code).toBe(1)
      expect(`${ran.stdout}${ran.stderr}`).not.toContain(secret)
      expect(JSON.parse(ran.stdout).error.url).toBe(`http://<redacted>@127.0.0.1:${port}/api/user/user_data_usage`)
    }
  })
})
