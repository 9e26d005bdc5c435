/**
 * Downloads that hand over only verified plaintext: AES-GCM authenticates a file with one tag at
 * its end, so `bytes` returns only after the check and `toFile` writes beside the target and
 * renames once the tag checks (the target never holds unauthenticated bytes, nor a partial
 * download). Both are bounded by the transfer time-out over the whole download. Each tells (in
 * `retrieve`'s and `toFile`'s result) whether the gateway's bytes were verified against the CID.
 *
 * A resumed `toFile` keeps the stored bytes in `<path>.partial`, never plaintext: those bytes are
 * what the CID covers, so what an interrupted call left there is checked against the DAG before
 * it is trusted, encrypted or not; an encrypted file is decrypted from there once it is whole.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Cipher from "../crypto/FileCipher.ts"
import { RequestTimedOut } from "../Errors.ts"
import { slice } from "../verify/Retrieval.ts"
import { content, type DownloadDeps, planFor, resolveKey } from "./Content.ts"
import { run } from "./Engine.ts"
import { readStreamFrom, WRITE_BYTES, writeStream, writeStreamTo } from "./FileWrites.ts"
import type { Decryption, DecryptOptions, Retrieved, ToFileOptions } from "./Models.ts"
import { fromByte, type Plan } from "./Plan.ts"
import { checkBeforePublish, prepareResume } from "./Resume.ts"
import { lockTarget } from "./TargetLock.ts"

const randomSuffix = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("")

/** The whole download within the transfer time-out, which names the plan's first gateway. */
const withinTransferTimeout =
  (deps: DownloadDeps, plan: Plan) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.timeoutOrElse(effect, {
      duration: deps.hosts.config.transferTimeout,
      orElse: () =>
        Effect.fail(
          new RequestTimedOut({
            url: plan.lanes[0]!.gateway,
            timeoutMillis: Duration.toMillis(deps.hosts.config.transferTimeout)
          })
        )
    })

/** The content in memory, and whether it was verified; returned once the whole stream (and any tag) checked out. */
export const retrieve = Effect.fn("Download.retrieve")(function* (
  deps: DownloadDeps,
  cid: string,
  options?: DecryptOptions
) {
  const plan = yield* planFor(deps, cid, "retrieve", options)
  const { stream, report } = yield* content(deps, plan, options)
  const bytes = yield* Stream.mkUint8Array(stream).pipe(withinTransferTimeout(deps, plan))
  return { bytes, verification: yield* report } satisfies Retrieved
})

export const bytes = Effect.fn("Download.bytes")(function* (deps: DownloadDeps, cid: string, options?: DecryptOptions) {
  const plan = yield* planFor(deps, cid, "bytes", options)
  const { stream } = yield* content(deps, plan, options)
  return yield* Stream.mkUint8Array(stream).pipe(withinTransferTimeout(deps, plan))
})

/** A download into `path`: its plan, and the options that say how the bytes become the file. */
interface FileRequest {
  readonly deps: DownloadDeps
  readonly plan: Plan
  readonly path: string
  readonly options: ToFileOptions | undefined
}

/**
 * The plan's stored bytes into `<path>.partial` after its verified prefix (from an existing file
 * at `adopt` when there is no partial file), under the transfer time-out, written through the
 * file opened for the scope (never through a link at its name); the partial file stays when the
 * download fails, with every verified byte it got. Once whole and verified, it is checked again
 * as a whole against the CID (its size and every block) before anything is published. Returns the
 * open file and the report.
 */
const resumeStored = Effect.fnUntraced(function* ({ deps, plan, path }: FileRequest, adopt: string | undefined) {
  const partial = `${path}.partial`
  const { file, from } = yield* prepareResume({ fs: deps.fs, plan, partial, adopt })
  const { stream, report } = run(fromByte(plan, from))
  yield* writeStreamTo(file, stream).pipe(withinTransferTimeout(deps, plan))
  const verification = yield* report
  // Unverified bytes (asked for by name) have nothing to be checked against.
  if (verification.verified) yield* checkBeforePublish(plan, partial, file)
  return { file, partial, verification }
})

/**
 * `toFile` of a plain file going on from `<path>.partial` (or an existing file at `path`) after
 * its verified prefix: the partial file becomes the target once whole.
 */
const resumeToFile = Effect.fnUntraced(function* (request: FileRequest) {
  const { partial, verification } = yield* resumeStored(request, request.path)
  yield* request.deps.fs.rename(partial, request.path)
  return verification
}, Effect.scoped)

/**
 * `toFile` of an encrypted file going on from `<path>.partial`, which holds ciphertext, never
 * plaintext: its verified prefix is kept and the rest of the ciphertext appended, then the whole
 * is decrypted into a temporary file beside the target, renamed once the tag checks (the
 * plaintext of `range` only, when given). The ciphertext is removed then; when the download or
 * the decryption fails it stays, every byte of it verified against the CID, for the next call
 * (with the right key, after a `DecryptionFailed`). A file at `path` is not taken up: it would be
 * plaintext, which the DAG does not cover.
 */
const resumeDecrypting = Effect.fnUntraced(function* (request: FileRequest, decryption: Decryption) {
  const { deps, plan, path } = request
  // Before downloading: without the key there is no point fetching the bytes.
  const key = yield* resolveKey(deps, plan.cid, decryption)
  // The plan of a decrypting download reads the whole ciphertext, as stored.
  const { file, partial, verification } = yield* resumeStored(request, undefined)
  const plaintext = `${path}.${randomSuffix()}.partial`
  yield* readStreamFrom(file, Number((yield* file.stat).size)).pipe(
    Cipher.decryptStreamUnverified(key),
    slice(request.options?.range, "read-all"),
    // `wx`: never write through a file or link someone placed at the temporary name.
    (bytes) => writeStream(deps.fs, plaintext, "wx", bytes),
    Effect.andThen(deps.fs.rename(plaintext, path)),
    Effect.onError(() => Effect.ignore(deps.fs.remove(plaintext, { force: true })))
  )
  yield* deps.fs.remove(partial)
  return verification
}, Effect.scoped)

/** A download into a temporary file beside `path`, renamed to `path` once whole (and, decrypting, once its tag checks). */
const downloadToFile = Effect.fnUntraced(function* ({ deps, plan, path, options }: FileRequest) {
  const { fs } = deps
  const { stream, report } = yield* content(deps, plan, options)
  const partial = `${path}.${randomSuffix()}.partial`
  const onProgress = options?.onProgress
  const onWritten = onProgress === undefined ? undefined : (bytesWritten: number) => onProgress({ bytesWritten })
  yield* stream.pipe(
    // `wx`: never write through a file or link someone placed at the temporary name.
    (bytes) => writeStream(fs, partial, "wx", bytes, WRITE_BYTES, onWritten),
    Effect.andThen(fs.rename(partial, path)),
    withinTransferTimeout(deps, plan),
    Effect.onError(() => Effect.ignore(fs.remove(partial, { force: true })))
  )
  return yield* report
})

/**
 * The content into the file at `path`, holding `<path>.lock` meanwhile: a second download into
 * the same path (in this process or another) fails with `DownloadInProgress`.
 */
export const toFile = Effect.fn("Download.toFile")(function* (
  deps: DownloadDeps,
  cid: string,
  path: string,
  options?: ToFileOptions
) {
  const plan = yield* planFor(deps, cid, "toFile", options)
  yield* lockTarget(deps.fs, path)
  const request = { deps, plan, path, options }
  if (options?.resume !== true) return yield* downloadToFile(request)
  if (options.decrypt !== undefined) return yield* resumeDecrypting(request, options.decrypt)
  return yield* resumeToFile(request)
}, Effect.scoped)
