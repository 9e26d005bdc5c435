/**
 * The provider's encrypted-file format (`FileFormat.ts`) with WebCrypto only, so it runs in
 * browsers, workers and Node alike. WebCrypto's AES-GCM is one-shot: {@link encrypt} and
 * {@link decrypt} take a whole file, and the streams here collect their input first (memory grows
 * with the file). Node targets stream in constant memory with `FileCipherNode.ts` instead; the
 * public `FileCipher` (`FileCipher.ts`) picks one of the two per platform.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { DecryptionFailed } from "../Errors.ts"
import {
  checkLength,
  type EncryptOptions,
  type FileKey,
  HEADER_LENGTH,
  IV_LENGTH,
  keyForHeader,
  type MasterKey,
  OVERHEAD,
  randomBytes,
  resolveFileKey,
  SALT_LENGTH,
  tagMismatch,
  tooShort
} from "./FileFormat.ts"

// WebCrypto's typings want ArrayBuffer-backed views; copy only when the input is not one.
const buffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes)

const importAesKey = (fileKey: FileKey, usage: "encrypt" | "decrypt") =>
  Effect.promise(() => crypto.subtle.importKey("raw", buffer(Redacted.value(fileKey.key)), "AES-GCM", false, [usage]))

// =============================================================================
// One-shot
// =============================================================================

/**
 * Encrypts a whole file in memory into the provider's layout. With a master key, a fresh salt
 * and key are made for this file; with a {@link FileKey}, its salt is used.
 */
export const encrypt = Effect.fn("FileCipher.encrypt")(function* (
  plaintext: Uint8Array,
  key: MasterKey | FileKey,
  options?: EncryptOptions
): Effect.fn.Return<Uint8Array> {
  const iv = options?.iv ?? randomBytes(IV_LENGTH)
  yield* checkLength("iv", iv, IV_LENGTH)
  const fileKey = yield* resolveFileKey(key)
  const aesKey = yield* importAesKey(fileKey, "encrypt")
  const sealed = yield* Effect.promise(() =>
    crypto.subtle.encrypt({ name: "AES-GCM", iv: buffer(iv) }, aesKey, buffer(plaintext))
  )
  const out = new Uint8Array(HEADER_LENGTH + sealed.byteLength)
  out.set(fileKey.salt, 0)
  out.set(iv, SALT_LENGTH)
  out.set(new Uint8Array(sealed), HEADER_LENGTH)
  return out
})

/**
 * Decrypts a whole file in the provider's layout. A wrong key, altered bytes or a truncated file
 * fail with `DecryptionFailed`; nothing unauthenticated is returned.
 */
export const decrypt = Effect.fn("FileCipher.decrypt")(function* (
  ciphertext: Uint8Array,
  key: MasterKey | FileKey
): Effect.fn.Return<Uint8Array, DecryptionFailed> {
  if (ciphertext.length < OVERHEAD) return yield* tooShort()
  const fileKey = yield* keyForHeader(key, ciphertext.subarray(0, SALT_LENGTH))
  const aesKey = yield* importAesKey(fileKey, "decrypt")
  const plain = yield* Effect.tryPromise({
    try: () =>
      crypto.subtle.decrypt(
        { name: "AES-GCM", iv: buffer(ciphertext.slice(SALT_LENGTH, HEADER_LENGTH)) },
        aesKey,
        buffer(ciphertext.subarray(HEADER_LENGTH))
      ),
    catch: tagMismatch
  })
  return new Uint8Array(plain)
})

// =============================================================================
// Streams over the one-shot cipher (the signatures of FileCipherNode's)
// =============================================================================

/**
 * Encrypts a plaintext stream into the provider's layout (`plaintext + 44` bytes) with
 * {@link encrypt}: the plaintext is collected first, and the file comes out as one chunk.
 */
export const encryptStream =
  (key: MasterKey | FileKey, options?: EncryptOptions) =>
  <E, R>(plaintext: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
    Stream.fromEffect(Effect.flatMap(Stream.mkUint8Array(plaintext), (bytes) => encrypt(bytes, key, options)))

/**
 * Decrypts a ciphertext stream with {@link decrypt}: the ciphertext is collected first, so,
 * unlike `FileCipherNode`'s, this stream emits nothing before the tag has verified. The name is
 * the shared one of both ciphers' streams.
 */
export const decryptStreamUnverified =
  (key: MasterKey | FileKey) =>
  <E, R>(ciphertext: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | DecryptionFailed, R> =>
    Stream.fromEffect(Effect.flatMap(Stream.mkUint8Array(ciphertext), (bytes) => decrypt(bytes, key)))
