/**
 * The provider's encrypted-file format, with WebCrypto only so it runs in browsers and in Node
 * (the public `FileCipher`):
 *
 *     salt (16) ‖ IV (12) ‖ AES-256-GCM ciphertext ‖ GCM tag (16)
 *
 * The AES key is PBKDF2-HMAC-SHA-256 with 250 000 iterations over the UTF-8 bytes of the master
 * key's hex *text* (the 64 ASCII characters, not the 32 bytes they spell), salted with the
 * file's salt. There is no associated data. Files made here decrypt with the provider's SDK and
 * the other way round. WebCrypto's AES-GCM cannot stream: {@link encryptStream} and
 * {@link decryptStreamUnverified} use the streaming `FileCipherNode.ts` (same bytes, constant
 * memory) when the runtime is Node, and collect the bytes elsewhere.
 *
 * PBKDF2 is the expensive part (~100 ms), so a file's key is derived once, as a {@link FileKey},
 * which every function here and in `FileCipherNode.ts` also accepts in place of the master key.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { DecryptionFailed } from "../Errors.ts"

// =============================================================================
// Layout and constants
// =============================================================================

export const SALT_LENGTH = 16
export const IV_LENGTH = 12
export const TAG_LENGTH = 16
/** Salt and IV, in front of the ciphertext. */
export const HEADER_LENGTH = SALT_LENGTH + IV_LENGTH
/** Bytes an encrypted file has beyond its plaintext. */
export const OVERHEAD = HEADER_LENGTH + TAG_LENGTH
export const PBKDF2_ITERATIONS = 250_000

/** A master key in the provider's form (64-hex text), plain or redacted. */
export type MasterKey = string | Redacted.Redacted<string>

/** The AES-256 key of one file: PBKDF2 of a master key with this salt. */
export interface FileKey {
  readonly _tag: "FileKey"
  readonly salt: Uint8Array
  /** The 32 raw key bytes. */
  readonly key: Redacted.Redacted<Uint8Array>
}

export const isFileKey = (u: unknown): u is FileKey =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "FileKey"

// =============================================================================
// Internals shared with FileCipherNode.ts
// =============================================================================

/** @internal */
export const randomBytes = (length: number): Uint8Array<ArrayBuffer> => crypto.getRandomValues(new Uint8Array(length))

// WebCrypto's typings want ArrayBuffer-backed views; copy only when the input is not one.
const buffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes)

/** @internal */
export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/** @internal */
export const tagMismatch = () =>
  new DecryptionFailed({ reason: "the tag does not verify: wrong key, or the data was altered" })

/** @internal */
export const tooShort = () => new DecryptionFailed({ reason: `an encrypted file has at least ${OVERHEAD} bytes` })

/** @internal Dies on a salt or IV of the wrong length: that is a bug in the caller, not bad data. */
export const checkLength = (what: string, bytes: Uint8Array, length: number): Effect.Effect<void> =>
  bytes.length === length ? Effect.void : Effect.die(new RangeError(`${what} must be ${length} bytes`))

// =============================================================================
// Key derivation
// =============================================================================

/**
 * Derives a file's key from the master key: PBKDF2-HMAC-SHA-256, 250 000 iterations, over the
 * UTF-8 bytes of the master key text. A fresh random salt is drawn unless one is given (to
 * decrypt, or for known-answer tests).
 */
export const deriveFileKey = Effect.fn("FileCipher.deriveFileKey")(function* (
  masterKey: MasterKey,
  salt: Uint8Array = randomBytes(SALT_LENGTH)
): Effect.fn.Return<FileKey> {
  yield* checkLength("salt", salt, SALT_LENGTH)
  const password = new TextEncoder().encode(Redacted.isRedacted(masterKey) ? Redacted.value(masterKey) : masterKey)
  const bits = yield* Effect.promise(async () => {
    const base = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"])
    return crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt: buffer(salt), iterations: PBKDF2_ITERATIONS },
      base,
      256
    )
  })
  password.fill(0)
  return { _tag: "FileKey", salt: salt.slice(), key: Redacted.make(new Uint8Array(bits), { label: "FileKey" }) }
})

/** @internal The key of a file: the one given, or derived from the master key with `salt`. */
export const resolveFileKey = (key: MasterKey | FileKey, salt?: Uint8Array): Effect.Effect<FileKey> =>
  isFileKey(key) ? Effect.succeed(key) : deriveFileKey(key, salt)

/** @internal A `FileKey` is bound to its salt: a file with another salt needs another key. */
export const keyForHeader = (key: MasterKey | FileKey, salt: Uint8Array): Effect.Effect<FileKey, DecryptionFailed> =>
  isFileKey(key) && !equalBytes(key.salt, salt)
    ? Effect.fail(new DecryptionFailed({ reason: "the file's salt is not the one the key was derived with" }))
    : resolveFileKey(key, salt)

const importAesKey = (fileKey: FileKey, usage: "encrypt" | "decrypt") =>
  Effect.promise(() => crypto.subtle.importKey("raw", buffer(Redacted.value(fileKey.key)), "AES-GCM", false, [usage]))

// =============================================================================
// One-shot
// =============================================================================

/** Options of {@link encrypt} and of `FileCipherNode.encryptStream`. */
export interface EncryptOptions {
  /**
   * The 12-byte IV; random for each file (each run of a stream) by default. Only for
   * known-answer tests: reusing an IV with the same key breaks AES-GCM.
   */
  readonly iv?: Uint8Array | undefined
}

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
// Streams
// =============================================================================

/** Whether this runtime is Node (or one that implements its `node:crypto`). */
export const isNode: boolean =
  typeof globalThis.process !== "undefined" && typeof globalThis.process.versions?.node === "string"

// A dynamic import, so browser bundles never pull in `node:crypto`.
const loadNode = Effect.promise(() => import("./FileCipherNode.ts"))

/**
 * Encrypts a plaintext stream into the provider's layout (`plaintext + 44` bytes): in Node as a
 * stream in constant memory (`FileCipherNode.encryptStream`), elsewhere over the collected bytes.
 */
export const encryptStream =
  (key: MasterKey | FileKey, options?: EncryptOptions) =>
  <E, R>(plaintext: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
    isNode
      ? Stream.unwrap(Effect.map(loadNode, (node) => plaintext.pipe(node.encryptStream(key, options))))
      : Stream.unwrap(
          Effect.map(
            Effect.flatMap(Stream.mkUint8Array(plaintext), (bytes) => encrypt(bytes, key, options)),
            (out) => Stream.make(out)
          )
        )

/**
 * Decrypts a ciphertext stream. **Unverified** until the stream has ended without error: only
 * for callers that hold the output back until then (a temporary file, a buffer). In Node as a
 * stream (`FileCipherNode.decryptStreamUnverified`), elsewhere over the collected bytes (and then
 * verified before anything is emitted).
 */
export const decryptStreamUnverified =
  (key: MasterKey | FileKey) =>
  <E, R>(ciphertext: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | DecryptionFailed, R> =>
    isNode
      ? Stream.unwrap(Effect.map(loadNode, (node) => ciphertext.pipe(node.decryptStreamUnverified(key))))
      : Stream.unwrap(
          Effect.map(
            Effect.flatMap(Stream.mkUint8Array(ciphertext), (bytes) => decrypt(bytes, key)),
            (out) => Stream.make(out)
          )
        )
