/**
 * `Upload.sync` against the mock network: each run's snapshot restores, through
 * `Download.toDirectory`, the folder as it was at that run (a 3-run history with changes, a
 * deletion and a rename); an unchanged folder sends under 1 % of the first run's bytes and reads no
 * file; one changed file sends that file's blocks and the folder nodes above it only; a dry run
 * sends and writes nothing; a run in another CID version reads every file again; the index is owner-only; a run whose send failed, re-run, reads nothing
 * again; a file whose bytes no longer have the CID the run computed fails `SyncSourceChanged` and
 * records no snapshot. The node's refusal of partial CARs: `Sync.fallback.test.ts`.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Download from "../../src/Download.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, makeHarness } from "./harness.ts"

const { network, log, layer } = makeHarness({ captureBodies: false })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "sync-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** Bytes that differ from run to run of a test only through `seed`. */
const patterned = (length: number, seed: number) => {
  const bytes = new Uint8Array(length)
  let state = seed * 2654435761
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

/** Writes `files` (relative path → content) under `dir`, making folders. */
const writeTree = async (dir: string, files: Readonly<Record<string, string | Uint8Array>>) => {
  for (const [path, content] of Object.entries(files)) {
    await fs.mkdir(nodePath.dirname(nodePath.join(dir, path)), { recursive: true })
    await fs.writeFile(nodePath.join(dir, path), content)
  }
}

/** Every file under `dir`, relative, with its bytes in hex (folders left out: empty ones are not synced). */
const tree = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = nodePath.relative(dir, nodePath.join(entry.parentPath, entry.name))
    out[path] = Buffer.from(await fs.readFile(nodePath.join(dir, path))).toString("hex")
  }
  return out
}

const setup = Effect.gen(function* () {
  const base = yield* tempDir
  const source = nodePath.join(base, "source")
  const state = nodePath.join(base, "state")
  yield* Effect.promise(() => fs.mkdir(source))
  const { apiKey } = network.seedAccount(alice.address, { dataLimit: 64 * 1024 * 1024 })
  const upload = yield* Upload.Upload
  const run = (options: { readonly dryRun?: boolean } = {}) =>
    upload.sync(source, { apiKey, stateDirectory: state, ...options })
  return { base, source, state, upload, run }
})

const restore = (cid: string, into: string) =>
  Effect.gen(function* () {
    const download = yield* Download.Download
    return yield* download.toDirectory(cid, into)
  })

describe("Upload.sync", () => {
  it.live("every snapshot of a 3-run history restores the folder as it was at that run", () =>
    Effect.gen(function* () {
      const { base, source, state, upload, run } = yield* setup
      const expected: Array<Record<string, string>> = []
      const write = (files: Readonly<Record<string, string | Uint8Array>>) =>
        Effect.promise(() => writeTree(source, files))

      yield* write({ "a.txt": "alpha\n", "sub/big.bin": patterned(600_000, 1), "sub/c.txt": "c\n", "empty.txt": "" })
      const first = yield* run()
      expected.push(yield* Effect.promise(() => tree(source)))

      // A change (another size), a deletion, a rename, a new file.
      yield* write({ "a.txt": "alpha, longer\n", "new/n.txt": "new\n" })
      yield* Effect.promise(() => fs.rm(nodePath.join(source, "sub/c.txt")))
      yield* Effect.promise(() => fs.rename(nodePath.join(source, "sub/big.bin"), nodePath.join(source, "moved.bin")))
      const second = yield* run()
      expected.push(yield* Effect.promise(() => tree(source)))
      assert.deepStrictEqual(
        [second.sent, second.removed],
        [
          ["a.txt", "new/n.txt"],
          ["sub/big.bin", "sub/c.txt"]
        ]
      )
      assert.strictEqual(second.read, 3)

      yield* write({ "deep/er/d.bin": patterned(300_000, 2) })
      yield* Effect.promise(() => fs.rm(nodePath.join(source, "empty.txt")))
      const third = yield* run()
      expected.push(yield* Effect.promise(() => tree(source)))

      const history = yield* upload.syncHistory(source, { stateDirectory: state })
      assert.deepStrictEqual(
        history.map((snapshot) => [snapshot.cid, snapshot.files, snapshot.mode]),
        [
          [first.cid, 4, "partial"],
          [second.cid, 4, "partial"],
          [third.cid, 4, "partial"]
        ]
      )
      for (const [index, snapshot] of history.entries()) {
        const out = nodePath.join(base, `restored-${index}`)
        yield* restore(snapshot.cid, out)
        assert.deepStrictEqual(yield* Effect.promise(() => tree(out)), expected[index])
      }
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("an unchanged folder sends under 1 % of the first run's bytes and reads no file", () =>
    Effect.gen(function* () {
      const { source, run } = yield* setup
      const files: Record<string, Uint8Array> = {}
      for (let i = 0; i < 40; i++) files[`f/${String(i).padStart(2, "0")}.bin`] = patterned(20_000, i)
      yield* Effect.promise(() => writeTree(source, files))
      const first = yield* run()
      assert.strictEqual(first.read, 40)
      assert.isAbove(first.bytesSent, 800_000)
      const second = yield* run()
      assert.deepStrictEqual(
        [second.cid, second.unchanged, second.read, second.sent, second.removed],
        [first.cid, true, 0, [], []]
      )
      assert.isBelow(second.bytesSent, first.bytesSent / 100)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("one changed file sends its blocks and the folder nodes above it, nothing else", () =>
    Effect.gen(function* () {
      const { source, run } = yield* setup
      yield* Effect.promise(() =>
        writeTree(source, { "a.bin": patterned(200_000, 1), "sub/b.bin": patterned(200_000, 2), "sub/c.txt": "c" })
      )
      yield* run()
      yield* Effect.promise(() => writeTree(source, { "sub/c.txt": patterned(300_000, 3) }))
      const dry = yield* run({ dryRun: true })
      const sent = yield* run()
      assert.deepStrictEqual([sent.sent, sent.read, sent.cid], [["sub/c.txt"], 1, dry.cid])
      assert.deepStrictEqual([dry.sent, dry.mode], [["sub/c.txt"], "dry-run"])
      // The file's two leaves and its node, the root and `sub` (a few hundred bytes), CAR framing.
      assert.isAtLeast(sent.bytesSent, 300_000)
      assert.isBelow(sent.bytesSent, 300_000 + 1_000)
      assert.isAtLeast(dry.bytesSent, 300_000)
      assert.isBelow(dry.bytesSent, sent.bytesSent)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("a dry run sends and writes nothing", () =>
    Effect.gen(function* () {
      const { source, state, upload, run } = yield* setup
      yield* Effect.promise(() => writeTree(source, { "a.txt": "a" }))
      const dry = yield* run({ dryRun: true })
      assert.deepStrictEqual([dry.mode, dry.sent, dry.read], ["dry-run", ["a.txt"], 1])
      assert.deepStrictEqual(
        log.filter((request) => request.url.pathname.startsWith("/api/v0/")),
        []
      )
      assert.isFalse(
        yield* Effect.promise(() =>
          fs.stat(state).then(
            () => true,
            () => false
          )
        )
      )
      assert.deepStrictEqual(yield* upload.syncHistory(source, { stateDirectory: state }), [])
      assert.strictEqual((yield* run()).cid, dry.cid)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("a run in another CID version reads every file again, and its snapshot restores", () =>
    Effect.gen(function* () {
      const { base, source, state, upload } = yield* setup
      const { apiKey } = network.seedAccount(alice.address, { dataLimit: 64 * 1024 * 1024 })
      yield* Effect.promise(() => writeTree(source, { "a.bin": patterned(300_000, 1), "sub/b.txt": "b" }))
      yield* upload.sync(source, { apiKey, stateDirectory: state })
      const v0 = yield* upload.sync(source, { apiKey, stateDirectory: state, cidVersion: 0 })
      assert.deepStrictEqual([v0.read, v0.sent, v0.cid.startsWith("Qm")], [2, ["a.bin", "sub/b.txt"], true])
      const out = nodePath.join(base, "out")
      yield* restore(v0.cid, out)
      assert.deepStrictEqual(yield* Effect.promise(() => tree(out)), yield* Effect.promise(() => tree(source)))
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("the index is its owner's only; a run whose send failed, re-run, reads no file again", () =>
    Effect.gen(function* () {
      const { source, state, run } = yield* setup
      yield* Effect.promise(() => writeTree(source, { "a.bin": patterned(100_000, 1), "b.txt": "b" }))
      network.faults.down({ host: "node", path: "/api/v0/dag/import" }, { times: 1 })
      const failed = yield* Effect.flip(run())
      assert.strictEqual(failed._tag, "NetworkError")
      const again = yield* run()
      assert.deepStrictEqual([again.read, again.sent], [0, ["a.bin", "b.txt"]])
      const folder = nodePath.join(state, "sync")
      const [index] = yield* Effect.promise(() => fs.readdir(folder))
      const modes = yield* Effect.promise(async () => [
        (await fs.stat(folder)).mode & 0o777,
        (await fs.stat(nodePath.join(folder, index!))).mode & 0o777
      ])
      assert.deepStrictEqual(modes, [0o700, 0o600])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("a file whose bytes no longer have the CID computed for it fails SyncSourceChanged, recording nothing", () =>
    Effect.gen(function* () {
      const { source, state, upload, run } = yield* setup
      const file = nodePath.join(source, "a.txt")
      // Whole seconds: a time set back is read back the same.
      const mtime = new Date(1_700_000_000_000)
      yield* Effect.promise(async () => {
        await writeTree(source, { "a.txt": "before" })
        await fs.utimes(file, mtime, mtime)
      })
      network.faults.down({ host: "node", path: "/api/v0/dag/import" }, { times: 1 })
      yield* Effect.flip(run())
      // Same size, same modification time: the index's CID is taken, but the bytes sent differ.
      yield* Effect.promise(async () => {
        await fs.writeFile(file, "after!")
        await fs.utimes(file, mtime, mtime)
      })
      const failed = yield* Effect.flip(run())
      assert.strictEqual(failed.message, '"a.txt" changed while it was being synced; run the sync again')
      assert.strictEqual(failed._tag, "SyncSourceChanged")
      assert.deepStrictEqual(yield* upload.syncHistory(source, { stateDirectory: state }), [])
      assert.deepStrictEqual(network.state.files.of(alice.address.toLowerCase()), [])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})
