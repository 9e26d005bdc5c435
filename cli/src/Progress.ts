/**
 * A transfer's progress for a person: one line on stderr, redrawn in place, with bytes, rate and
 * time left, only when stderr is a terminal that can animate and `--json` is off. Piped or in a
 * script, nothing is drawn.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { TerminalCapabilities } from "effect/cli"
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

/** Draws the bar around `transfer` (given its `onProgress`) on an animating stderr; else runs it as is. */
export const around = <A, E, R>(
  transfer: (onProgress: Upload.Progress.OnProgress | undefined) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const onProgress = yield* reporter
    if (onProgress === undefined) return yield* transfer(undefined)
    return yield* transfer(onProgress).pipe(Effect.ensuring(Output.stderr("")))
  })

const reporter = Effect.gen(function* () {
  const stdio = yield* Stdio.Stdio
  const terminal = yield* TerminalCapabilities.TerminalCapabilities
  const animate = terminal.canAnimate && (yield* stdio.stderrIsTerminal) && !(yield* Output.Json)
  if (!animate) return undefined
  const started = yield* Clock.currentTimeMillis
  const onProgress: Upload.Progress.OnProgress = (progress) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const text = `\r${line(progress.bytesSent, progress.totalBytes, now - started)}\u001b[K`
      yield* Stream.make(text).pipe(Stream.run(stdio.stderr({ endOnDone: false })), Effect.orDie)
    })
  return onProgress
})
