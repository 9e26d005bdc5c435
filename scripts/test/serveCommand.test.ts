/**
 * `npm run serve`'s command line, as a child process: `--help` prints every option and exits 0
 * (the serve section of docs/local-network.md names each one too); a wrong option or value is one line and exit 2
 * (the flags' own schemas refuse a value); each
 * taken port, the chain's included, is one line naming it and its flag, and exit 1, with no stack
 * trace; and the banner's "point a client at it" lines compile under strict TypeScript, with the
 * chain's deployment and without the chain.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const serveArgs = ["--conditions=@lighthouse-effect/source", "--import", "tsx", "scripts/serve.ts"]

/** Every option `--help` must list. */
const options = [
  "--bind",
  "--api-port",
  "--node-port",
  "--gateway-port",
  "--encryption-port",
  "--free-ports",
  "--gateway",
  "--chain-port",
  "--chain",
  "--state-dir",
  "--gc",
  "--seed",
  "--data-limit",
  "--page-size",
  "--json",
  "--drift",
  "--help"
]

/** Named in the serve section of docs/local-network.md besides: the negation of `--chain` (the help shows `--chain`). */
const readmeOnly = ["--no-chain"]

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `serve` with `args` to its end. */
const run = (args: ReadonlyArray<string>): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...serveArgs, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
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

/** Runs `serve` with `args` until it prints its banner; stops it and resolves with the banner. */
const bannerOf = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [...serveArgs, ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      if (stdout.includes("Ctrl-C to stop.")) child.kill("SIGTERM")
    })
    child.once("close", (code, signal) =>
      stdout.includes("Ctrl-C to stop.") && code === 0
        ? resolve(stdout)
        : reject(new Error(`serve exited with code ${code}, signal ${signal}, before its banner: ${stderr}`))
    )
  })

/** Listens on a free port of 127.0.0.1, to hold it. */
const holdPort = () =>
  new Promise<Server>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => resolve(server))
  })
const portOf = (server: Server) => (server.address() as { port: number }).port

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m)

describe("serve --help", () => {
  it("prints every option and exits 0; the serve section of docs/local-network.md names each one", async () => {
    const { code, stdout, stderr } = await run(["--help"])
    expect(code).toBe(0)
    expect(stderr).toBe("")
    expect(stdout).toContain("USAGE\n  npm run serve -- [flags]\n")
    for (const option of options) expect(stdout).toMatch(new RegExp(`^\\s+${option}\\b`, "m"))
    expect(stdout).toContain("--no-chain: none")
    const guide = await readFile(join(root, "docs/local-network.md"), "utf8")
    const section = guide.slice(guide.indexOf("## The local network as a development node"))
    const serveSection = section.slice(0, section.indexOf("\n## ", 1))
    for (const option of [...options, ...readmeOnly]) expect(serveSection).toContain(`\`${option}`)
    expect((await run(["-h"])).stdout).toBe(stdout)
  })

  it("answers a wrong option with one line and exit 2", async () => {
    const unknown = await run(["--bogus"])
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe("")
    expect(unknown.stderr).toBe(
      "Unrecognized flag: --bogus in command npm run serve -- (npm run serve -- --help lists the options)\n"
    )
    const badPort = await run(["--chain-port", "70000"])
    expect(badPort).toMatchObject({ code: 2, stdout: "" })
    expect(badPort.stderr).toBe(
      'Invalid value for flag --chain-port: "70000". Expected: Schema validation failed: Expected a value between 0 and 65535 (npm run serve -- --help lists the options)\n'
    )
    const badLimit = await run(["--data-limit", "-1"])
    expect(badLimit).toMatchObject({ code: 2, stdout: "" })
    expect(badLimit.stderr).toMatch(/^Invalid value for flag --data-limit: "-1"\. /)
  })

  it("--drift: listed with its kinds; an unknown kind refused in one line, exit 2", async () => {
    const help = await run(["--help"])
    expect(help.stdout).toMatch(/^\s+--drift\b/m)
    for (const kind of ["rename-field", "status", "x402-v2"]) expect(help.stdout).toContain(kind)
    const bogus = await run(["--drift", "bogus"])
    expect(bogus).toMatchObject({ code: 2, stdout: "" })
    expect(bogus.stderr).toMatch(/^Invalid value for flag --drift: "bogus"\. /)
  })
})

describe("serve on taken ports", () => {
  const held: Array<Server> = []
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) held.push(await holdPort())
  })
  afterAll(() => Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve)))))

  it("says so in one line for the chain's port alone, and exits 1", async () => {
    const chain = portOf(held[4]!)
    const { code, stdout, stderr } = await run(["--free-ports", "--chain-port", String(chain)])
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(stderr).toBe(
      `port ${chain} on 127.0.0.1 (the chain) is already in use: stop what holds it, move the chain with --chain-port N (0 picks a free port), or leave it out with --no-chain\n`
    )
  })

  it("says so in one line for each taken port, every host's and the chain's, and exits 1", async () => {
    const [api, node, gateway, encryption, chain] = held.map(portOf) as [number, number, number, number, number]
    const ports = { api, node, gateway, encryption }
    const args = Object.entries(ports).flatMap(([host, port]) => [`--${host}-port`, String(port)])
    const { code, stderr } = await run([...args, "--chain-port", String(chain)])
    expect(code).toBe(1)
    noStackTrace(stderr)
    expect(stderr.split("\n")).toEqual([
      ...Object.entries(ports).map(
        ([host, port]) =>
          `port ${port} on 127.0.0.1 (the ${host} host) is already in use: stop what holds it, or move the ${host} host with --${host}-port N (0 picks a free port)`
      ),
      `port ${chain} on 127.0.0.1 (the chain) is already in use: stop what holds it, move the chain with --chain-port N (0 picks a free port), or leave it out with --no-chain`,
      ""
    ])
  })
})

describe("the banner's client lines", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "serve-banner-"))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  /** The banner's lines from `import` to the end of `LighthouseNode.layer({ … })`, as a module. */
  const clientLines = (banner: string) => {
    const lines = banner.split("\n")
    const start = lines.findIndex((line) => line.startsWith("  import "))
    const end = lines.findIndex((line, i) => i > start && line === "  })")
    expect(start).toBeGreaterThan(0)
    expect(end).toBeGreaterThan(start)
    return `${lines
      .slice(start, end + 1)
      .map((line) => line.slice(2))
      .join("\n")}\nexport { layer }\n`
  }

  it("compile under strict TypeScript, with the chain's deployment and without a chain", async () => {
    await writeFile(join(dir, "withChain.ts"), clientLines(await bannerOf(["--free-ports", "--chain-port", "0"])))
    await writeFile(join(dir, "noChain.ts"), clientLines(await bannerOf(["--free-ports", "--no-chain"])))
    expect(await readFile(join(dir, "withChain.ts"), "utf8")).toContain("Networks.withLocalDeployment(")
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023", "DOM", "DOM.Iterable"],
          module: "ESNext",
          moduleResolution: "Bundler",
          customConditions: ["@lighthouse-effect/source"],
          paths: {
            "lighthouse-effect": [join(root, "core/src/index.ts")],
            "lighthouse-effect/node": [join(root, "core/src/node.ts")]
          },
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          allowImportingTsExtensions: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [join(root, "node_modules/@types")]
        },
        files: ["withChain.ts", "noChain.ts"]
      })
    )
    const tsc = await new Promise<Finished>((resolve, reject) => {
      const child = spawn(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], {
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.once("error", reject)
      child.once("close", (code) => resolve({ code, stdout, stderr: "" }))
    })
    expect(tsc.stdout).toBe("")
    expect(tsc.code).toBe(0)
  })
})
