/**
 * The public `FileCipher`: the format, the one-shot cipher and the streams of this platform. In
 * Node the package's `#stream-cipher` import resolves to the streaming `FileCipherNode.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { FileCipher } from "../../src/index.ts"

const KEY = "2f1c5d7e9a0b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"

describe("FileCipher", () => {
  it("keeps its public names", () => {
    assert.deepStrictEqual(Object.keys(FileCipher).sort(), [
      "HEADER_LENGTH",
      "IV_LENGTH",
      "OVERHEAD",
      "PBKDF2_ITERATIONS",
      "SALT_LENGTH",
      "TAG_LENGTH",
      "checkLength",
      "decrypt",
      "decryptStreamUnverified",
      "deriveFileKey",
      "encrypt",
      "encryptStream",
      "equalBytes",
      "isFileKey",
      "isNode",
      "keyForHeader",
      "randomBytes",
      "resolveFileKey",
      "tagMismatch",
      "tooShort"
    ])
  })

  it.effect("streams in Node: the header and the first ciphertext leave before the input has ended", () =>
    Effect.gen(function* () {
      assert.isTrue(FileCipher.isNode)
      // The one-shot web cipher would have to read the failure first.
      const open = Stream.make(new Uint8Array(1_000)).pipe(Stream.concat(Stream.fail("the input has not ended")))
      const first = yield* Stream.runCollect(open.pipe(FileCipher.encryptStream(KEY), Stream.take(2)))
      assert.deepStrictEqual(
        first.map((chunk) => chunk.length),
        [FileCipher.HEADER_LENGTH, 1_000]
      )
    })
  )

  it.effect("a stream encrypts into the one-shot layout and decrypts back", () =>
    Effect.gen(function* () {
      const plaintext = new Uint8Array(100_000).map((_, i) => i & 0xff)
      const pieces = Stream.fromIterable([
        plaintext.subarray(0, 7),
        plaintext.subarray(7, 60_000),
        plaintext.subarray(60_000)
      ])
      const sealed = yield* Stream.mkUint8Array(pieces.pipe(FileCipher.encryptStream(KEY)))
      assert.strictEqual(sealed.length, plaintext.length + FileCipher.OVERHEAD)
      assert.deepStrictEqual(yield* FileCipher.decrypt(sealed, KEY), plaintext)
      const opened = yield* Stream.mkUint8Array(Stream.make(sealed).pipe(FileCipher.decryptStreamUnverified(KEY)))
      assert.deepStrictEqual(opened, plaintext)
      const wrong = yield* Effect.flip(
        Stream.mkUint8Array(Stream.make(sealed).pipe(FileCipher.decryptStreamUnverified("1".repeat(64))))
      )
      assert.strictEqual(wrong._tag, "DecryptionFailed")
    })
  )
})
