/**
 * The served local network in a process of its own, for tests whose outcome depends on the
 * server not sharing the client's event loop (an early answer racing a request body). Started
 * with `startServedProcess`; it takes one command a line on stdin and answers one JSON line:
 *
 * - `seed <address> <dataLimit>`: a fresh network with that account; answers its `apiKey`
 * - `fault <status> <body as JSON>`: the upload node answers `status` with `body`
 * - `files <address>`: how many files the account has
 *
 * It ends when its stdin closes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { serveMockNetwork } from "lighthouse-effect/mocks/server"

export interface ServedProcess {
  readonly urls: Readonly<Record<string, string>>
  /** Sends one command; resolves with its answer. */
  readonly command: (line: string) => Promise<unknown>
  readonly close: () => Promise<void>
}

const self = fileURLToPath(import.meta.url)
const CHILD = "--served-process"

/** Starts the served network in a child process on free ports. */
export const startServedProcess = async (): Promise<ServedProcess> => {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--conditions=@lighthouse-effect/source", "--import", "tsx", self, CHILD],
    { stdio: ["pipe", "pipe", "inherit"] }
  )
  const lines = createInterface({ input: child.stdout! })
  const waiting: Array<{ readonly resolve: (line: string) => void; readonly reject: (error: Error) => void }> = []
  lines.on("line", (line) => waiting.shift()?.resolve(line))
  // A network that died fails what waits on it and every later command, rather than leaving the
  // tests hanging until they time out.
  let exited: Error | undefined
  const ended = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = new Error(`the served network exited with ${code ?? signal}`)
      for (const waiter of waiting.splice(0)) waiter.reject(exited)
      resolve()
    })
  })
  // Writing to a network that has just died fails with EPIPE here; `exit` above reports it.
  child.stdin!.on("error", () => undefined)
  const next = () =>
    new Promise<string>((resolve, reject) =>
      exited === undefined ? waiting.push({ resolve, reject }) : reject(exited)
    )
  const { urls } = JSON.parse(await next()) as { urls: Record<string, string> }
  return {
    urls,
    command: async (line) => {
      const answer = next()
      child.stdin!.write(`${line}\n`)
      return JSON.parse(await answer)
    },
    close: () => {
      child.stdin!.end()
      return ended
    }
  }
}

/** The child: serves the network and runs the commands. */
const runChild = async () => {
  const served = await serveMockNetwork()
  const run = (line: string): unknown => {
    const [name, ...args] = line.split(" ")
    switch (name) {
      case "seed":
        served.network.reset()
        return served.network.seedAccount(args[0]!, { dataLimit: Number(args[1]) }).apiKey
      case "fault":
        served.network.faults.status({ host: "node" }, Number(args[0]), { body: JSON.parse(args.slice(1).join(" ")) })
        return null
      case "files":
        return served.network.state.files.of(args[0]!.toLowerCase()).length
      default:
        throw new Error(`unknown command: ${line}`)
    }
  }
  process.stdout.write(`${JSON.stringify({ urls: served.urls })}\n`)
  const input = createInterface({ input: process.stdin })
  input.on("line", (line) => process.stdout.write(`${JSON.stringify(run(line))}\n`))
  input.on("close", () => void served.close().then(() => process.exit(0)))
}

if (process.argv[1] === self && process.argv[2] === CHILD) await runChild()
