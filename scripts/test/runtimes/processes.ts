/**
 * Child processes of the runtime matrix: the runtimes' binaries from their npm packages, run with
 * a time limit, their output kept for the report of a failure.
 */
import { spawn } from "node:child_process"
import { join, resolve } from "node:path"

/** The repository. */
export const root = resolve(import.meta.dirname, "..", "..", "..")

/** The export condition under which `lighthouse-effect` resolves to its TypeScript sources. */
export const source = "@lighthouse-effect/source"

/** A binary of a devDependency (`bun`, `deno`, `workerd`). */
export const bin = (name: string): string => join(root, "node_modules", ".bin", name)

export interface Finished {
  /** The exit code; null when a signal ended it (the time limit included). */
  readonly status: number | null
  readonly stdout: string
  /** stdout and stderr, for a failure's report. */
  readonly output: string
}

// Generous: a busy 2-core machine runs other suites beside this one.
const timeLimitMs = 180_000

/** Runs a command to its end (or the time limit), from the repository, and collects its output. */
export const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {}
): Promise<Finished> =>
  new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeLimitMs
    })
    let stdout = ""
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text
      output += text
    })
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      output += text
    })
    child.on("error", fail)
    child.on("close", (status, signal) => {
      const limit =
        signal === null ? "" : `\n(ended by ${signal}${signal === "SIGTERM" ? `: over ${timeLimitMs} ms?` : ""})`
      done({ status, stdout, output: `${output}${limit}` })
    })
  })
