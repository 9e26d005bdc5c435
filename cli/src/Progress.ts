/**
 * A transfer's progress. On a terminal that can animate (without `--json` or `--quiet`): one line on
 * stderr, redrawn in place, with bytes, rate and time left; piped or in a script, nothing is
 * drawn. With `--progress ndjson`: one JSON event per line on stderr for a script to read,
 * `{"event":"progress","bytes":…,"total":…}` as the transfer goes (`total` null when unknown),
 * then one final `{"event":"done"|"failed"|"interrupted","bytes":…,"total":…}`. A transfer into a
 * file that keeps what it got (`download --resume`) says in its failed or interrupted event the
 * bytes on disk, which a re-run resumes from.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import { Flag, GlobalFlag, TerminalCapabilities } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import type { Upload } from "lighthouse-effect"
import * as Output from "./Output.ts"

const units = ["B", "KiB", "MiB", "GiB", "TiB"] as const

/** `1.5 MiB`. */
export const formatBytes = (bytes: number): string => {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`
}

/** `1:05` or `1:02:03`. */
const formatSeconds = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds))
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
  const mm = h > 0 ? String(m).padStart(2, "0") : String(m)
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(r).padStart(2, "0")}`
}

/** The line for `sent` of `total` bytes after `elapsedMs`. */
export const line = (sent: number, total: number | undefined, elapsedMs: number): string => {
  const rate = elapsedMs > 0 ? (sent * 1000) / elapsedMs : 0
  const rateText = `${formatBytes(rate)}/s`
  if (total === undefined || total === 0) return `${formatBytes(sent)}  ${rateText}`
  const width = 24
  const done = Math.min(width, Math.floor((sent / total) * width))
  const eta = rate > 0 ? formatSeconds((total - sent) / rate) : "--:--"
  return `[${"#".repeat(done)}${"-".repeat(width - done)}] ${formatBytes(sent)} / ${formatBytes(total)}  ${rateText}  ${eta} left`
}

/** The global `--progress` flag. */
export const Mode = GlobalFlag.Setting("progress")({
  flag: Flag.Literals("progress", ["auto", "ndjson", "none"]).pipe(
    Flag.withDescription(
      "auto: a bar when stderr is a terminal; ndjson: JSON events on stderr ({event:progress,bytes,total}, then done|failed|interrupted); none"
    ),
    Flag.withDefault("auto" as const)
  )
})

type OnProgress = (progress: Upload.Progress.Progress) => Effect.Effect<void>

/** How the final event counts its bytes, for a transfer that reports no progress of its own. */
export interface Counting<A> {
  /** From the result, once done. */
  readonly bytesOf?: (result: A) => number
  /** Once failed or interrupted: what is on disk for a re-run to resume from. */
  readonly bytesKept?: Effect.Effect<number>
}

/**
 * Reports progress around `transfer` (given its `onProgress`, `undefined` when nothing is to be
 * reported); `counting` says how the final event counts when the transfer cannot.
 */
export const around = <A, E, R>(
  transfer: (onProgress: OnProgress | undefined) => Effect.Effect<A, E, R>,
  counting?: Counting<A>
) =>
  Effect.gen(function* () {
    const mode = yield* Mode
    if (mode === "ndjson") return yield* asEvents(transfer, counting ?? {})
    const onProgress = mode === "auto" ? yield* bar : undefined
    if (onProgress === undefined) return yield* transfer(undefined)
    return yield* transfer(onProgress).pipe(Effect.ensuring(Output.stderr("")))
  })

const event = (value: { readonly event: string; readonly bytes: number; readonly total: number | undefined }) =>
  Output.stderr(Output.toJson({ ...value, total: value.total ?? null }))

const finalEvent = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isSuccess(exit) ? "done" : Exit.hasInterrupts(exit) ? "interrupted" : "failed"

const asEvents = <A, E, R>(
  transfer: (onProgress: OnProgress) => Effect.Effect<A, E, R>,
  { bytesOf, bytesKept }: Counting<A>
) =>
  Effect.gen(function* () {
    const stdio = yield* Stdio.Stdio
    let last: Upload.Progress.Progress = { bytesSent: 0, totalBytes: undefined }
    const onProgress: OnProgress = (progress) => {
      last = progress
      return event({ event: "progress", bytes: progress.bytesSent, total: progress.totalBytes }).pipe(
        Effect.provideService(Stdio.Stdio, stdio)
      )
    }
    return yield* transfer(onProgress).pipe(
      Effect.onExit((exit) =>
        Effect.gen(function* () {
          const bytes = Exit.isSuccess(exit)
            ? bytesOf === undefined
              ? last.bytesSent
              : bytesOf(exit.value)
            : bytesKept === undefined
              ? last.bytesSent
              : yield* bytesKept
          yield* event({
            event: finalEvent(exit),
            bytes,
            total: last.totalBytes ?? (Exit.isSuccess(exit) ? bytes : undefined)
          })
        })
      )
    )
  })

const bar = Effect.gen(function* () {
  const stdio = yield* Stdio.Stdio
  const terminal = yield* TerminalCapabilities.TerminalCapabilities
  const animate =
    terminal.canAnimate && (yield* stdio.stderrIsTerminal) && !(yield* Output.Json) && !(yield* Output.Quiet)
  if (!animate) return undefined
  const started = yield* Clock.currentTimeMillis
  const onProgress: OnProgress = (progress) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const text = `\r${line(progress.bytesSent, progress.totalBytes, now - started)}\u001b[K`
      yield* Stream.make(text).pipe(Stream.run(stdio.stderr({ endOnDone: false })), Effect.orDie)
    })
  return onProgress
})
