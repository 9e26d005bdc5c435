/**
 * The provider's encrypted-file format, shared by both ciphers (`FileCipherWeb.ts`, one-shot with
 * WebCrypto; `FileCipherNode.ts`, streams with `node:crypto`), which import it and not each other:
 *
 *     salt (16) ‖ IV (12) ‖ AES-256-GCM ciphertext ‖ GCM tag (16)
 *
 * The AES key is PBKDF2-HMAC-SHA-256 with 250 000 iterations over the UTF-8 bytes of the master
 * key's hex *text* (the 64 ASCII characters, not the 32 bytes they spell), salted with the
 * file's salt. There is no associated data. Files made here decrypt with the provider's SDK and
 * the other way round.
 *
 * PBKDF2 is the expensive part (~100 ms), so a file's key is derived once, as a {@link FileKey},
 * which every cipher function also accepts in place of the master key. The derivation uses
 * WebCrypto, which every runtime has (Node included).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
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

/** Options of the encrypting functions of both ciphers. */
export interface EncryptOptions {
  /**
   * The 12-byte IV; random for each file (each run of a stream) by default. Only for
   * known-answer tests: reusing an IV with the same key breaks AES-GCM.
   */
  readonly iv?: Uint8Array | undefined
}

// =============================================================================
// Internals shared by both ciphers
// =============================================================================

/** @internal */
export const randomBytes = (length: number): Uint8Array<ArrayBuffer> => crypto.getRandomValues(new Uint8Array(length))

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
  // A copy the key keeps, and an ArrayBuffer-backed view as WebCrypto's typings want.
  const ownSalt = salt.slice()
  const password = new TextEncoder().encode(Redacted.isRedacted(masterKey) ? Redacted.value(masterKey) : masterKey)
  const bits = yield* Effect.promise(async () => {
    const base = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"])
    return crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt: ownSalt, iterations: PBKDF2_ITERATIONS },
      base,
      256
    )
  })
  password.fill(0)
  return { _tag: "FileKey", salt: ownSalt, key: Redacted.make(new Uint8Array(bits), { label: "FileKey" }) }
})

/** @internal The key of a file: the one given, or derived from the master key with `salt`. */
export const resolveFileKey = (key: MasterKey | FileKey, salt?: Uint8Array): Effect.Effect<FileKey> =>
  isFileKey(key) ? Effect.succeed(key) : deriveFileKey(key, salt)

/** @internal A `FileKey` is bound to its salt: a file with another salt needs another key. */
export const keyForHeader = (key: MasterKey | FileKey, salt: Uint8Array): Effect.Effect<FileKey, DecryptionFailed> =>
  isFileKey(key) && !equalBytes(key.salt, salt)
    ? Effect.fail(new DecryptionFailed({ reason: "the file's salt is not the one the key was derived with" }))
    : resolveFileKey(key, salt)
