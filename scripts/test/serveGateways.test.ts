/**
 * `npm run serve -- --gateway FAULTS`, as child processes: two serve processes share one
 * `--state-dir`; a file uploaded to the first is read from the second's extra gateways, each
 * under its own faults: a bandwidth cap paces the body, a liar serves other bytes, `status=429`
 * answers 429, `stall-after` stops the body after that many bytes, `down` cuts the connection,
 * an honest one serves the file whole. The banner and the `--json` line name each gateway with
 * its faults; a `--gateway` that cannot be served is one line and exit 2.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const serveArgs = ["--conditions=@lighthouse-effect/source", "--import", "tsx", "scripts/serve.ts"]
const apiKey = "gateways-test-key"
const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

interface ServedJson {
  readonly urls: Record<"api" | "node" | "gateway" | "encryption", string>
  readonly gateways: ReadonlyArray<{ readonly url: string; readonly faults: ReadonlyArray<string> }>
}

const children: Array<ChildProcess> = []

/** Starts serve with `args`; resolves with its whole stdout up to the line `until` matches. */
const start = (args: ReadonlyArray<string>, until: (line: string) => boolean): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...serveArgs, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    createInterface({ input: child.stdout! }).on("line", (line) => {
      stdout += `${line}\n`
      if (until(line)) resolve(stdout)
    })
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before it was ready: ${stderr}`)))
  })

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...serveArgs, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

const gatewayFlags = ["rate=256KiB", "lie", "status=429", "stall-after=1000", "down", "honest"]

let stateDir: string
let first: ServedJson
let second: ServedJson
let banner: string
const content = new Uint8Array(randomBytes(512 * 1024))
let cid: string

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "serve-gateways-"))
  const common = ["--no-chain", "--free-ports", "--state-dir", stateDir]
  const json = (line: string) => line.startsWith("{")
  first = JSON.parse(await start([...common, "--json", "--seed", `${address}:${apiKey}`], json)) as ServedJson
  const form = new FormData()
  form.append("file", new Blob([content]), "shared.bin")
  const added = await fetch(`${first.urls.node}/api/v0/add?wrap-with-directory=false&cid-version=1`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}` },
    body: form
  })
  expect(added.status).toBe(200)
  cid = ((await added.json()) as { Hash: string }).Hash
  const gateways = gatewayFlags.flatMap((flag) => ["--gateway", flag])
  second = JSON.parse(await start([...common, "--json", ...gateways], json)) as ServedJson
  banner = await start([...common, "--gateway", "rate=10MiB,lie=truncate", "--gateway", "honest"], (line) =>
    line.startsWith("Ctrl-C")
  )
}, 180_000)

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
  await rm(stateDir, { recursive: true, force: true })
})

/** The file from the second process's `i`th extra gateway. */
const fromGateway = (i: number) => fetch(`${second.gateways[i]!.url}/ipfs/${cid}`)

describe("serve --gateway", () => {
  it("lists each extra gateway with its faults in the --json line, on ports of its own", () => {
    expect(second.gateways.map((gateway) => gateway.faults)).toEqual([
      ["rate=256KiB"],
      ["lie=flip-byte"],
      ["status=429"],
      ["stall-after=1000"],
      ["down"],
      []
    ])
    const ports = new Set(
      [...Object.values(second.urls), ...second.gateways.map((g) => g.url)].map((u) => new URL(u).port)
    )
    expect(ports.size).toBe(4 + gatewayFlags.length)
    expect(first.gateways).toEqual([])
  })

  it("serves what another process sharing the state dir stored, honestly where asked to", async () => {
    const honest = await fromGateway(5)
    expect(honest.status).toBe(200)
    expect(new Uint8Array(await honest.arrayBuffer())).toEqual(content)
    const own = await fetch(`${second.urls.gateway}/ipfs/${cid}`)
    expect(new Uint8Array(await own.arrayBuffer())).toEqual(content)
  })

  it("caps the rate: 512 KiB at 256 KiB a second take 2 s (less the 50 ms a link may save up)", async () => {
    const started = performance.now()
    const capped = new Uint8Array(await (await fromGateway(0)).arrayBuffer())
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900)
    expect(capped).toEqual(content)
  })

  it("lies, answers 429 and cuts connections where asked to", async () => {
    const lied = new Uint8Array(await (await fromGateway(1)).arrayBuffer())
    expect(lied.length).toBe(content.length)
    expect(lied).not.toEqual(content)
    const limited = await fromGateway(2)
    expect(limited.status).toBe(429)
    expect(await limited.json()).toEqual({ error: "Too Many Requests" })
    await expect(fromGateway(4)).rejects.toThrow("fetch failed")
  })

  it("stalls after 1000 bytes: the body gives those, then nothing until the client gives up", async () => {
    const abort = new AbortController()
    const stalled = await fetch(`${second.gateways[3]!.url}/ipfs/${cid}`, { signal: abort.signal })
    const reader = stalled.body!.getReader()
    let received = 0
    while (received < 1000) received += (await reader.read()).value!.length
    expect(received).toBe(1000)
    const next = reader.read().then(() => "more")
    const waited = new Promise((resolve) => setTimeout(() => resolve("nothing"), 500))
    expect(await Promise.race([next, waited])).toBe("nothing")
    abort.abort()
    await next.catch(() => undefined)
  })

  it("names each gateway and its faults in the banner, with the sources to download from all", () => {
    const lines = banner.split("\n")
    const gatewayLines = lines.filter((line) => /^ {2}(gateways {4}| {12})http:\/\/127\.0\.0\.1:\d+ {2}/.test(line))
    expect(gatewayLines.map((line) => line.replace(/127\.0\.0\.1:\d+/, "PORT"))).toEqual([
      "  gateways    http://PORT  rate=10MiB,lie=truncate, same content",
      "              http://PORT  honest, same content"
    ])
    expect(banner).toContain("Download from every gateway at once (Download options):")
    expect(banner).toMatch(
      /\{ sources: \["http:\/\/127\.0\.0\.1:\d+","http:\/\/127\.0\.0\.1:\d+","http:\/\/127\.0\.0\.1:\d+"\], strategy: "split" \}/
    )
  })

  it("answers a --gateway it cannot serve with one line and exit 2", async () => {
    // Every refusal's text is in mocks/test/server/GatewayFaults.test.ts; here how serve says one.
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["rate=10MB", 'rate needs a size in bytes (e.g. 1048576, 512KiB, 10MiB), got "10MB"'],
      ["lie,down", 'at most one of stall-after, lie, status and down, got "lie,down"']
    ]
    const runs = await Promise.all(cases.map(([flag]) => run(["--no-chain", "--free-ports", "--gateway", flag])))
    for (const [i, [flag, message]] of cases.entries()) {
      expect(runs[i]).toEqual({
        code: 2,
        stdout: "",
        stderr: `--gateway ${flag}: ${message} (npm run serve -- --help lists the options)\n`
      })
    }
  }, 120_000)
})
