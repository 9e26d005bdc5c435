/**
 * `Upload.sync` against a node that refuses partial CARs (`partialCars: "refuse"`): the first run's
 * CAR holds every block and is taken; a later run's partial CAR is refused, and the whole folder
 * goes as a folder upload instead, the result and the history saying `full`, the snapshot the same
 * folder CID and restorable.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Download from "../../src/Download.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, makeHarness } from "./harness.ts"

const { network, log, layer } = makeHarness({ captureBodies: false, partialCars: "refuse" })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "sync-fallback-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const paths = () => log.map((request) => request.url.pathname).filter((path) => path.startsWith("/api/v0/"))

describe("Upload.sync, the node refusing partial CARs", () => {
  it.live("falls back to a full folder upload, says so, and the snapshot restores", () =>
    Effect.gen(function* () {
      const base = yield* tempDir
      const source = nodePath.join(base, "source")
      const state = nodePath.join(base, "state")
      yield* Effect.promise(async () => {
        await fs.mkdir(nodePath.join(source, "sub"), { recursive: true })
        await fs.writeFile(nodePath.join(source, "a.txt"), "alpha\n")
        await fs.writeFile(nodePath.join(source, "sub", "b.txt"), "bravo\n")
      })
      const { apiKey } = network.seedAccount(alice.address)
      const upload = yield* Upload.Upload
      const first = yield* upload.sync(source, { apiKey, stateDirectory: state })
      assert.strictEqual(first.mode, "partial")
      assert.deepStrictEqual(paths(), ["/api/v0/dag/import"])

      yield* Effect.promise(() => fs.writeFile(nodePath.join(source, "a.txt"), "alpha, changed\n"))
      log.length = 0
      const second = yield* upload.sync(source, { apiKey, stateDirectory: state })
      assert.deepStrictEqual(paths(), ["/api/v0/dag/import", "/api/v0/add"])
      assert.deepStrictEqual([second.mode, second.sent, second.bytesSent], ["full", ["a.txt"], 21])
      const history = yield* upload.syncHistory(source, { stateDirectory: state })
      assert.deepStrictEqual(
        history.map((snapshot) => [snapshot.cid, snapshot.mode]),
        [
          [first.cid, "partial"],
          [second.cid, "full"]
        ]
      )
      const out = nodePath.join(base, "out")
      const download = yield* Download.Download
      yield* download.toDirectory(second.cid, out)
      const restored = yield* Effect.promise(async () => [
        await fs.readFile(nodePath.join(out, "a.txt"), "utf8"),
        await fs.readFile(nodePath.join(out, "sub", "b.txt"), "utf8")
      ])
      assert.deepStrictEqual(restored, ["alpha, changed\n", "bravo\n"])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})
