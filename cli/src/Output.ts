/**
 * Where a command's results and failures go, so a script can rely on them: with `--json` exactly
 * one JSON value on stdout (or on stderr when the content itself goes to stdout), else lines of
 * text; failures as the catalogue's message on stderr and, with `--json`, `{"error":{"_tag",
 * "message"}}` on stdout. Everything is written through `Stdio`, so tests capture it in process.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { GlobalFlag, Flag } from "effect/cli"

/** The global `--json` flag: one JSON value on stdout instead of text. */
export const Json = GlobalFlag.Setting("json")({
  flag: Flag.Boolean("json").pipe(
    Flag.withDescription('Print exactly one JSON value on stdout (errors as {"error":{"_tag","message"}})'),
    Flag.withDefault(false)
  )
})

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
 * The result of a command: `value` as JSON with `--json`, else `text`'s lines. `contentOnStdout`
 * moves both to stderr, stdout being the content's.
 */
export const result = (value: unknown, text: ReadonlyArray<string>, options?: { readonly contentOnStdout?: boolean }) =>
  Effect.gen(function* () {
    const json = yield* Json
    const target = options?.contentOnStdout === true ? stderr : stdout
    if (json) return yield* target(toJson(value))
    for (const line of text) yield* target(line)
  })

/** Progress or a note for a person: stderr, and nothing with `--json`. */
export const note = (line: string) =>
  Effect.gen(function* () {
    if (!(yield* Json)) yield* stderr(line)
  })
