/**
 * Downloads that hand over only verified plaintext: AES-GCM authenticates a file with one tag at
 * its end, so `bytes` returns only after the check and `toFile` writes beside the target and
 * renames once the tag checks (the target never holds unauthenticated bytes, nor a partial
 * download). Both are bounded by the transfer time-out over the whole download.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { RequestTimedOut } from "../Errors.ts"
import { content, type DownloadDeps } from "./Content.ts"
import type { DecryptOptions } from "./Models.ts"

const randomSuffix = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("")

const timedOut = (deps: DownloadDeps, options: DecryptOptions | undefined) => () =>
  Effect.fail(
    new RequestTimedOut({
      url: options?.gateway ?? deps.config.hosts.gateway,
      timeoutMillis: Duration.toMillis(deps.config.transferTimeout)
    })
  )

export const bytes = Effect.fn("Download.bytes")(function* (deps: DownloadDeps, cid: string, options?: DecryptOptions) {
  const source = yield* content(deps, cid, options)
  // Returned only once the whole stream (and with it the GCM tag) has checked out.
  return yield* Stream.mkUint8Array(source).pipe(
    Effect.timeoutOrElse({ duration: deps.config.transferTimeout, orElse: timedOut(deps, options) })
  )
})

export const toFile = Effect.fn("Download.toFile")(function* (
  deps: DownloadDeps,
  cid: string,
  path: string,
  options?: DecryptOptions
) {
  const { fs } = deps
  const source = yield* content(deps, cid, options)
  const partial = `${path}.${randomSuffix()}.partial`
  yield* source.pipe(
    // `wx`: never write through a file or link someone placed at the temporary name.
    Stream.run(fs.sink(partial, { flag: "wx" })),
    Effect.andThen(fs.rename(partial, path)),
    Effect.timeoutOrElse({ duration: deps.config.transferTimeout, orElse: timedOut(deps, options) }),
    Effect.onError(() => Effect.ignore(fs.remove(partial, { force: true })))
  )
})
