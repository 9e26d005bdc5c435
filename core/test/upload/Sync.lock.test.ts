/**
 * One `Upload.sync` of a folder at a time: while a sync holds the folder's lock (here held at its
 * send, the node's answer kept back), a second sync of the same folder fails `SyncInProgress`
 * naming this process and the lock, and writes nothing; a dry run still answers; the first then
 * stores its snapshot, and the lock is free again for the next run. A lock left by a process that
 * is gone is taken over.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Latch } from "effect"
import { http } from "msw"
import * as Upload from "../../src/Upload.ts"
import { alice, makeHarness } from "./harness.ts"

const { network, server, layer } = makeHarness({ captureBodies: false })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "sync-lock-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

describe("Upload.sync, one at a time per folder", () => {
  it.live("a second sync of a folder being synced fails SyncInProgress; the first stores its snapshot", () =>
    Effect.gen(function* () {
      const base = yield* Effect.flatMap(tempDir, (dir) => Effect.promise(() => fs.realpath(dir)))
      const source = nodePath.join(base, "source")
      const state = nodePath.join(base, "state")
      yield* Effect.promise(async () => {
        await fs.mkdir(nodePath.join(source, "sub"), { recursive: true })
        await fs.writeFile(nodePath.join(source, "a.txt"), "alpha\n")
        await fs.writeFile(nodePath.join(source, "sub", "b.txt"), "bravo\n")
      })
      const { apiKey } = network.seedAccount(alice.address, { dataLimit: 64 * 1024 * 1024 })
      const upload = yield* Upload.Upload
      const run = (dryRun = false) => upload.sync(source, { apiKey, stateDirectory: state, dryRun })

      // The first sync's CAR reaches the node, whose answer waits until the second has been tried.
      const sending = yield* Latch.make()
      const answer = yield* Latch.make()
      server.use(
        http.post(
          "*/api/v0/dag/import",
          async () => {
            sending.openUnsafe()
            await Effect.runPromise(answer.await)
            return undefined
          },
          { once: true }
        )
      )
      const first = yield* Effect.forkChild(run())
      yield* sending.await

      const second = yield* Effect.flip(run())
      assert.strictEqual(second._tag, "SyncInProgress")
      if (second._tag !== "SyncInProgress") return
      assert.match(second.lock, new RegExp(`^${state}/sync/[0-9a-f]{32}\\.json\\.lock$`))
      assert.strictEqual(second.pid, process.pid)
      assert.strictEqual(
        second.message,
        `Another sync of ${source} is running (process ${process.pid} holds ${second.lock}); run this one once it has ended`
      )
      // A dry run writes nothing and takes no lock: it answers meanwhile.
      const dry = yield* run(true)
      assert.strictEqual(dry.mode, "dry-run")

      answer.openUnsafe()
      const stored = yield* Fiber.join(first)
      assert.strictEqual(stored.mode, "partial")
      assert.deepStrictEqual([...stored.sent].sort(), ["a.txt", "sub/b.txt"])
      assert.strictEqual(dry.cid, stored.cid)
      // The lock went with the first sync: the next run takes it, and the history holds both runs.
      const again = yield* run()
      assert.isTrue(again.unchanged)
      const history = yield* upload.syncHistory(source, { stateDirectory: state })
      assert.deepStrictEqual(
        history.map((snapshot) => snapshot.cid),
        [stored.cid, stored.cid]
      )
      assert.isFalse(
        yield* Effect.promise(() =>
          fs.access(second.lock).then(
            () => true,
            () => false
          )
        )
      )
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.live("a lock left by a process that is gone is taken over", () =>
    Effect.gen(function* () {
      const base = yield* Effect.flatMap(tempDir, (dir) => Effect.promise(() => fs.realpath(dir)))
      const source = nodePath.join(base, "source")
      const state = nodePath.join(base, "state")
      yield* Effect.promise(async () => {
        await fs.mkdir(source)
        await fs.writeFile(nodePath.join(source, "a.txt"), "alpha\n")
      })
      const { apiKey } = network.seedAccount(alice.address, { dataLimit: 64 * 1024 * 1024 })
      const upload = yield* Upload.Upload
      // The index's place (a hash of the folder's path) is found from the first run's files.
      yield* upload.sync(source, { apiKey, stateDirectory: state })
      const [index] = yield* Effect.promise(() => fs.readdir(nodePath.join(state, "sync")))
      const lock = nodePath.join(state, "sync", `${index}.lock`)
      // A process id no process has (above Linux's pid_max).
      yield* Effect.promise(() => fs.writeFile(lock, "4194305\n"))
      yield* Effect.promise(() => fs.appendFile(nodePath.join(source, "a.txt"), "more\n"))
      const result = yield* upload.sync(source, { apiKey, stateDirectory: state })
      assert.deepStrictEqual(result.sent, ["a.txt"])
      assert.isFalse(
        yield* Effect.promise(() =>
          fs.access(lock).then(
            () => true,
            () => false
          )
        )
      )
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})
