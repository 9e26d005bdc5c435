/**
 * The provider's encrypted-file format as streams, for Node (`node:crypto`), so a file of any
 * size is encrypted and decrypted in constant memory. The bytes are exactly those of
 * `FileCipher.encrypt` for the same key and IV, and the key is derived once per file.
 *
 * Kept apart from `FileCipher.ts` so browser bundles never pull in `node:crypto`.
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
import { Array as Arr, Cause, Effect, FileSystem, Pull, Redacted, Stream } from "effect"
import type { PlatformError } from "effect/PlatformError"
import { DecryptionFailed } from "../Errors.ts"
import {
  checkLength,
  type FileKey,
  HEADER_LENGTH,
  IV_LENGTH,
  keyForHeader,
  type MasterKey,
  OVERHEAD,
  randomBytes,
  resolveFileKey,
  SALT_LENGTH,
  TAG_LENGTH
} from "./FileCipher.ts"

// A Buffer view as a plain Uint8Array (same memory), so consumers see one type.
const plain = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

const concatBytes = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

const tagMismatch = () =>
  new DecryptionFailed({ reason: "the tag does not verify: wrong key, or the data was altered" })
const tooShort = () => new DecryptionFailed({ reason: `an encrypted file has at least ${OVERHEAD} bytes` })

/** Options of {@link encryptStream}. */
export interface EncryptStreamOptions {
  /**
   * The 12-byte IV; random for each run of the stream by default. Only for known-answer tests:
   * reusing an IV with the same key breaks AES-GCM.
   */
  readonly iv?: Uint8Array | undefined
}

/**
 * Encrypts a byte stream into the provider's layout: the 28-byte header first, then ciphertext
 * chunk for chunk, then the tag. Each run of the resulting stream is a new file: with a master
 * key, a new salt and key; in every case a new IV (unless one is injected).
 */
export const encryptStream =
  (key: MasterKey | FileKey, options?: EncryptStreamOptions) =>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
    Stream.transformPull(self, (pull) =>
      Effect.gen(function* () {
        const iv = options?.iv ?? randomBytes(IV_LENGTH)
        yield* checkLength("iv", iv, IV_LENGTH)
        const fileKey = yield* resolveFileKey(key)
        const cipher = createCipheriv("aes-256-gcm", Redacted.value(fileKey.key), iv)
        let header: Uint8Array | undefined = concatBytes(fileKey.salt, iv)
        let finished = false
        const loop: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, E, void> = Effect.flatMap(pull, (chunks) => {
          const out: Array<Uint8Array> = []
          if (header !== undefined) {
            out.push(header)
            header = undefined
          }
          for (const chunk of chunks) if (chunk.length > 0) out.push(plain(cipher.update(chunk)))
          return Arr.isArrayNonEmpty(out) ? Effect.succeed(out) : loop
        })
        return Pull.catchDone(
          Effect.suspend(() => (finished ? Cause.done() : loop)),
          () => {
            if (finished) return Cause.done()
            finished = true
            const last = concatBytes(plain(cipher.final()), plain(cipher.getAuthTag()))
            // An empty input still makes a file: header and tag.
            return Effect.succeed(Arr.of(header === undefined ? last : concatBytes(header, last)))
          }
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
 * {@link decryptFileToPath} does) or use the one-shot `FileCipher.decrypt`.
 */
export const decryptStreamUnverified =
  (key: MasterKey | FileKey) =>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | DecryptionFailed, R> =>
    Stream.transformPull(self, (pull) =>
      Effect.sync(() => {
        let head: Uint8Array = new Uint8Array(0)
        let decipher: DecipherGCM | undefined
        // The last 16 bytes seen so far: the tag, if the stream ends now.
        let tail: Uint8Array = new Uint8Array(0)
        let finished = false

        const feed = (chunk: Uint8Array, out: Array<Uint8Array>) => {
          if (chunk.length >= TAG_LENGTH) {
            if (tail.length > 0) out.push(plain(decipher!.update(tail)))
            const cut = chunk.length - TAG_LENGTH
            if (cut > 0) out.push(plain(decipher!.update(chunk.subarray(0, cut))))
            tail = chunk.slice(cut)
          } else if (chunk.length > 0) {
            const joined = concatBytes(tail, chunk)
            const cut = Math.max(0, joined.length - TAG_LENGTH)
            if (cut > 0) out.push(plain(decipher!.update(joined.subarray(0, cut))))
            tail = joined.subarray(cut)
          }
        }

        const start = (header: Uint8Array) =>
          Effect.map(keyForHeader(key, header.subarray(0, SALT_LENGTH)), (fileKey) => {
            decipher = createDecipheriv("aes-256-gcm", Redacted.value(fileKey.key), header.slice(SALT_LENGTH), {
              authTagLength: TAG_LENGTH
            })
          })

        const consume = (
          chunks: ReadonlyArray<Uint8Array>
        ): Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, E | DecryptionFailed, void> => {
          const out: Array<Uint8Array> = []
          for (let i = 0; i < chunks.length; i++) {
            const chunk = chunks[i]!
            if (decipher !== undefined) {
              feed(chunk, out)
              continue
            }
            // Still reading the header: the key needs the salt, the decipher the IV.
            const need = HEADER_LENGTH - head.length
            head = concatBytes(head, chunk.subarray(0, need))
            if (head.length < HEADER_LENGTH) continue
            const rest = [chunk.subarray(need), ...chunks.slice(i + 1)]
            return Effect.flatMap(start(head), () => consume(rest))
          }
          return Arr.isArrayNonEmpty(out) ? Effect.succeed(out) : loop
        }

        const loop: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, E | DecryptionFailed, void> = Effect.flatMap(
          pull,
          consume
        )

        return Pull.catchDone(
          Effect.suspend(() => (finished ? Cause.done() : loop)),
          (): Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, DecryptionFailed, void> => {
            if (finished) return Cause.done()
            finished = true
            if (decipher === undefined || tail.length < TAG_LENGTH) return Effect.fail(tooShort())
            const d = decipher
            d.setAuthTag(tail)
            return Effect.flatMap(Effect.try({ try: () => plain(d.final()), catch: tagMismatch }), (last) =>
              last.length > 0 ? Effect.succeed(Arr.of(last)) : Cause.done()
            )
          }
        )
      })
    )

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
