/**
 * Upload progress on one scale in every environment: bytes of the request body the transport
 * has pulled, out of the body's total (multipart overhead included) when it is known. The
 * provider reported a percentage in Node and a fraction in browsers, computed from bytes read
 * from disk rather than sent, without the overhead and without a final report.
 *
 * Reports are throttled to about one per thousandth of the total (at least every 64 KiB), the
 * first comes when the transport starts pulling (`bytesSent: 0`) and the last when the body has
 * been pulled to its end (`bytesSent === totalBytes`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** How far an upload is. */
export interface Progress {
  /** Bytes of the request body handed to the transport so far. */
  readonly bytesSent: number
  /** Length of the whole request body, when every input's size is known. */
  readonly totalBytes: number | undefined
}

/** A progress listener: a plain callback, or one that returns an Effect (run in the upload's fiber). */
export type OnProgress = (progress: Progress) => void | Effect.Effect<void>

/** `bytesSent / totalBytes` in [0, 1], or `undefined` without a total. */
export const fraction = (progress: Progress): number | undefined =>
  progress.totalBytes === undefined
    ? undefined
    : progress.totalBytes === 0
      ? 1
      : Math.min(1, progress.bytesSent / progress.totalBytes)

/** Runs a listener with one report. */
export const report = (onProgress: OnProgress, progress: Progress): Effect.Effect<void> =>
  Effect.suspend(() => {
    const out = onProgress(progress)
    return Effect.isEffect(out) ? out : Effect.void
  })

/** Counts the bytes pulled through `body` and reports them to `onProgress`. */
export const track =
  (totalBytes: number | undefined, onProgress: OnProgress | undefined) =>
  <E>(body: Stream.Stream<Uint8Array, E>): Stream.Stream<Uint8Array, E> => {
    if (onProgress === undefined) return body
    const step = Math.max(64 * 1024, Math.floor((totalBytes ?? 0) / 1000))
    return Stream.suspend(() => {
      let sent = 0
      let reported = 0
      const counted = body.pipe(
        Stream.tap((chunk) => {
          sent += chunk.length
          // The last chunk reports at once: a reader may stop at the close delimiter, never pulling the end.
          if (sent - reported < step && sent !== totalBytes) return Effect.void
          reported = sent
          return report(onProgress, { bytesSent: sent, totalBytes })
        })
      )
      return Stream.fromEffectDrain(report(onProgress, { bytesSent: 0, totalBytes })).pipe(
        Stream.concat(counted),
        Stream.concat(
          Stream.fromEffectDrain(
            Effect.suspend(() =>
              sent === reported ? Effect.void : report(onProgress, { bytesSent: sent, totalBytes })
            )
          )
        )
      )
    })
  }
