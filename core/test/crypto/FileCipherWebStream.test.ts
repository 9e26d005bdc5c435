/**
 * The web path's streams (`FileCipherWeb.encryptStream`, `decryptStreamUnverified`) and the
 * AES-GCM under them (`StreamingGcm.ts`): the same bytes as `node:crypto`, as WebCrypto's
 * one-shot AES-GCM and as the Node stream, at every length around the 16-byte block and the
 * segment, however the input is cut.
 */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema, Stream } from "effect"
import * as NodeCipher from "../../src/crypto/FileCipherNode.ts"
import {
  decrypt,
  decryptStreamUnverified,
  decryptStreamUnverifiedIn,
  encrypt,
  encryptStream,
  encryptStreamIn,
  SEGMENT_LENGTH
} from "../../src/crypto/FileCipherWeb.ts"
import { deriveFileKey, HEADER_LENGTH, OVERHEAD, SALT_LENGTH, TAG_LENGTH } from "../../src/crypto/FileFormat.ts"
import * as Gcm from "../../src/crypto/StreamingGcm.ts"
import {
  collect,
  concat,
  cutInto,
  fileKey,
  IV,
  MASTER,
  nodeSealed,
  patterned,
  SALT,
  TAG_MISMATCH
} from "../support/webCipher.ts"

const OTHER = "1ae8e4343dd452658fe27fe101b44702c74ca3d7e7933e0408a5b5e4879b5f80"

const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => Number.parseInt(b, 16))

const int = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
/** Array lengths are drawn explicitly: Arbitrary.array alone keeps them tiny over a default run. */
const arrayOf = <A>(item: Arbitrary.Arbitrary<A>, maxLength: number) =>
  int(0, maxLength).pipe(Arbitrary.flatMap((n) => Arbitrary.array(item, { minLength: n, maxLength: n })))
const segments = Arbitrary.schema(Schema.Literals([16, 32, 48, 64]))
const sizes = arrayOf(int(0, 100), 6)

describe("StreamingGcm", () => {
  it.effect("matches the NIST SP 800-38D AES-256 test case without associated data (case 15)", () =>
    Effect.gen(function* () {
      const key = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
      const iv = hex("cafebabefacedbaddecaf888")
      const plaintext = hex(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" +
          "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
      )
      const gcm = yield* Gcm.start(key, iv)
      // Two segments: one block, then the other three.
      const sealed = concat([
        yield* Gcm.encryptSegment(gcm, plaintext.subarray(0, 16)),
        yield* Gcm.encryptSegment(gcm, plaintext.subarray(16))
      ])
      assert.deepStrictEqual(
        sealed,
        hex(
          "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa" +
            "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
        )
      )
      assert.deepStrictEqual(Gcm.tag(gcm), hex("b094dac5d93471bdec1a502270e3cc6c"))
    })
  )

  it.effect("dies on a segment after one that was not whole blocks", () =>
    Effect.gen(function* () {
      const gcm = yield* Gcm.start(new Uint8Array(32), IV)
      yield* Gcm.encryptSegment(gcm, new Uint8Array(20))
      const exit = yield* Effect.exit(Gcm.encryptSegment(gcm, new Uint8Array(16)))
      assert.isTrue(
        exit._tag === "Failure" && String(exit.cause).includes("a segment after one that was not whole blocks")
      )
    })
  )

  it.effect("the keystream wraps its low 32 bits as WebCrypto's AES-CTR with length 32, from any input offset", () =>
    Effect.gen(function* () {
      const key = new Uint8Array(patterned(32, 5))
      // 100 bytes from 3 blocks before the wrap: the counter runs 2³²−3 … 2³²−1, 0, 1, 2, 3.
      const counter = 2 ** 32 - 3
      const data = patterned(101, 9).subarray(1)
      const block = new Uint8Array(16)
      block.set(IV, 0)
      new DataView(block.buffer).setUint32(12, counter, false)
      const expected = yield* Effect.promise(async () => {
        const aesKey = await crypto.subtle.importKey("raw", key, "AES-CTR", false, ["encrypt"])
        return new Uint8Array(
          await crypto.subtle.encrypt({ name: "AES-CTR", counter: block, length: 32 }, aesKey, data.slice())
        )
      })
      assert.deepStrictEqual(Gcm.ctr32(key, IV, counter, data), expected)
    })
  )
})

describe("FileCipherWeb streams", () => {
  it.effect("every length around the block and the segment, cut every way, gives node:crypto's bytes", () =>
    Effect.gen(function* () {
      const segment = 32
      for (let n = 0; n <= 4 * segment + TAG_LENGTH + 1; n++) {
        const plaintext = patterned(n, n)
        const expected = nodeSealed(plaintext)
        for (const cut of [[], [1], [15, 17], [segment], [segment + 1, 0, 3], [segment - 1]]) {
          const sealed = yield* collect(cutInto(plaintext, cut).pipe(encryptStreamIn(segment, fileKey, { iv: IV })))
          assert.deepStrictEqual(sealed, expected, `encrypting ${n} bytes cut ${cut}`)
          const opened = yield* collect(cutInto(sealed, cut).pipe(decryptStreamUnverifiedIn(segment, fileKey)))
          assert.deepStrictEqual(opened, plaintext, `decrypting ${n} bytes cut ${cut}`)
        }
      }
    })
  )

  it.effect.prop(
    "equal the one-shot WebCrypto bytes and the Node stream's, and round-trip, for any cut and segment",
    [int(0, 400), segments, sizes, sizes],
    ([length, segment, plainCuts, sealedCuts]) =>
      Effect.gen(function* () {
        const plaintext = patterned(length, segment + length)
        const sealed = yield* collect(cutInto(plaintext, plainCuts).pipe(encryptStreamIn(segment, fileKey, { iv: IV })))
        assert.deepStrictEqual(sealed, yield* encrypt(plaintext, fileKey, { iv: IV }))
        assert.deepStrictEqual(
          sealed,
          yield* collect(cutInto(plaintext, plainCuts).pipe(NodeCipher.encryptStream(fileKey, { iv: IV })))
        )
        const opened = yield* collect(cutInto(sealed, sealedCuts).pipe(decryptStreamUnverifiedIn(segment, fileKey)))
        assert.deepStrictEqual(opened, plaintext)
      }),
    { timeout: 60_000, arbitrary: { runs: 200 } }
  )

  it.effect.prop(
    "any flipped bit fails at the end with DecryptionFailed, and the last segment is withheld",
    [int(0, 300), segments, int(0, 1_000_000), int(0, 7), sizes],
    ([length, segment, where, bit, cut]) =>
      Effect.gen(function* () {
        const plaintext = patterned(length, 3)
        const sealed = yield* encrypt(plaintext, fileKey, { iv: IV })
        const at = HEADER_LENGTH + (where % (sealed.length - HEADER_LENGTH))
        sealed[at]! ^= 1 << bit
        const emitted: Array<Uint8Array> = []
        const error = yield* Effect.flip(
          cutInto(sealed, cut).pipe(
            decryptStreamUnverifiedIn(segment, fileKey),
            Stream.runForEach((chunk) => Effect.sync(() => emitted.push(chunk)))
          )
        )
        assert.strictEqual(error.message, TAG_MISMATCH)
        const released = concat(emitted)
        // Whole segments before the last only, and those as deciphered (CTR: one flipped bit each).
        assert.strictEqual(released.length % segment, 0)
        assert.isBelow(released.length, Math.max(length, 1))
        if (length <= segment) assert.strictEqual(released.length, 0)
      }),
    { timeout: 60_000, arbitrary: { runs: 150 } }
  )

  it.effect("a file up to one segment is verified before any of it is released", () =>
    Effect.gen(function* () {
      const sealed = yield* encrypt(patterned(64), fileKey, { iv: IV })
      const emitted: Array<Uint8Array> = []
      const error = yield* Effect.flip(
        cutInto(sealed, [7]).pipe(
          decryptStreamUnverifiedIn(64, yield* deriveFileKey(OTHER, SALT)),
          Stream.runForEach((chunk) => Effect.sync(() => emitted.push(chunk)))
        )
      )
      assert.strictEqual(error.message, TAG_MISMATCH)
      assert.deepStrictEqual(emitted, [])
    })
  )

  it.effect("truncated files fail: below the overhead as too short, beyond it at the tag", () =>
    Effect.gen(function* () {
      const sealed = yield* encrypt(patterned(100), fileKey, { iv: IV })
      for (let n = 0; n < sealed.length; n++) {
        const error = yield* Effect.flip(
          collect(cutInto(sealed.subarray(0, n), [9]).pipe(decryptStreamUnverifiedIn(32, fileKey)))
        )
        assert.strictEqual(
          error.message,
          n < OVERHEAD ? `Decryption failed: an encrypted file has at least ${OVERHEAD} bytes` : TAG_MISMATCH,
          `${n} bytes`
        )
      }
    })
  )

  it.effect("a master key derives the file's key from its salt; a FileKey with another salt is refused", () =>
    Effect.gen(function* () {
      const plaintext = patterned(150)
      const sealed = yield* collect(cutInto(plaintext, [40]).pipe(encryptStreamIn(32, MASTER)))
      assert.notDeepEqual(sealed.subarray(0, SALT_LENGTH), SALT)
      assert.deepStrictEqual(yield* decrypt(sealed, MASTER), plaintext)
      assert.deepStrictEqual(
        yield* collect(cutInto(sealed, [33]).pipe(decryptStreamUnverifiedIn(32, MASTER))),
        plaintext
      )
      const error = yield* Effect.flip(collect(Stream.make(sealed).pipe(decryptStreamUnverifiedIn(32, fileKey))))
      assert.strictEqual(error.reason, "the file's salt is not the one the key was derived with")
    })
  )

  it.effect("at the real segment length, output starts before the input has all been read", () =>
    Effect.gen(function* () {
      const chunk = 64 * 1024
      const total = 3 * SEGMENT_LENGTH + 5
      const plaintext = patterned(total, 9)
      let pulled = 0
      const source = cutInto(plaintext, [chunk]).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
      const pulledAtOutput: Array<number> = []
      const sealedParts: Array<Uint8Array> = []
      yield* source.pipe(
        encryptStream(fileKey, { iv: IV }),
        Stream.runForEach((part) =>
          Effect.sync(() => {
            sealedParts.push(part)
            pulledAtOutput.push(pulled)
          })
        )
      )
      const sealed = concat(sealedParts)
      assert.deepStrictEqual(sealed, nodeSealed(plaintext))
      // The header at once, then a segment's ciphertext as soon as a chunk beyond it is in.
      const perSegment = SEGMENT_LENGTH / chunk
      assert.deepStrictEqual(pulledAtOutput.slice(0, 3), [0, perSegment + 1, 2 * perSegment + 1])
      const openedParts: Array<Uint8Array> = []
      pulled = 0
      const opened = cutInto(sealed, [chunk]).pipe(
        Stream.tap(() => Effect.sync(() => pulled++)),
        decryptStreamUnverified(fileKey),
        Stream.tap(() => Effect.sync(() => pulledAtOutput.push(pulled)))
      )
      pulledAtOutput.length = 0
      yield* Stream.runForEach(opened, (part) => Effect.sync(() => openedParts.push(part)))
      assert.deepStrictEqual(concat(openedParts), plaintext)
      assert.deepStrictEqual(pulledAtOutput.slice(0, 2), [perSegment + 1, 2 * perSegment + 1])
      assert.deepStrictEqual(
        openedParts.map((p) => p.length),
        [SEGMENT_LENGTH, SEGMENT_LENGTH, SEGMENT_LENGTH, 5]
      )
    })
  )

  it.effect("an IV of the wrong length is a defect", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        collect(Stream.make(patterned(3)).pipe(encryptStream(fileKey, { iv: new Uint8Array(8) })))
      )
      assert.isTrue(exit._tag === "Failure" && String(exit.cause).includes("iv must be 12 bytes"))
    })
  )
})
