/**
 * `toFile`'s `onProgress`, through the public API against the mock network: called after each
 * write with the bytes written so far, rising to the file's size, verified or not, decrypting
 * (the plaintext's bytes) or not.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Download, FileCipher, Upload } from "lighthouse-effect"
import { alice, makeHarness } from "../upload/harness.ts"

const { network, layerWith } = makeHarness({ captureBodies: false })
const layer = layerWith({}, "node:http")

const WRITE = 256 * 1024
/** Four whole writes and a part of one. */
const SIZE = 4 * WRITE + 12_345
const plaintext = new Uint8Array(SIZE).map((_, i) => (i * 31 + (i >> 9)) & 0xff)
const KEY = "b2".repeat(32)

const stored = (encrypted: boolean) =>
  Effect.gen(function* () {
    const apiKey = network.seedAccount(alice.address, { apiKey: "progress-key" }).apiKey
    const bytes = encrypted ? yield* FileCipher.encrypt(plaintext, KEY) : plaintext
    return (yield* (yield* Upload.Upload).buffer(bytes, { apiKey })).Hash
  })

/** The file downloaded with `options`, and every progress reported meanwhile. */
const downloaded = (encrypted: boolean, options: Download.ToFileOptions) =>
  Effect.gen(function* () {
    const cid = yield* stored(encrypted)
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "download-progress-"))),
      (made) => Effect.promise(() => fs.rm(made, { recursive: true, force: true }))
    )
    const target = nodePath.join(dir, "out.bin")
    const seen: Array<number> = []
    yield* (yield* Download.Download).toFile(cid, target, {
      ...options,
      ...(encrypted ? { decrypt: Download.masterKey(KEY) } : {}),
      onProgress: (progress) => seen.push(progress.bytesWritten)
    })
    return { seen, bytes: new Uint8Array(yield* Effect.promise(() => fs.readFile(target))) }
  }).pipe(Effect.scoped, Effect.provide(layer))

describe("toFile's onProgress", () => {
  it.effect.each([
    ["unverified", false, { verification: "off" }],
    ["verified", false, {}],
    ["decrypting", true, {}]
  ] as const)("%s: after each write, rising to the file's size", ([, encrypted, options]) =>
    Effect.gen(function* () {
      const { seen, bytes } = yield* downloaded(encrypted, options)
      assert.deepStrictEqual(bytes, plaintext)
      assert.strictEqual(seen.at(-1), SIZE)
      assert.isAtLeast(seen.length, 5)
      seen.forEach((bytesWritten, i) => {
        assert.isAbove(bytesWritten, i === 0 ? 0 : (seen[i - 1] ?? 0))
        // A write is at most the gathering size; the last holds what is left.
        assert.isAtMost(bytesWritten - (i === 0 ? 0 : (seen[i - 1] ?? 0)), WRITE)
      })
    })
  )
})
