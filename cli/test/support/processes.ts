/**
 * The executable as a running process the test acts on: started with its output collected, waited
 * on until its output or the disk says it is where the test wants it (bounded waits, no sleeps),
 * then signalled (`SIGKILL`, `SIGINT`) and waited on until it has exited.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import type { Writable } from "node:stream"
import { type Executable, repositoryRoot } from "./executable.ts"

/** How a process ended: its exit code (`null` when a signal ended it), that signal, all its output. */
export interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface Running {
  readonly pid: number
  /** Its stdin, when started with `stdin: "pipe"`. */
  readonly stdin: Writable | null
  /** Resolves once it has exited and its output is closed. */
  readonly ended: Promise<Ended>
  /** Sends `signal`, then waits for its end. */
  readonly signal: (signal: NodeJS.Signals) => Promise<Ended>
  /** Resolves once its `stream`'s output so far satisfies `condition`; fails past `ms` or at its end. */
  readonly outputSatisfies: (
    stream: "stdout" | "stderr",
    what: string,
    condition: (text: string) => boolean,
    ms?: number
  ) => Promise<void>
}

/** Starts the executable with `args` from the repository, over a clean environment (`PATH` and `env`). */
export const startExecutable = (
  executable: Executable,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: { readonly stdin?: "pipe" | "ignore" } = {}
): Running =>
  watched(
    spawn(process.execPath, [executable.bin, ...args], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: [options.stdin ?? "ignore", "pipe", "pipe"]
    })
  )

/** `child` (its stdout and stderr piped) as a `Running`. */
const watched = (child: ChildProcess): Running => {
  // Piped (per `stdio`), so both are there.
  const streams = { stdout: child.stdout!, stderr: child.stderr! }
  const text = { stdout: "", stderr: "" }
  for (const name of ["stdout", "stderr"] as const)
    streams[name].on("data", (chunk: Buffer) => {
      text[name] += chunk.toString()
    })
  const ended = new Promise<Ended>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal, ...text }))
  )
  const outputSatisfies = (
    stream: "stdout" | "stderr",
    what: string,
    condition: (text: string) => boolean,
    ms = 30_000
  ) =>
    new Promise<void>((resolve, reject) => {
      let settled = false
      const settle = (error?: Error) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        streams[stream].off("data", check)
        if (error === undefined) resolve()
        else reject(error)
      }
      const failure = (why: string) => new Error(`${why} waiting for ${what}; ${stream}: ${text[stream]}`)
      // Listened after the collecting listener above: `text` already holds the chunk.
      const check = () => {
        if (condition(text[stream])) settle()
      }
      const timer = setTimeout(() => settle(failure(`timed out after ${ms} ms`)), ms)
      streams[stream].on("data", check)
      void ended.then(() => settle(condition(text[stream]) ? undefined : failure("the process ended")))
      check()
    })
  return {
    pid: child.pid!,
    stdin: child.stdin,
    ended,
    signal: (signal) => {
      child.kill(signal)
      return ended
    },
    outputSatisfies
  }
}

/** Checks `condition` every 20 ms until it holds (for the state of the disk); fails past `ms`. */
export const waitFor = async (what: string, condition: () => Promise<boolean>, ms = 30_000) => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The complete lines of `text` (a last line without its newline is still being written). */
export const completeLines = (text: string): ReadonlyArray<string> => text.split("\n").slice(0, -1)

/** util-linux's `script`, which runs a command on a pseudo-terminal; `undefined` when absent. */
export const scriptCommand = ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path))

const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

/**
 * Runs the executable with `args` on a pseudo-terminal (`script -qfec`): its stdout and stderr are
 * the terminal, read back as the `stdout` of the result (`\r\n` line ends).
 */
export const runOnTerminal = (
  executable: Executable,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>
): Promise<Ended> => {
  if (scriptCommand === undefined) throw new Error("script (util-linux) is not installed")
  const command = [process.execPath, executable.bin, ...args].map(quoted).join(" ")
  const onTerminal = spawn(scriptCommand, ["-qfec", command, "/dev/null"], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? "", TERM: "xterm", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  return watched(onTerminal).ended
}
