/**
 * Runs the command line in this process, as the binary would, with its stdio captured: `run`
 * gives the exit code, stdout and stderr. The environment is an explicit map (no `process.env`),
 * the config directory a fresh temporary one.
 */
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process"
import * as Sink from "effect/Sink"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Terminal from "effect/Terminal"
import * as Main from "../../src/Main.ts"

export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly stdoutBytes: Uint8Array
}

const terminal = Terminal.make({
  columns: Effect.succeed(80),
  rows: Effect.succeed(24),
  size: Effect.die("no terminal"),
  readInput: Effect.die("no terminal"),
  readLine: Effect.die("no terminal"),
  display: () => Effect.void
})

const capture = (chunks: Array<Uint8Array>) => () =>
  // biome-ignore lint/suspicious/useIterableCallbackReturn: Effect's Sink.forEach runs the Effect each callback returns
  Sink.forEach((chunk: string | Uint8Array) =>
    Effect.sync(() => {
      chunks.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk)
    })
  )

/**
 * The CLI module prints some output (completion scripts) with `Console.log`: captured as stdout;
 * log lines go through `Console.error`: captured as stderr.
 */
const capturedConsole = (out: Array<Uint8Array>, err: Array<Uint8Array>): Console.Console =>
  Object.assign(Object.create(console), {
    log: (...parts: ReadonlyArray<unknown>) => {
      out.push(new TextEncoder().encode(`${parts.join(" ")}\n`))
    },
    error: (...parts: ReadonlyArray<unknown>) => {
      err.push(new TextEncoder().encode(`${parts.join(" ")}\n`))
    }
  })

const concat = (chunks: ReadonlyArray<Uint8Array>) => Buffer.concat(chunks.map((c) => Buffer.from(c)))

/** Runs `args` with `env` (and `stdin`), no terminal attached. */
export const run = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  stdin?: Uint8Array | string
): Promise<Ran> => {
  const out: Array<Uint8Array> = []
  const err: Array<Uint8Array> = []
  const input = stdin === undefined ? [] : [typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin]
  const services = Layer.mergeAll(
    NodeFileSystem.layer,
    NodePath.layer,
    Stdio.layerTest({ stdout: capture(out), stderr: capture(err), stdin: Stream.fromIterable(input) }),
    Layer.succeed(Terminal.Terminal, terminal),
    Layer.succeed(
      ChildProcessSpawner.ChildProcessSpawner,
      ChildProcessSpawner.make(() => Effect.die("no processes"))
    ),
    ConfigProvider.layer(ConfigProvider.fromEnv({ env }))
  )
  const program = Main.run(args).pipe(
    Effect.provide(services),
    Effect.provideService(Console.Console, capturedConsole(out, err))
  )
  return Effect.runPromise(program).then((code) => {
    const stdoutBytes = concat(out)
    return { code, stdout: stdoutBytes.toString("utf8"), stderr: concat(err).toString("utf8"), stdoutBytes }
  })
}

/** A fresh config directory's parent (the `XDG_CONFIG_HOME`). */
export const freshConfigHome = () => mkdtemp(join(tmpdir(), "lh-cli-"))

/** The one JSON value on stdout. */
export const json = (ran: Ran): unknown => JSON.parse(ran.stdout)

/** A usage error's own line in `text`: the last one before the `--help` hint, or the last one. */
export const lastLine = (text: string): string | undefined => {
  const lines = text.trimEnd().split("\n")
  const hint = /^Run '.+ --help' for usage\.$/.test(lines.at(-1) ?? "")
  return (hint ? lines.at(-2) : lines.at(-1))?.trim()
}
