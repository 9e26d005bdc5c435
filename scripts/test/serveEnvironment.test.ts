/**
 * Configuration without traps (docs/configuration.md): a program run beside `npm run serve` with
 * the variables its banner prints reaches what is served. `serve` runs as a child process; the
 * `LIGHTHOUSE_*=URL` pairs are read from its banner's text, as a person copies them; the program
 * (`beside/program.ts`, `layerConfig()` for the Effect layer and under the Promise facade) runs in
 * another child with only those variables added, and what it stored is then read back from the
 * served gateway.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const tsx = ["--conditions=@lighthouse-effect/source", "--import", "tsx"]

/** The environment without any `LIGHTHOUSE_*` variable of the test's own. */
const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LIGHTHOUSE_")))

let serve: ChildProcess
let banner = ""

beforeAll(
  () =>
    new Promise<void>((resolve, reject) => {
      serve = spawn(process.execPath, [...tsx, "scripts/serve.ts", "--free-ports", "--no-chain"], {
        cwd: root,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      serve.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      serve.stdout!.on("data", (chunk: Buffer) => {
        banner += chunk.toString()
        if (banner.includes("Ctrl-C to stop.")) resolve()
      })
      serve.once("close", (code) => reject(new Error(`serve exited (${code}) before its banner: ${stderr}`)))
    })
)
afterAll(() => {
  serve?.kill("SIGTERM")
})

/** The `NAME=VALUE` pairs of `LIGHTHOUSE_*` variables the banner prints. */
const printedVariables = (text: string) =>
  Object.fromEntries([...text.matchAll(/\b(LIGHTHOUSE_[A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name!, value!]))

/** Runs the program with `env`; resolves with its exit code and output. */
const runProgram = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...tsx, "scripts/test/beside/program.ts"], {
      cwd: root,
      env: { ...cleanEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("a program beside serve", () => {
  it("prints the four host variables, each the URL of a host it serves", () => {
    const variables = printedVariables(banner)
    expect(Object.keys(variables).sort()).toEqual([
      "LIGHTHOUSE_API_URL",
      "LIGHTHOUSE_ENCRYPTION_URL",
      "LIGHTHOUSE_GATEWAY_URL",
      "LIGHTHOUSE_NODE_URL"
    ])
    for (const url of Object.values(variables))
      expect(banner).toMatch(new RegExp(`^  \\w+ +${url}  \\(answers as`, "m"))
  })

  it("reaches it with those variables, through the Effect layer and the Promise facade", async () => {
    const variables = printedVariables(banner)
    const { code, stdout, stderr } = await runProgram(variables)
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const { api, effect, promise } = JSON.parse(stdout) as { api: string; effect: string; promise: string }
    expect(api).toBe(variables.LIGHTHOUSE_API_URL)
    // What the program stored is on the served gateway: it went nowhere else.
    for (const [cid, text] of [
      [effect, "beside serve, through Effect\n"],
      [promise, "beside serve, through Promises\n"]
    ] as const) {
      const answer = await fetch(`${variables.LIGHTHOUSE_GATEWAY_URL}/ipfs/${cid}`)
      expect(answer.status).toBe(200)
      expect(await answer.text()).toBe(text)
    }
  })
})
