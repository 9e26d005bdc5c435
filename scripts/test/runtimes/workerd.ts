/**
 * workerd, Cloudflare's Workers runtime from its npm package, serving bundled workers on loopback
 * WITHOUT Node compatibility: compatibility date 2026-10-23 (past 2026-08-04, from which
 * `nodejs_compat` is on by default), so the flags `no_nodejs_compat` and `no_nodejs_compat_v2`
 * turn it off. Outbound `fetch` may reach loopback only (the served local network).
 */

import { type ChildProcess, spawn } from "node:child_process"
import { copyFile, mkdir, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { connect, createServer } from "node:net"
import { join } from "node:path"
import { runProcess } from "./processes.ts"

/**
 * The workerd binary itself, as the `workerd` package resolves it for this platform. Not
 * `node_modules/.bin/workerd`: that is a Node script that spawns the binary, so stopping it left
 * the binary running (and holding its connections to the local network).
 */
const workerdBinary: string = (createRequire(import.meta.url)("workerd") as { readonly default: string }).default

export interface WorkerSpec {
  /** A name (a socket and a service of that name), letters only. */
  readonly name: string
  /** The bundled ES module. */
  readonly file: string
  /** Text bindings, the worker's `env`. */
  readonly bindings: Readonly<Record<string, string>>
}

export const compatibilityDate = "2026-10-23"
export const compatibilityFlags = ["no_nodejs_compat", "no_nodejs_compat_v2"]

const capnpText = (text: string) => JSON.stringify(text)

/** The capnp configuration: one service and one socket per worker, all with the same flags. */
export const workerdConfig = (workers: ReadonlyArray<WorkerSpec>): string =>
  [
    'using Workerd = import "/workerd/workerd.capnp";',
    "const config :Workerd.Config = (",
    "  services = [",
    ...workers.map((worker) => `    (name = "${worker.name}", worker = .${worker.name}Worker),`),
    '    (name = "loopback", network = (allow = ["local"])),',
    "  ],",
    "  sockets = [",
    ...workers.map(
      (worker) => `    (name = "${worker.name}", address = "127.0.0.1:0", http = (), service = "${worker.name}"),`
    ),
    "  ],",
    ");",
    ...workers.map((worker) =>
      [
        `const ${worker.name}Worker :Workerd.Worker = (`,
        `  modules = [(name = "worker.js", esModule = embed "${worker.name}.js")],`,
        `  compatibilityDate = "${compatibilityDate}",`,
        `  compatibilityFlags = [${compatibilityFlags.map(capnpText).join(", ")}],`,
        `  bindings = [${Object.entries(worker.bindings)
          .map(([name, text]) => `(name = ${capnpText(name)}, text = ${capnpText(text)})`)
          .join(", ")}],`,
        '  globalOutbound = "loopback",',
        ");"
      ].join("\n")
    )
  ].join("\n")

/** `count` ports free a moment ago (workerd binds them next; a lost race is retried). */
const freePorts = async (count: number): Promise<Array<number>> => {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((done, fail) => {
          const server = createServer()
          server.once("error", fail)
          server.listen(0, "127.0.0.1", () => done(server))
        })
    )
  )
  const ports = servers.map((server) => (server.address() as { port: number }).port)
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))))
  return ports
}

const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      done(true)
    })
    socket.once("error", () => done(false))
  })

// Generous: workerd compiles megabytes of bundles on a busy machine.
const readyLimitMs = 60_000

/** Resolves once every port accepts; rejects with workerd's output if it exits first or never serves. */
const ready = (child: ChildProcess, ports: ReadonlyArray<number>, output: () => string) =>
  new Promise<void>((done, fail) => {
    let over = false
    const limit = setTimeout(() => {
      over = true
      fail(new Error(`workerd did not serve within ${readyLimitMs} ms:\n${output()}`))
    }, readyLimitMs)
    child.once("exit", (code) => {
      over = true
      clearTimeout(limit)
      fail(new Error(`workerd exited (${code}) before serving:\n${output()}`))
    })
    const poll = async () => {
      while (!over) {
        const up = await Promise.all(ports.map(accepts))
        if (up.every(Boolean)) {
          clearTimeout(limit)
          return done()
        }
        await new Promise((wait) => setTimeout(wait, 100))
      }
    }
    void poll()
  })

export interface RunningWorkerd {
  /** `http://127.0.0.1:<port>` per worker name. */
  readonly urls: Readonly<Record<string, string>>
  readonly stop: () => Promise<void>
}

const startOnce = async (dir: string, workers: ReadonlyArray<WorkerSpec>): Promise<RunningWorkerd> => {
  const ports = await freePorts(workers.length)
  const sockets = workers.flatMap((worker, i) => ["--socket-addr", `${worker.name}=127.0.0.1:${ports[i]}`])
  const child = spawn(workerdBinary, ["serve", join(dir, "config.capnp"), ...sockets], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (output += text))
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (output += text))
  // workerd drains open connections on SIGTERM (a client's idle keep-alive socket can hold it for
  // minutes), so a stop that has not ended it in 2 s kills it.
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done()
      const kill = setTimeout(() => child.kill("SIGKILL"), 2000)
      child.once("exit", () => {
        clearTimeout(kill)
        done()
      })
      child.kill()
    })
  await ready(child, ports, () => output).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { urls: Object.fromEntries(workers.map((worker, i) => [worker.name, `http://127.0.0.1:${ports[i]}`])), stop }
}

/** Serves the workers, each on a free loopback port; a port taken meanwhile is retried twice. */
export const startWorkerd = async (work: string, workers: ReadonlyArray<WorkerSpec>): Promise<RunningWorkerd> => {
  const dir = join(work, "workerd")
  await mkdir(dir, { recursive: true })
  for (const worker of workers) await copyFile(worker.file, join(dir, `${worker.name}.js`))
  await writeFile(join(dir, "config.capnp"), workerdConfig(workers))
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(dir, workers)
    } catch (error) {
      const portTaken = error instanceof Error && /address already in use/i.test(error.message)
      if (!portTaken || attempt === 3) throw error
    }
  }
}

/** `workerd --version`'s date, e.g. `2026-10-23`. */
export const workerdVersion = async (): Promise<string> =>
  (await runProcess(workerdBinary, ["--version"])).stdout.replace(/^workerd\s*/, "").trim()
