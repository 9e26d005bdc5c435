/**
 * `toFile` with `resume: true` and `decrypt` against the mock network: an interrupted download
 * keeps the verified ciphertext (never plaintext) in `<path>.partial`; the next call checks it
 * against the DAG, fetches only the rest and decrypts the whole into the target once the tag
 * checks. A wrong key keeps the whole verified ciphertext for the next call; a plaintext file at
 * the target is never taken for the stored bytes.
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import type { AllSourcesFailed, DecryptionFailed } from "../../src/Errors.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, aliceSigner } from "../upload/harness.ts"
import { A, gateway, LEAF, makeResumeHarness, SIZE } from "./resumeHarness.ts"

const { network, log, layer, time, faultsA, tempDir, asked, countingGatewayBytes } =
  makeResumeHarness("resume-encrypted-test-")

/** Ten leaves of ciphertext: the plaintext and the 44 bytes of salt, IV and tag. */
const plaintext = new Uint8Array(SIZE - 44).map((_, i) => (i * 29 + (i >> 10)) & 0xff)
const decrypt = { signer: aliceSigner } as const

/** Uploads `plaintext` encrypted for alice; returns its CID and its stored bytes (the ciphertext). */
const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "resume-enc-key" }).apiKey
  const token = yield* (yield* Auth.Auth).token(aliceSigner)
  const upload = yield* Upload.Upload
  const entry = yield* upload.encryptedFile(Upload.Input.bytes(plaintext, "secret.bin"), {
    apiKey,
    address: alice.address,
    token
  })
  const ciphertext = yield* (yield* Download.Download).bytes(entry.Hash)
  assert.strictEqual(ciphertext.length, SIZE)
  log.length = 0
  return { cid: entry.Hash, ciphertext }
})

const readFile = (path: string) => Effect.promise(() => fs.readFile(path).then((bytes) => new Uint8Array(bytes)))
const listed = (dir: string) => Effect.promise(() => fs.readdir(dir).then((names) => names.sort()))

describe("resumed downloads of encrypted files", () => {
  it.effect("interrupted at 90 %, the verified ciphertext is kept; resuming fetches the rest and decrypts", () =>
    Effect.gen(function* () {
      const { cid, ciphertext } = yield* uploaded
      const dir = yield* tempDir
      const target = nodePath.join(dir, "secret.bin")
      const download = yield* Download.Download
      faultsA.stall(gateway, 9 * LEAF + 4096, { times: 1 })
      const options = { sources: [A], stallTimeout: 5000, resume: true, decrypt }
      const failed = (yield* Effect.flip(time.settle(download.toFile(cid, target, options)))) as AllSourcesFailed
      assert.strictEqual(failed._tag, "AllSourcesFailed")
      // Only the ciphertext's verified prefix is on disk: no plaintext, no target.
      assert.deepStrictEqual(yield* listed(dir), ["secret.bin.partial"])
      assert.deepStrictEqual(yield* readFile(`${target}.partial`), ciphertext.subarray(0, 9 * LEAF))
      log.length = 0

      const { result, served } = yield* countingGatewayBytes(download.toFile(cid, target, options))
      assert.deepStrictEqual(result, { verified: true, sources: [{ gateway: A, bytes: SIZE - 9 * LEAF }] })
      assert.deepStrictEqual(yield* readFile(target), plaintext)
      assert.deepStrictEqual(asked(A), [`${9 * LEAF}:*`])
      assert.isAtMost(served, SIZE * 0.12)
      assert.deepStrictEqual(yield* listed(dir), ["secret.bin"])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a wrong key fails the tag and keeps the whole verified ciphertext; the right key needs no refetch", () =>
    Effect.gen(function* () {
      const { cid, ciphertext } = yield* uploaded
      const dir = yield* tempDir
      const target = nodePath.join(dir, "secret.bin")
      const download = yield* Download.Download
      const wrong = (yield* Effect.flip(
        download.toFile(cid, target, { resume: true, decrypt: { masterKey: "1".repeat(64) } })
      )) as DecryptionFailed
      assert.strictEqual(wrong._tag, "DecryptionFailed")
      assert.deepStrictEqual(yield* listed(dir), ["secret.bin.partial"])
      assert.deepStrictEqual(yield* readFile(`${target}.partial`), ciphertext)
      log.length = 0

      const { result, served } = yield* countingGatewayBytes(download.toFile(cid, target, { resume: true, decrypt }))
      assert.deepStrictEqual(result, { verified: true })
      assert.deepStrictEqual(yield* readFile(target), plaintext)
      assert.isBelow(served, LEAF)
      assert.deepStrictEqual(yield* listed(dir), ["secret.bin"])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a plaintext file at the target is not taken up; a range gives that part of the plaintext", () =>
    Effect.gen(function* () {
      const { cid } = yield* uploaded
      const dir = yield* tempDir
      const target = nodePath.join(dir, "secret.bin")
      const earlier = plaintext.subarray(0, 5 * LEAF)
      yield* Effect.promise(() => fs.writeFile(target, earlier))
      const download = yield* Download.Download
      faultsA.down(gateway)
      const failed = yield* Effect.flip(download.toFile(cid, target, { sources: [A], resume: true, decrypt }))
      assert.strictEqual(failed._tag, "AllSourcesFailed")
      // The file at the target was neither moved nor cut: it is not the stored bytes.
      assert.deepStrictEqual(yield* readFile(target), earlier)
      log.length = 0
      const range = { offset: 1000, length: 70_000 }
      const report = yield* download.toFile(cid, target, { resume: true, decrypt, range })
      assert.deepStrictEqual(report, { verified: true })
      assert.deepStrictEqual(yield* readFile(target), plaintext.subarray(1000, 71_000))
      // The whole ciphertext from the first byte: the tag at its end covers it all.
      assert.deepStrictEqual(asked("https://gateway.lighthouse.storage"), ["-"])
      assert.deepStrictEqual(yield* listed(dir), ["secret.bin"])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})
