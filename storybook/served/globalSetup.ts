/**
 * Vitest global setup of the storybook project: the served network (`npm run serve`, no chain, free
 * ports) for the story of its `/docs` page. Its API host's URL is provided as `servedApiUrl`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    readonly servedApiUrl: string
  }
}

const root = fileURLToPath(new URL("../..", import.meta.url))
/** How long the network may take to start (tsx compiles its sources first). */
const STARTS_WITHIN_MS = 60_000

/** The first stdout line of `serve --json`: the hosts' URLs. */
const readyLine = (child: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm run serve did not start within ${STARTS_WITHIN_MS} ms`)),
      STARTS_WITHIN_MS
    )
    const stderr: Array<string> = []
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`npm run serve exited with ${code}: ${stderr.join("")}`))
    })
    createInterface({ input: child.stdout! }).once("line", (line) => {
      clearTimeout(timer)
      resolve(line)
    })
  })

export default async (project: TestProject) => {
  // `npm run serve`'s command, run by this Node (npm would put a shell between it and the stop).
  const tsx = createRequire(import.meta.url).resolve("tsx/cli")
  const child = spawn(
    process.execPath,
    [tsx, "--conditions=@lighthouse-effect/source", "scripts/serve.ts", "--free-ports", "--no-chain", "--json"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
  )
  const ready = JSON.parse(await readyLine(child)) as { readonly urls: { readonly api: string } }
  child.removeAllListeners("exit")
  project.provide("servedApiUrl", ready.urls.api)
  return async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
}
