import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, FileSystem, Schema, Stream } from "effect"
import { afterEach, vi } from "vitest"
import { decryptFileToPath, decryptStreamUnverified, encryptStream } from "../../src/crypto/FileCipherNode.ts"
import { decrypt, encrypt } from "../../src/crypto/FileCipherWeb.ts"
import { deriveFileKey, HEADER_LENGTH, OVERHEAD } from "../../src/crypto/FileFormat.ts"
import { collect } from "../support/webCipher.ts"

const MASTER = "554f886019b74852ab679258eb3cddf72f12f84dd6a946f8afc4283e48cc9467"
const SALT = Uint8Array.from({ length: 16 }, (_, i) => 0x10 + i)
const IV = Uint8Array.from({ length: 12 }, (_, i) => 0xc0 + i)

// Derived once for the tests that are not about the key derivation itself.
const fileKey = await Effect.runPromise(deriveFileKey(MASTER, SALT))

const randomBytes = (n: number): Uint8Array => {
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i += 65_536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65_536)))
  return out
}

/**
 * `bytes` cut at `cuts` (taken modulo its length, empty pieces included), `perPull` pieces at a
 * time: a file stream hands over one chunk per pull, other streams batch them.
 */
const chunked = (bytes: Uint8Array, cuts: ReadonlyArray<number>, perPull = 1) => {
  const at = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % (bytes.length + 1))))].sort((a, b) => a - b)
  const bounds = [0, ...at, bytes.length]
  return Stream.fromIterable(bounds.slice(1).map((end, i) => bytes.subarray(bounds[i]!, end))).pipe(
    Stream.rechunk(perPull)
  )
}

/** Fixed-size chunks, one per pull. */
const chunksOf = (bytes: Uint8Array, size: number) =>
  Stream.fromIterable(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
  ).pipe(Stream.rechunk(1))

const int = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
/** Array lengths are drawn explicitly: Arbitrary.array alone keeps them tiny over a default run. */
const arrayOf = <A>(item: Arbitrary.Arbitrary<A>, maxLength: number) =>
  int(0, maxLength).pipe(Arbitrary.flatMap((n) => Arbitrary.array(item, { minLength: n, maxLength: n })))
const bytes = (maxLength: number) => arrayOf(int(0, 255), maxLength).pipe(Arbitrary.map((a) => Uint8Array.from(a)))
const cuts = arrayOf(int(0, 1_000_000), 12)

afterEach(() => {
  vi.restoreAllMocks()
})

describe("FileCipherNode", () => {
  describe("encryptStream", () => {
    it.effect.each([0, 1, 15, 16, 17, 3 * 1024 * 1024 + 5])("gives the one-shot bytes for %s bytes", (size) =>
      Effect.gen(function* () {
        const plaintext = randomBytes(size)
        const oneShot = yield* encrypt(plaintext, fileKey, { iv: IV })
        for (const chunkSize of [1_000, 65_536, 1_048_576]) {
          if (size > 100_000 || chunkSize === 1_000) {
            const streamed = yield* collect(chunksOf(plaintext, chunkSize).pipe(encryptStream(fileKey, { iv: IV })))
            assert.deepStrictEqual(streamed, oneShot)
          }
        }
        const single = yield* collect(Stream.make(plaintext).pipe(encryptStream(fileKey, { iv: IV })))
        assert.deepStrictEqual(single, oneShot)
      })
    )

    it.effect.prop(
      "gives the one-shot bytes however the input is cut and batched",
      [bytes(200), cuts, int(1, 4)],
      ([plaintext, at, perPull]) =>
        Effect.gen(function* () {
          const streamed = yield* collect(chunked(plaintext, at, perPull).pipe(encryptStream(fileKey, { iv: IV })))
          assert.deepStrictEqual(streamed, yield* encrypt(plaintext, fileKey, { iv: IV }))
        })
    )

    it.effect("with a master key (default iterations) derives the key once, and each run is a new file", () =>
      Effect.gen(function* () {
        const derive = vi.spyOn(crypto.subtle, "deriveBits")
        const plaintext = randomBytes(200_000)
        const stream = chunksOf(plaintext, 1_000).pipe(encryptStream(MASTER))
        const first = yield* collect(stream)
        assert.strictEqual(derive.mock.calls.length, 1)
        const second = yield* collect(stream)
        assert.strictEqual(derive.mock.calls.length, 2)
        assert.notDeepEqual(first.subarray(0, HEADER_LENGTH), second.subarray(0, HEADER_LENGTH))
        assert.deepStrictEqual(yield* decrypt(first, MASTER), plaintext)
        assert.deepStrictEqual(yield* decrypt(second, MASTER), plaintext)
      })
    )

    it.effect("passes upstream failures through", () =>
      Effect.gen(function* () {
        const failing = Stream.concat(Stream.make(new Uint8Array(10)), Stream.fail("upstream broke" as const))
        assert.strictEqual(yield* Effect.flip(Stream.runDrain(failing.pipe(encryptStream(fileKey)))), "upstream broke")
      })
    )
  })

  describe("decryptStreamUnverified", () => {
    it.effect.prop(
      "decrypts one-shot files however the ciphertext is cut and batched",
      [bytes(200), cuts, int(1, 4)],
      ([plaintext, at, perPull]) =>
        Effect.gen(function* () {
          const encrypted = yield* encrypt(plaintext, fileKey)
          const decrypted = yield* collect(chunked(encrypted, at, perPull).pipe(decryptStreamUnverified(fileKey)))
          assert.deepStrictEqual(decrypted, plaintext)
        })
    )

    it.effect("decrypts every cut of a short file into three pieces, one or two pieces per pull", () =>
      Effect.gen(function* () {
        const plaintext = randomBytes(20)
        const encrypted = yield* encrypt(plaintext, fileKey)
        for (let i = 0; i <= encrypted.length; i++) {
          for (let j = i; j <= encrypted.length; j++) {
            for (const perPull of [1, 2]) {
              const decrypted = yield* collect(
                chunked(encrypted, [i, j], perPull).pipe(decryptStreamUnverified(fileKey))
              )
              assert.deepStrictEqual(decrypted, plaintext, `cut at ${i} and ${j}`)
            }
          }
        }
      })
    )

    it.effect("decrypts byte by byte and in large chunks, deriving the key once from the master key", () =>
      Effect.gen(function* () {
        const plaintext = randomBytes(3 * 1024 * 1024 + 7)
        const encrypted = yield* encrypt(plaintext, fileKey)
        const derive = vi.spyOn(crypto.subtle, "deriveBits")
        assert.deepStrictEqual(
          yield* collect(chunksOf(encrypted, 65_536).pipe(decryptStreamUnverified(MASTER))),
          plaintext
        )
        assert.strictEqual(derive.mock.calls.length, 1)
        const tiny = yield* encrypt(plaintext.subarray(0, 300), fileKey)
        assert.deepStrictEqual(
          yield* collect(chunksOf(tiny, 1).pipe(decryptStreamUnverified(fileKey))),
          plaintext.subarray(0, 300)
        )
      })
    )

    it.effect.prop(
      "any flipped bit fails the stream with DecryptionFailed",
      [bytes(100), cuts, int(0, 1_000_000), int(0, 7)],
      ([plaintext, at, where, bit]) =>
        Effect.gen(function* () {
          const encrypted = yield* encrypt(plaintext, fileKey)
          const i = where % encrypted.length
          encrypted[i]! ^= 1 << bit
          // Past the salt the FileKey is used as is; a changed salt is checked against it.
          const error = yield* Effect.flip(
            Stream.runDrain(chunked(encrypted, at).pipe(decryptStreamUnverified(fileKey)))
          )
          assert.strictEqual(error._tag, "DecryptionFailed")
        })
    )

    it.effect("a wrong key, or a stream shorter than a file can be, fails with DecryptionFailed", () =>
      Effect.gen(function* () {
        const encrypted = yield* encrypt(randomBytes(1_000), fileKey)
        const wrong = yield* deriveFileKey(`${"0".repeat(63)}1`, SALT)
        const error = yield* Effect.flip(Stream.runDrain(chunksOf(encrypted, 100).pipe(decryptStreamUnverified(wrong))))
        assert.strictEqual(
          error.message,
          "Decryption failed: the tag does not verify: wrong key, or the data was altered"
        )
        for (const n of [0, 1, HEADER_LENGTH - 1, HEADER_LENGTH, OVERHEAD - 1]) {
          const short = yield* Effect.flip(
            Stream.runDrain(chunksOf(encrypted.subarray(0, n), 7).pipe(decryptStreamUnverified(fileKey)))
          )
          assert.strictEqual(short.message, `Decryption failed: an encrypted file has at least ${OVERHEAD} bytes`)
        }
      })
    )
  })

  describe("decryptFileToPath", () => {
    const files = Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      return { fs, dir }
    })

    it.effect("writes the verified plaintext, from a path or from a stream", () =>
      Effect.gen(function* () {
        const { fs, dir } = yield* files
        const plaintext = randomBytes(1_000_000)
        const encrypted = yield* encrypt(plaintext, fileKey)
        yield* fs.writeFile(`${dir}/in.enc`, encrypted)
        yield* decryptFileToPath(`${dir}/in.enc`, `${dir}/out.bin`, MASTER)
        assert.deepStrictEqual(yield* fs.readFile(`${dir}/out.bin`), plaintext)
        yield* decryptFileToPath(chunksOf(encrypted, 4_096), `${dir}/out2.bin`, fileKey)
        assert.deepStrictEqual(yield* fs.readFile(`${dir}/out2.bin`), plaintext)
        assert.sameMembers(yield* fs.readDirectory(dir), ["in.enc", "out.bin", "out2.bin"])
      }).pipe(Effect.provide(NodeFileSystem.layer))
    )

    it.effect("leaves nothing behind, and an existing file untouched, when the file does not verify", () =>
      Effect.gen(function* () {
        const { fs, dir } = yield* files
        const encrypted = yield* encrypt(randomBytes(500_000), fileKey)
        encrypted[encrypted.length - 1]! ^= 1
        yield* fs.writeFile(`${dir}/in.enc`, encrypted)
        yield* fs.writeFileString(`${dir}/out.bin`, "previous")
        const error = yield* Effect.flip(decryptFileToPath(`${dir}/in.enc`, `${dir}/out.bin`, fileKey))
        assert.strictEqual(error._tag, "DecryptionFailed")
        assert.strictEqual(yield* fs.readFileString(`${dir}/out.bin`), "previous")
        assert.sameMembers(yield* fs.readDirectory(dir), ["in.enc", "out.bin"])
        // Upstream failures clean up the same way.
        const broken = Stream.concat(chunksOf(encrypted.subarray(0, 100_000), 4_096), Stream.fail("gone" as const))
        assert.strictEqual(yield* Effect.flip(decryptFileToPath(broken, `${dir}/other.bin`, fileKey)), "gone")
        assert.sameMembers(yield* fs.readDirectory(dir), ["in.enc", "out.bin"])
      }).pipe(Effect.provide(NodeFileSystem.layer))
    )
  })
})
