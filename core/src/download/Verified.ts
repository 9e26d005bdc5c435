/**
 * Downloads that hand over only verified plaintext: AES-GCM authenticates a file with one tag at
 * its end, so `bytes` returns only after the check and `toFile` writes beside the target and
 * renames once the tag checks (the target never holds unauthenticated bytes, nor a partial
 * download). Both are bounded by the transfer time-out over the whole download. Each tells (in
 * `retrieve`'s and `toFile`'s result) whether the gateway's bytes were verified against the CID.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { RequestTimedOut } from "../Errors.ts"
import { content, type DownloadDeps, gatewayOf } from "./Content.ts"
import { parseCid } from "../schema/Cid.ts"
import type { DecryptOptions, ToFileOptions, Retrieved } from "./Models.ts"
import { writeStream } from "./FileWrites.ts"
import { prepareResume } from "./Resume.ts"

const randomSuffix = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("")

const timedOut = (deps: DownloadDeps, options: DecryptOptions | undefined) => () =>
  Effect.fail(
    new RequestTimedOut({
      url: gatewayOf(deps.hosts, options),
      timeoutMillis: Duration.toMillis(deps.hosts.config.transferTimeout)
    })
  )

/** The content in memory, and whether it was verified; returned once the whole stream (and any tag) checked out. */
export const retrieve = Effect.fn("Download.retrieve")(function* (
  deps: DownloadDeps,
  cid: string,
  options?: DecryptOptions
) {
  const { stream, report } = yield* content(deps, cid, options)
  const bytes = yield* Stream.mkUint8Array(stream).pipe(
    Effect.timeoutOrElse({ duration: deps.hosts.config.transferTimeout, orElse: timedOut(deps, options) })
  )
  return { bytes, verification: yield* report } satisfies Retrieved
})

export const bytes = Effect.fn("Download.bytes")(function* (deps: DownloadDeps, cid: string, options?: DecryptOptions) {
  return (yield* retrieve(deps, cid, options)).bytes
})

/**
 * `toFile` going on from `<path>.partial` (or an existing file at `path`) after its verified
 * prefix; the partial file stays when the download fails, with every verified byte it got.
 */
const resumeToFile = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: string,
  path: string,
  options: ToFileOptions
) {
  const { fs } = deps
  const partial = `${path}.partial`
  const from = yield* prepareResume(deps, yield* parseCid(cid), path, partial, options)
  const { stream, report } = yield* content(deps, cid, from === 0 ? options : { ...options, range: { offset: from } })
  yield* stream.pipe(
    (bytes) => writeStream(fs, partial, "a", bytes),
    Effect.andThen(fs.rename(partial, path)),
    Effect.timeoutOrElse({ duration: deps.hosts.config.transferTimeout, orElse: timedOut(deps, options) })
  )
  return yield* report
})

export const toFile = Effect.fn("Download.toFile")(function* (
  deps: DownloadDeps,
  cid: string,
  path: string,
  options?: ToFileOptions
) {
  if (options?.resume === true && options.decrypt === undefined && options.range === undefined) {
    return yield* resumeToFile(deps, cid, path, options)
  }
  const { fs } = deps
  const { stream, report } = yield* content(deps, cid, options)
  const partial = `${path}.${randomSuffix()}.partial`
  yield* stream.pipe(
    // `wx`: never write through a file or link someone placed at the temporary name.
    (bytes) => writeStream(fs, partial, "wx", bytes),
    Effect.andThen(fs.rename(partial, path)),
    Effect.timeoutOrElse({ duration: deps.hosts.config.transferTimeout, orElse: timedOut(deps, options) }),
    Effect.onError(() => Effect.ignore(fs.remove(partial, { force: true })))
  )
  return yield* report
})
