/**
 * The provider's encrypted-file format (`FileFormat.ts`) as streams, for Node (`node:crypto`),
 * so a file of any size is encrypted and decrypted in constant memory. The bytes are exactly
 * those of `FileCipherWeb.encrypt` for the same key and IV, and the key is derived once per file.
 *
 * Only Node targets reach this module (`lighthouse-effect/node`, and the public `FileCipher`'s
 * streams through the package's `#stream-cipher` import under the `node` condition), so browser
 * and worker bundles never hold `node:crypto`.
 *
 * AES-GCM authenticates the whole file with one tag at its end, so a decrypting stream can only
 * know the data is genuine once it has ended. {@link decryptStreamUnverified} says so in its
 * name; {@link decryptFileToPath} is the safe form: it writes to a temporary file beside the
 * target and renames it only after the tag verifies, so the target path never holds
 * unauthenticated plaintext.
 *
 * @since 0.1.0
 */
import { createCipheriv, createDecipheriv, type DecipherGCM } from "node:crypto"
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import * as Pull from "effect/Pull"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { DecryptionFailed } from "../Errors.ts"
import { markOwned } from "../internal/OwnedBytes.ts"
import {
  checkLength,
  type EncryptOptions,
  type FileKey,
  HEADER_LENGTH,
  IV_LENGTH,
  keyForHeader,
  type MasterKey,
  randomBytes,
  resolveFileKey,
  SALT_LENGTH,
  TAG_LENGTH,
  tagMismatch,
  tooShort
} from "./FileFormat.ts"

// A Buffer view as a plain Uint8Array (same memory), so consumers see one type.
const plain = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

const concatBytes = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

// GCM's `final` gives no bytes: the common case needs no copy.
const concatOrKeep = (a: Uint8Array, b: Uint8Array): Uint8Array => (b.length === 0 ? a : concatBytes(a, b))

/**
 * Encrypts a byte stream into the provider's layout: the 28-byte header first, then ciphertext
 * chunk for chunk, then the tag. Each run of the resulting stream is a new file: with a master
 * key, a new salt and key; in every case a new IV (unless one is injected).
 */
export const encryptStream =
  (key: MasterKey | FileKey, options?: EncryptOptions) =>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const iv = options?.iv ?? randomBytes(IV_LENGTH)
        yield* checkLength("iv", iv, IV_LENGTH)
        const fileKey = yield* resolveFileKey(key)
        const cipher = createCipheriv("aes-256-gcm", Redacted.value(fileKey.key), iv)
        // A plain map in between, so a chunk costs little more than `cipher.update` itself.
        return Stream.succeed(concatBytes(fileKey.salt, iv)).pipe(
          // Each piece made for this stream's reader alone (an upload may free it once sent).
          Stream.concat(
            Stream.mapArray(self, (chunks) => Arr.map(chunks, (chunk) => markOwned(plain(cipher.update(chunk)))))
          ),
          Stream.concat(Stream.sync(() => concatBytes(plain(cipher.final()), plain(cipher.getAuthTag()))))
        )
      })
    )

/**
 * Decrypts a byte stream in the provider's layout, chunk for chunk; the key is derived once,
 * when the 16-byte salt has arrived.
 *
 * **Gotchas** The chunks it emits are NOT authenticated until the stream ends without error: a
 * wrong key or altered data fails it with `DecryptionFailed` only at the end, after the
 * plaintext has gone downstream. Write them somewhere provisional (as
 * {@link decryptFileToPath} does) or use the one-shot `FileCipher.decrypt`. The output lags the
 * input by one chunk (the last one may hold the tag). A chunk may be empty when the input comes
 * in pieces smaller than the tag.
 */
export const decryptStreamUnverified =
  (key: MasterKey | FileKey) =>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | DecryptionFailed, R> =>
    Stream.suspend(() => {
      let decipher: DecipherGCM | undefined
      // Bytes not yet deciphered, whose last 16 are the tag if the stream ends now. A whole chunk
      // is held back rather than its last 16 bytes cut off: one `update` per chunk, no copies.
      let held: Uint8Array = new Uint8Array(0)

      const feed = (chunk: Uint8Array, out: Array<Uint8Array>) => {
        if (chunk.length >= TAG_LENGTH) {
          // Made for this stream's reader alone: a download's file writer frees it once written.
          if (held.length > 0) out.push(markOwned(plain(decipher!.update(held))))
          held = chunk
        } else if (chunk.length > 0) {
          const joined = concatBytes(held, chunk)
          const cut = joined.length - TAG_LENGTH
          if (cut > 0) out.push(plain(decipher!.update(joined.subarray(0, cut))))
          held = cut > 0 ? joined.subarray(cut) : joined
        }
      }
      const decryptChunks = (chunks: ReadonlyArray<Uint8Array>): Arr.NonEmptyReadonlyArray<Uint8Array> => {
        const out: Array<Uint8Array> = []
        for (const chunk of chunks) feed(chunk, out)
        return Arr.isArrayNonEmpty(out) ? out : [new Uint8Array(0)]
      }

      // Reads the 28-byte header (the key needs the salt, the decipher the IV), then decrypts
      // with a plain map over the pulls.
      const body = Stream.transformPull(self, (pull) =>
        Effect.gen(function* () {
          let head: Uint8Array = new Uint8Array(0)
          let rest: Array<Uint8Array> = []
          while (head.length < HEADER_LENGTH) {
            const chunks = yield* Pull.catchDone(pull, () => Effect.succeed(undefined))
            if (chunks === undefined) return Cause.done()
            for (const [i, chunk] of chunks.entries()) {
              const need = HEADER_LENGTH - head.length
              if (need > 0) head = concatBytes(head, chunk.subarray(0, need))
              if (head.length === HEADER_LENGTH) {
                rest = [chunk.subarray(need), ...chunks.slice(i + 1)]
                break
              }
            }
          }
          const fileKey = yield* keyForHeader(key, head.subarray(0, SALT_LENGTH))
          decipher = createDecipheriv("aes-256-gcm", Redacted.value(fileKey.key), head.slice(SALT_LENGTH), {
            authTagLength: TAG_LENGTH
          })
          const first = decryptChunks(rest)
          let started = false
          const steady = Effect.map(pull, decryptChunks)
          return Effect.suspend(() => {
            if (started) return steady
            started = true
            return Effect.succeed(first)
          })
        })
      )

      const end = Stream.suspend(() => {
        if (decipher === undefined || held.length < TAG_LENGTH) return Stream.fail(tooShort())
        const cut = held.length - TAG_LENGTH
        const last = cut > 0 ? plain(decipher.update(held.subarray(0, cut))) : new Uint8Array(0)
        decipher.setAuthTag(held.subarray(cut))
        const final = Effect.try({ try: () => concatOrKeep(last, plain(decipher!.final())), catch: tagMismatch })
        return Stream.fromEffect(final).pipe(Stream.filter((bytes) => bytes.length > 0))
      })

      return Stream.concat(body, end)
    })

/**
 * Decrypts a file (a path, or a byte stream) into `outPath`, which appears only once the whole
 * file has been authenticated. The plaintext goes to a temporary file beside `outPath` (same
 * file system, so the rename is atomic) that is removed on any failure or interruption.
 *
 * **Gotchas** An existing file at `outPath` is replaced, but only by verified plaintext.
 */
export const decryptFileToPath = <E = never, R = never>(
  input: string | Stream.Stream<Uint8Array, E, R>,
  outPath: string,
  key: MasterKey | FileKey
): Effect.Effect<void, E | DecryptionFailed | PlatformError, R | FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const source: Stream.Stream<Uint8Array, E | PlatformError, R> = typeof input === "string" ? fs.stream(input) : input
    const suffix = Array.from(randomBytes(6), (b) => b.toString(16).padStart(2, "0")).join("")
    const partial = `${outPath}.${suffix}.partial`
    yield* source.pipe(
      decryptStreamUnverified(key),
      // `wx`: never write through a file or link someone placed at the temporary name.
      Stream.run(fs.sink(partial, { flag: "wx" })),
      Effect.andThen(fs.rename(partial, outPath)),
      Effect.onError(() => Effect.ignore(fs.remove(partial, { force: true })))
    )
  }).pipe(Effect.withSpan("FileCipherNode.decryptFileToPath"))
