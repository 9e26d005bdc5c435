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
import { type Cid, parseCid } from "../schema/Cid.ts"
import { slice } from "../verify/Retrieval.ts"
import { content, type DownloadDeps, gatewayOf, resolveKey } from "./Content.ts"
import type { Decryption, DecryptOptions, ToFileOptions, Retrieved } from "./Models.ts"
import { readStreamFrom, writeStream, writeStreamTo } from "./FileWrites.ts"
import { checkBeforePublish, prepareResume } from "./Resume.ts"
import { lockTarget } from "./TargetLock.ts"

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
 * The stored bytes of `cid` into `partial` after its verified prefix (from an existing file at
 * `adopt` when there is no `partial`), under the transfer time-out, written through the file
 * opened for the scope (never through a link at its name); the partial file stays when the
 * download fails, with every verified byte it got. Once whole and verified, it is checked again
 * as a whole against the CID (its size and every block) before anything is published. Returns the
 * open file and the report.
 */
const resumeStored = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: Cid,
  adopt: string | undefined,
  partial: string,
  stored: DecryptOptions
) {
  const { file, from } = yield* prepareResume(deps, cid, adopt, partial, stored)
  const { stream, report } = yield* content(deps, cid, from === 0 ? stored : { ...stored, range: { offset: from } })
  yield* writeStreamTo(file, stream).pipe(
    Effect.timeoutOrElse({ duration: deps.hosts.config.transferTimeout, orElse: timedOut(deps, stored) })
  )
  const verification = yield* report
  // Unverified bytes (asked for by name) have nothing to be checked against.
  if (verification.verified) yield* checkBeforePublish(deps, cid, partial, file, stored)
  return { file, verification }
})

/**
 * `toFile` of a plain file going on from `<path>.partial` (or an existing file at `path`) after
 * its verified prefix: the partial file becomes the target once whole.
 */
const resumeToFile = Effect.fnUntraced(function* (deps: DownloadDeps, cid: Cid, path: string, options: ToFileOptions) {
  const partial = `${path}.partial`
  const { verification } = yield* resumeStored(deps, cid, path, partial, options)
  yield* deps.fs.rename(partial, path)
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
const resumeDecrypting = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: Cid,
  path: string,
  { decrypt, range, resume: _, ...stored }: ToFileOptions,
  decryption: Decryption
) {
  const { fs } = deps
  // Before downloading: without the key there is no point fetching the bytes.
  const key = yield* resolveKey(deps, cid, decryption)
  const partial = `${path}.partial`
  // `stored` lacks `decrypt`, `range` and `resume`: the whole ciphertext is fetched as stored.
  const { file, verification } = yield* resumeStored(deps, cid, undefined, partial, stored)
  const plaintext = `${path}.${randomSuffix()}.partial`
  yield* readStreamFrom(file, Number((yield* file.stat).size)).pipe(
    Cipher.decryptStreamUnverified(key),
    slice(range, "read-all"),
    // `wx`: never write through a file or link someone placed at the temporary name.
    (bytes) => writeStream(fs, plaintext, "wx", bytes),
    Effect.andThen(fs.rename(plaintext, path)),
    Effect.onError(() => Effect.ignore(fs.remove(plaintext, { force: true })))
  )
  yield* fs.remove(partial)
  return verification
}, Effect.scoped)

/** A plain download into a temporary file beside `path`, renamed to `path` once whole. */
const downloadToFile = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: string,
  path: string,
  options: ToFileOptions | undefined
) {
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
  const valid = yield* parseCid(cid)
  yield* lockTarget(deps.fs, path)
  if (options?.resume === true && options.decrypt !== undefined) {
    return yield* resumeDecrypting(deps, valid, path, options, options.decrypt)
  }
  if (options?.resume === true && options.range === undefined) return yield* resumeToFile(deps, valid, path, options)
  return yield* downloadToFile(deps, valid, path, options)
}, Effect.scoped)
