/**
 * `toFile` never writes through what it did not create, and one target takes one download at a
 * time (through the public API): a symbolic link planted at `<path>.partial` or at the target is
 * refused with `NotARegularFile` and its target left as it was; two resumed downloads of one path
 * at once publish the content once, the second failing with `DownloadInProgress`; the lock is
 * released when a download fails or is interrupted, and a lock left by a process that is gone is
 * taken over.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Auth, Download, Upload } from "lighthouse-effect"
import { alice, aliceSigner } from "../upload/harness.ts"
import { A, gateway, LEAF, makeResumeHarness, SIZE } from "./resumeHarness.ts"

const { network, log, layer, faultsA, tempDir } = makeResumeHarness("resume-integrity-")

const content = new Uint8Array(SIZE).map((_, i) => (i * 29 + (i >> 10)) & 0xff)
const precious = "a file the download must not touch\n"

const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "integrity-key" }).apiKey
  const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey })
  log.length = 0
  return entry.Hash
})

const exists = (path: string) =>
  Effect.promise(() =>
    fs.lstat(path).then(
      () => true,
      () => false
    )
  )
const readText = (path: string) => Effect.promise(() => fs.readFile(path, "utf8"))
const fileBytes = (path: string) => Effect.promise(async () => new Uint8Array(await fs.readFile(path)))

describe("resumed downloads and links", () => {
  it.effect("a symbolic link at <path>.partial: NotARegularFile, the link's target untouched, nothing published", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const dir = yield* tempDir
      const victim = nodePath.join(dir, "victim.txt")
      const target = nodePath.join(dir, "file.bin")
      yield* Effect.promise(() => fs.writeFile(victim, precious))
      yield* Effect.promise(() => fs.symlink(victim, `${target}.partial`))
      const download = yield* Download.Download
      const refused = yield* Effect.flip(download.toFile(cid, target, { resume: true }))
      assert.strictEqual(refused._tag, "NotARegularFile")
      assert.strictEqual(
        refused.message,
        `Refusing to download through ${target}.partial: it is a SymbolicLink, not a regular file`
      )
      assert.strictEqual(yield* readText(victim), precious)
      assert.isTrue((yield* Effect.promise(() => fs.lstat(`${target}.partial`))).isSymbolicLink())
      assert.isFalse(yield* exists(target))
      assert.isFalse(yield* exists(`${target}.lock`))
      // Nothing was asked of the gateway.
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a symbolic link at the target being resumed: NotARegularFile, the link's target untouched", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const dir = yield* tempDir
      const victim = nodePath.join(dir, "victim.txt")
      const target = nodePath.join(dir, "file.bin")
      yield* Effect.promise(() => fs.writeFile(victim, precious))
      yield* Effect.promise(() => fs.symlink(victim, target))
      const refused = yield* Effect.flip((yield* Download.Download).toFile(cid, target, { resume: true }))
      assert.strictEqual(
        refused.message,
        `Refusing to download through ${target}: it is a SymbolicLink, not a regular file`
      )
      assert.strictEqual(yield* readText(victim), precious)
      assert.isFalse(yield* exists(`${target}.partial`))
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("decrypting: a symbolic link at <path>.partial is refused, no ciphertext goes through it", () =>
    Effect.gen(function* () {
      const apiKey = network.seedAccount(alice.address, { apiKey: "integrity-enc-key" }).apiKey
      const token = yield* (yield* Auth.Auth).token(aliceSigner)
      const entry = yield* (yield* Upload.Upload).encryptedFile(Upload.Input.bytes(content, "secret.bin"), {
        apiKey,
        address: alice.address,
        token
      })
      const dir = yield* tempDir
      const victim = nodePath.join(dir, "victim.txt")
      const target = nodePath.join(dir, "secret.bin")
      yield* Effect.promise(() => fs.writeFile(victim, precious))
      yield* Effect.promise(() => fs.symlink(victim, `${target}.partial`))
      const options = { resume: true, decrypt: { signer: aliceSigner } }
      const refused = yield* Effect.flip((yield* Download.Download).toFile(entry.Hash, target, options))
      assert.strictEqual(refused._tag, "NotARegularFile")
      assert.strictEqual(yield* readText(victim), precious)
      assert.isFalse(yield* exists(target))
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a hard link at <path>.partial (another name of a file): refused, that file untouched", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const dir = yield* tempDir
      const victim = nodePath.join(dir, "victim.txt")
      const target = nodePath.join(dir, "file.bin")
      yield* Effect.promise(() => fs.writeFile(victim, precious))
      yield* Effect.promise(() => fs.link(victim, `${target}.partial`))
      const refused = yield* Effect.flip((yield* Download.Download).toFile(cid, target, { resume: true }))
      assert.strictEqual(refused._tag, "NotARegularFile")
      assert.strictEqual(yield* readText(victim), precious)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})

describe("one download per target", () => {
  it.effect(
    "two resumed downloads of one path at once: one publishes the content, the other is DownloadInProgress",
    () =>
      Effect.gen(function* () {
        const cid = yield* uploaded
        const target = nodePath.join(yield* tempDir, "file.bin")
        const download = yield* Download.Download
        const options = { sources: [A], resume: true }
        const [first, second] = yield* Effect.all(
          [Effect.result(download.toFile(cid, target, options)), Effect.result(download.toFile(cid, target, options))],
          { concurrency: 2 }
        )
        const outcomes = [first, second].map((result) =>
          result._tag === "Success" ? "published" : result.failure._tag
        )
        assert.sameMembers(outcomes, ["published", "DownloadInProgress"])
        const refused = [first, second].find((result) => result._tag === "Failure")!
        assert.strictEqual(
          refused._tag === "Failure" ? refused.failure.message : "",
          `Another download into ${target} is in progress (process ${process.pid} holds ${target}.lock)`
        )
        assert.deepStrictEqual(yield* fileBytes(target), content)
        assert.isFalse(yield* exists(`${target}.lock`))
        assert.isFalse(yield* exists(`${target}.partial`))
      }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect(
    "a download holding the lock stalls: a second is refused; once the first ends the lock is free and the next resumes",
    () =>
      Effect.gen(function* () {
        const cid = yield* uploaded
        const target = nodePath.join(yield* tempDir, "file.bin")
        const download = yield* Download.Download
        // The first answer stops after four leaves; on the TestClock, unmoved here, it never stalls out.
        faultsA.stall(gateway, 4 * LEAF + 4096, { times: 1 })
        const options = { sources: [A], resume: true }
        const first = yield* Effect.forkChild(download.toFile(cid, target, options))
        // The first call holds the lock before it asks the gateway anything.
        yield* Effect.promise(() => waitFor(() => log.length > 0))
        const refused = yield* Effect.flip(download.toFile(cid, target, options))
        assert.strictEqual(refused._tag, "DownloadInProgress")
        yield* Fiber.interrupt(first)
        assert.isFalse(yield* exists(`${target}.lock`))
        // The verified leaves it got before it was stopped.
        const kept = yield* fileBytes(`${target}.partial`)
        assert.isAtMost(kept.length, 4 * LEAF)
        assert.deepStrictEqual(kept, content.subarray(0, kept.length))
        const report = yield* download.toFile(cid, target, options)
        assert.deepStrictEqual(report, { verified: true, sources: [{ gateway: A, bytes: SIZE - kept.length }] })
        assert.deepStrictEqual(yield* fileBytes(target), content)
      }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("an interrupted download releases the lock", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const target = nodePath.join(yield* tempDir, "file.bin")
      const download = yield* Download.Download
      faultsA.stall(gateway, 2 * LEAF, { times: 1 })
      const running = yield* Effect.forkChild(download.toFile(cid, target, { sources: [A], resume: true }))
      yield* Effect.promise(() => waitFor(() => log.length > 0))
      assert.isTrue(yield* exists(`${target}.lock`))
      yield* Fiber.interrupt(running)
      assert.isFalse(yield* exists(`${target}.lock`))
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a lock left by a process that is gone is taken over; one held by a running process is not", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const target = nodePath.join(yield* tempDir, "file.bin")
      const download = yield* Download.Download
      // A process that has exited: its id names no running process (ids are not reused this soon).
      const gone = spawnSync(process.execPath, ["-e", ""]).pid
      yield* Effect.promise(() => fs.writeFile(`${target}.lock`, `${gone}\n`))
      assert.deepStrictEqual(yield* download.toFile(cid, target, { resume: true }), { verified: true })
      assert.deepStrictEqual(yield* fileBytes(target), content)
      assert.isFalse(yield* exists(`${target}.lock`))

      yield* Effect.promise(() => fs.writeFile(`${target}.lock`, `${process.ppid}\n`))
      const refused = yield* Effect.flip(download.toFile(cid, target, { resume: true }))
      assert.deepStrictEqual(
        { tag: refused._tag, pid: refused._tag === "DownloadInProgress" ? refused.pid : 0 },
        { tag: "DownloadInProgress", pid: process.ppid }
      )
      assert.isTrue(yield* exists(`${target}.lock`))
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})

/** Resolves once `ready()` holds, checking every few milliseconds; rejects after 10 s. */
const waitFor = async (ready: () => boolean) => {
  for (let waited = 0; !ready(); waited += 5) {
    if (waited > 10_000) throw new Error("timed out waiting")
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
