/**
 * Upload progress on one scale in every environment: bytes of the files' content the transport
 * has pulled, out of their total when every file's size is known. The content is what is stored:
 * a file's own bytes, or for an encrypted upload the encrypted file (the plain one and
 * `FileCipher.OVERHEAD`); the multipart framing around the files is not counted, so a 15-byte
 * file goes from 0 to 15. The provider reported a percentage in Node and a fraction in browsers,
 * computed from bytes read from disk rather than sent, and without a final report.
 *
 * Reports are throttled to about one per thousandth of the total (at least every 64 KiB), the
 * first comes when the transport starts pulling the body (`bytesSent: 0`) and the last when the
 * last content byte has been pulled (`bytesSent === totalBytes`), or at the body's end without a
 * total.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** How far an upload is. */
export interface Progress {
  /** Bytes of the files' content handed to the transport so far. */
  readonly bytesSent: number
  /** The files' content in bytes (their sizes, encrypted when the upload is), when every size is known. */
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

/**
 * The progress of one run of an upload's body (it keeps count): {@link Tracker.content} counts a
 * part's content as the transport pulls it, {@link Tracker.body} reports when the body starts and
 * ends.
 */
export interface Tracker {
  readonly content: <E>(content: Stream.Stream<Uint8Array, E>) => Stream.Stream<Uint8Array, E>
  readonly body: <E>(body: Stream.Stream<Uint8Array, E>) => Stream.Stream<Uint8Array, E>
}

/** A tracker reporting to `onProgress` against `totalBytes` of content. */
export const tracker = (totalBytes: number | undefined, onProgress: OnProgress): Tracker => {
  const step = Math.max(64 * 1024, Math.floor((totalBytes ?? 0) / 1000))
  let sent = 0
  let reported = 0
  return {
    content: (content) =>
      Stream.tap(content, (chunk) => {
        sent += chunk.length
        // The last byte reports at once: a reader may stop at the close delimiter, never pulling the end.
        if (sent - reported < step && sent !== totalBytes) return Effect.void
        reported = sent
        return report(onProgress, { bytesSent: sent, totalBytes })
      }),
    body: (body) =>
      Stream.fromEffectDrain(report(onProgress, { bytesSent: 0, totalBytes })).pipe(
        Stream.concat(body),
        Stream.concat(
          Stream.fromEffectDrain(
            Effect.suspend(() =>
              sent === reported ? Effect.void : report(onProgress, { bytesSent: sent, totalBytes })
            )
          )
        )
      )
  }
}
