import { createCipheriv, pbkdf2Sync } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import * as sdk from "@lighthouse-web3/sdk/dist/Lighthouse/uploadEncrypted/encryptionNode.js"
import { Arbitrary, Effect, Redacted, Schema } from "effect"
import { decrypt, encrypt } from "../../src/crypto/FileCipherWeb.ts"
import { deriveFileKey, HEADER_LENGTH, OVERHEAD, PBKDF2_ITERATIONS, SALT_LENGTH } from "../../src/crypto/FileFormat.ts"

const MASTER = "635aa83f11730c019aa3138e54876ea4541b8fca21e8104609ee6d699a475d59"
const OTHER = "1ae8e4343dd452658fe27fe101b44702c74ca3d7e7933e0408a5b5e4879b5f80"
const SALT = Uint8Array.from({ length: 16 }, (_, i) => i + 1)
const IV = Uint8Array.from({ length: 12 }, (_, i) => 0xa0 + i)
const text = (s: string) => new TextEncoder().encode(s)

// Derived once for the tests that are not about the key derivation itself.
const fileKey = await Effect.runPromise(deriveFileKey(MASTER, SALT))

const int = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
/** Array lengths are drawn explicitly: Arbitrary.array alone keeps them tiny over a default run. */
const arrayOf = <A>(item: Arbitrary.Arbitrary<A>, maxLength: number) =>
  int(0, maxLength).pipe(Arbitrary.flatMap((n) => Arbitrary.array(item, { minLength: n, maxLength: n })))
const bytes = (maxLength: number) => arrayOf(int(0, 255), maxLength).pipe(Arbitrary.map((a) => Uint8Array.from(a)))

describe("FileCipherWeb", () => {
  it.effect("matches an independent node:crypto computation of the documented format (default iterations)", () =>
    Effect.gen(function* () {
      assert.strictEqual(PBKDF2_ITERATIONS, 250_000)
      const plaintext = text("hello lighthouse")
      const key = pbkdf2Sync(Buffer.from(MASTER, "utf8"), SALT, 250_000, 32, "sha256")
      const cipher = createCipheriv("aes-256-gcm", key, IV)
      const expected = Buffer.concat([SALT, IV, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
      const ours = yield* encrypt(plaintext, yield* deriveFileKey(MASTER, SALT), { iv: IV })
      assert.deepStrictEqual(ours, new Uint8Array(expected))
      assert.strictEqual(ours.length, plaintext.length + OVERHEAD)
    })
  )

  it.effect("files encrypted here decrypt with the provider's SDK", () =>
    Effect.gen(function* () {
      const plaintext = text("encrypted by lighthouse-effect")
      const encrypted = yield* encrypt(plaintext, Redacted.make(MASTER))
      const theirs = yield* Effect.promise(() => sdk.decryptFile(encrypted, MASTER))
      assert.deepStrictEqual(new Uint8Array(theirs), plaintext)
    })
  )

  it.effect("files encrypted by the provider's SDK decrypt here", () =>
    Effect.gen(function* () {
      const plaintext = text("encrypted by @lighthouse-web3/sdk")
      const theirs = yield* Effect.promise(() => sdk.encryptFile(plaintext, MASTER))
      assert.deepStrictEqual(yield* decrypt(theirs, MASTER), plaintext)
      assert.deepStrictEqual(yield* decrypt(theirs, Redacted.make(MASTER)), plaintext)
    })
  )

  it.effect("a master key makes a fresh salt and IV per file; a FileKey keeps its salt", () =>
    Effect.gen(function* () {
      const a = yield* encrypt(text("same"), MASTER)
      const b = yield* encrypt(text("same"), MASTER)
      assert.notDeepEqual(a.subarray(0, HEADER_LENGTH), b.subarray(0, HEADER_LENGTH))
      const c = yield* encrypt(text("same"), fileKey)
      const d = yield* encrypt(text("same"), fileKey)
      assert.deepStrictEqual(c.subarray(0, SALT_LENGTH), SALT)
      assert.notDeepEqual(c.subarray(SALT_LENGTH, HEADER_LENGTH), d.subarray(SALT_LENGTH, HEADER_LENGTH))
      // A master key opens any of its files; a FileKey only those with its salt.
      assert.deepStrictEqual(yield* decrypt(a, MASTER), text("same"))
      assert.deepStrictEqual(yield* decrypt(c, MASTER), text("same"))
      assert.deepStrictEqual(yield* decrypt(d, fileKey), text("same"))
      assert.strictEqual((yield* Effect.flip(decrypt(a, fileKey)))._tag, "DecryptionFailed")
    })
  )

  it.effect("a wrong key fails with DecryptionFailed", () =>
    Effect.gen(function* () {
      const encrypted = yield* encrypt(text("secret"), fileKey)
      const error = yield* Effect.flip(decrypt(encrypted, yield* deriveFileKey(OTHER, SALT)))
      assert.strictEqual(error._tag, "DecryptionFailed")
      assert.strictEqual(
        error.message,
        "Decryption failed: the tag does not verify: wrong key, or the data was altered"
      )
      const salted = yield* Effect.flip(decrypt(encrypted, yield* deriveFileKey(MASTER)))
      assert.strictEqual(salted.reason, "the file's salt is not the one the key was derived with")
    })
  )

  it.effect("anything shorter than the 44 bytes of overhead fails with DecryptionFailed", () =>
    Effect.gen(function* () {
      const encrypted = yield* encrypt(new Uint8Array(0), fileKey)
      assert.strictEqual(encrypted.length, OVERHEAD)
      assert.deepStrictEqual(yield* decrypt(encrypted, fileKey), new Uint8Array(0))
      for (let n = 0; n < OVERHEAD; n++) {
        const error = yield* Effect.flip(decrypt(encrypted.subarray(0, n), fileKey))
        assert.strictEqual(error._tag, "DecryptionFailed")
      }
    })
  )

  it.effect.prop("round-trips any bytes", [bytes(300)], ([plaintext]) =>
    Effect.gen(function* () {
      const encrypted = yield* encrypt(plaintext, fileKey)
      assert.strictEqual(encrypted.length, plaintext.length + OVERHEAD)
      assert.deepStrictEqual(yield* decrypt(encrypted, fileKey), plaintext)
    })
  )

  it.effect.prop(
    "any flipped bit, in header, ciphertext or tag, fails with DecryptionFailed",
    [bytes(100), int(0, 1_000_000), int(0, 7)],
    ([plaintext, where, bit]) =>
      Effect.gen(function* () {
        const encrypted = yield* encrypt(plaintext, fileKey)
        // A changed salt means another key: derive from the master key then.
        const at = where % encrypted.length
        encrypted[at]! ^= 1 << bit
        const error = yield* Effect.flip(decrypt(encrypted, at < SALT_LENGTH ? MASTER : fileKey))
        assert.strictEqual(error._tag, "DecryptionFailed")
      }),
    { timeout: 120_000, arbitrary: { runs: 40 } }
  )
})
