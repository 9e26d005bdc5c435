/**
 * FileCipherWeb's streams pick the cipher at run time: in Node the streaming one, with the
 * provider's bytes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as FileCipher from "../../src/crypto/FileCipherWeb.ts"

const KEY = "2f1c5d7e9a0b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"

describe("FileCipherWeb streams", () => {
  it.effect("Node is detected; a stream encrypts into the one-shot layout and decrypts back", () =>
    Effect.gen(function* () {
      assert.isTrue(FileCipher.isNode)
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
