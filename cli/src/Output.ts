/**
 * Where a command's results and failures go, so a script can rely on them: with `--json` exactly
 * one JSON value on stdout (or on stderr when the content itself goes to stdout), else lines of
 * text; failures as the catalogue's message on stderr and, with `--json`, `{"error":{"_tag",
 * "message"}}` on stdout. Everything is written through `Stdio`, so tests capture it in process;
 * log lines (the library's warnings, `--log-level`) go to stderr through `Console.error`.
 *
 * Text meant for a person never carries a raw control character: names come from the server and
 * from the disk, and a name holding an escape sequence would otherwise drive the terminal (an
 * OSC 52 clipboard write, cursor moves, a newline forging a line of output). `printable` escapes
 * them; JSON stays exact, a script gets the name as it is.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import { Flag, GlobalFlag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"

/** The global `--json` flag: one JSON value on stdout instead of text. */
export const Json = GlobalFlag.Setting("json")({
  flag: Flag.Boolean("json").pipe(
    Flag.withDescription('Print exactly one JSON value on stdout (errors as {"error":{"_tag","message"}})'),
    Flag.withDefault(false)
  )
})

/**
 * The global `--quiet` (`-q`) flag: nothing for a person on stderr (notes, the progress bar, the
 * library's warnings); the result on stdout and a failure's line stay, as with `git -q`.
 */
export const Quiet = GlobalFlag.Setting("quiet")({
  flag: Flag.Boolean("quiet").pipe(
    Flag.withAlias("q"),
    Flag.withDescription("Print only the result and failures: no notes, progress or warnings on stderr"),
    Flag.withDefault(false)
  )
})

/** Whether `--quiet` or `-q` is among the flags (before `--`): known before any command runs. */
export const quietRequested = (args: ReadonlyArray<string>): boolean => {
  const end = args.indexOf("--")
  const flags = end === -1 ? args : args.slice(0, end)
  return flags.some((arg) => arg === "--quiet" || arg === "-q" || arg === "--quiet=true")
}

/** The few controls with a short escape everyone reads; the rest are written `\xHH` or `\u{H…}`. */
const named: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" }

/**
 * What a terminal must not be handed raw: the controls (`Cc`: C0 with ESC, DEL, and C1, where CSI
 * and OSC have one-byte forms), the line and paragraph separators, the bidirectional overrides
 * and isolates that reorder what is shown, and lone surrogates (not UTF-8). The backslash too,
 * so that an escape in the output always means an escaped character.
 */
const unsafe = /[\\\p{Cc}\p{Cs}\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/gu

const escape = (character: string): string => {
  const code = character.codePointAt(0) ?? 0
  return (
    named[character] ??
    (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16).padStart(4, "0")}}`)
  )
}

/**
 * `text` safe to print for a person: every control character written as an escape (`\x1b`,
 * `\n`, `\u{202e}`, a backslash as `\\`), everything else as it is. Unambiguous: the original
 * text can be read back from it.
 */
export const printable = (text: string): string => text.replace(unsafe, escape)

const write = (target: "stdout" | "stderr", text: string) =>
  Effect.gen(function* () {
    const stdio = yield* Stdio.Stdio
    yield* Stream.make(text).pipe(Stream.run(stdio[target]({ endOnDone: false })))
  }).pipe(Effect.orDie)

/** A line on stdout. */
export const stdout = (line: string) => write("stdout", `${line}\n`)

/** A line on stderr. */
export const stderr = (line: string) => write("stderr", `${line}\n`)

/** Bytes on stdout, as they are (the content of `cat` and `download -o -`). */
export const stdoutBytes = (bytes: Uint8Array) =>
  Effect.gen(function* () {
    const stdio = yield* Stdio.Stdio
    yield* Stream.make(bytes).pipe(Stream.run(stdio.stdout({ endOnDone: false })))
  })

/** JSON of a result: bigints as decimal strings (token amounts), Redacted values never revealed. */
export const toJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v))

/**
 * The result of a command: `value` as JSON with `--json`, else `text`'s lines, each made
 * `printable` (a line holds names from the server or the disk). `contentOnStdout` moves both to
 * stderr, stdout being the content's.
 */
export const result = (value: unknown, text: ReadonlyArray<string>, options?: { readonly contentOnStdout?: boolean }) =>
  Effect.gen(function* () {
    const json = yield* Json
    const target = options?.contentOnStdout === true ? stderr : stdout
    if (json) return yield* target(toJson(value))
    for (const line of text) yield* target(printable(line))
  })

/** Progress or a note for a person: stderr (`printable`), and nothing with `--json` or `--quiet`. */
export const note = (line: string) =>
  Effect.gen(function* () {
    if (!(yield* Json) && !(yield* Quiet)) yield* stderr(printable(line))
  })

const levelNames: Readonly<Record<string, string>> = { Warn: "warning" }

/** A log entry as one line for a person: `warning: <message>`, the message `printable`. */
const logLine = Logger.make<unknown, string>(({ cause, logLevel, message }) => {
  const parts = (Array.isArray(message) ? message : [message]).map((part) =>
    typeof part === "string" ? part : toJson(part)
  )
  if (cause.reasons.length > 0) parts.push(Cause.pretty(cause))
  return `${levelNames[logLevel] ?? logLevel.toLowerCase()}: ${printable(parts.join(" "))}`
})

/**
 * The command line's logger: every log line on stderr (stdout holds only the result or the
 * content), from the level `--log-level` sets up (Effect's default: info).
 */
export const logger = Logger.withConsoleError(logLine)
