/**
 * The executable as the spawned tests run it: `cli/src/bin.ts` with the library's sources bundled
 * by esbuild (under the `@lighthouse-effect/source` condition, `dev`'s network kept in a chunk of
 * its own, loaded only by `dev`), every other package left as an import resolved from this
 * repository's node_modules. A command then starts from plain JS in well under a second, where
 * tsx compiled the library's sources again in every process. What ships is tested by
 * `npm run test:cli-package` (the packed, tsc-compiled package installed by npx).
 */
import { execFile, spawn } from "node:child_process"
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import * as nodePath from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { build, type Plugin } from "esbuild"

/** The repository, where the spawned tests run the executable from. */
export const repositoryRoot = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The library (by its name) is bundled from source; every other package stays an import. */
const otherPackagesExternal: Plugin = {
  name: "other-packages-external",
  setup: (builder) => {
    builder.onResolve({ filter: /^[^./#]/ }, ({ path }) =>
      path === "lighthouse-effect" || path.startsWith("lighthouse-effect/") ? undefined : { path, external: true }
    )
  }
}

export interface Executable {
  /** The entry to run with `node`. */
  readonly bin: string
  readonly remove: () => Promise<void>
}

/** Bundles the executable into a fresh folder of node_modules/.cache (so its imports resolve). */
export const buildExecutable = async (): Promise<Executable> => {
  const cache = nodePath.join(repositoryRoot, "node_modules", ".cache")
  await mkdir(cache, { recursive: true })
  const outdir = await mkdtemp(nodePath.join(cache, "lighthouse-effect-cli-"))
  await build({
    entryPoints: [nodePath.join(repositoryRoot, "cli/src/bin.ts")],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    conditions: ["@lighthouse-effect/source"],
    outdir,
    logLevel: "error",
    plugins: [otherPackagesExternal]
  })
  return { bin: nodePath.join(outdir, "bin.js"), remove: () => rm(outdir, { recursive: true, force: true }) }
}

/** How a run of the executable ended: its exit code (`null` when killed), stdout and stderr. */
export interface Exited {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs the executable with `args` from the repository, over a clean environment (`PATH` and
 * `env`), stdin from `input`; past `timeoutMs` it is killed (a hang: code `null`).
 */
export const runExecutable = (
  executable: Executable,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: { readonly input?: string; readonly timeoutMs?: number } = {}
) =>
  new Promise<Exited>((resolve) => {
    const child = execFile(
      process.execPath,
      [executable.bin, ...args],
      { cwd: repositoryRoot, env: { PATH: process.env.PATH ?? "", ...env }, timeout: options.timeoutMs ?? 0 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (child.exitCode ?? null), stdout, stderr })
    )
    child.stdin?.end(options.input ?? "")
  })

/** A `dev` process serving the local network on free ports: its hosts' variables, and its stop. */
export interface Dev {
  readonly hosts: Record<string, string>
  /** Everything its `--json` line says. */
  readonly served: Record<string, unknown>
  /** Ctrl-C, then waits for its exit. */
  readonly stop: () => Promise<void>
}

/** Starts `lighthouse-effect dev --free-ports --json [...args]`; resolves once it prints its hosts. */
export const startDev = async (executable: Executable, args: ReadonlyArray<string> = []): Promise<Dev> => {
  const dev = spawn(process.execPath, [executable.bin, "dev", "--free-ports", "--json", ...args], {
    cwd: repositoryRoot,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  dev.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const served = await new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: dev.stdout }).on("line", (line) => resolve(JSON.parse(line)))
    dev.once("exit", (code) => reject(new Error(`dev exited with ${code}: ${stderr}`)))
  })
  const stop = async () => {
    if (dev.exitCode !== null) return
    const exited = new Promise((resolve) => dev.once("exit", resolve))
    dev.kill("SIGINT")
    await exited
  }
  return { hosts: served.env as Record<string, string>, served, stop }
}
