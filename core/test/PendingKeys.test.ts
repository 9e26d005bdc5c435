/**
 * The key journal's layers: the file journal's modes (directory 0700, files 0600), writes that
 * are whole or absent (a temporary file or a torn `<id>.json` is never read), listing by owner,
 * the in-memory layer, and sealing: only the signer an entry was sealed for opens it, in this
 * process or the next (a private-key signer signs deterministically).
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PendingKeys, Signer } from "lighthouse-effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

const shard = (n: number) => ({ key: `${n}`.repeat(64), index: `${n}f`.repeat(32) })
const shards = [1, 2, 3, 4, 5].map(shard)

const entry = (id: string, address: string, createdAt = 1): PendingKeys.PendingEntry => ({
  version: 1,
  id,
  address,
  name: `${id}.txt`,
  size: 12,
  shareTo: [],
  createdAt,
  salt: "00".repeat(16),
  shards: { plain: shards }
})

const alice = "0x00000000000000000000000000000000000000a1"
const bob = "0x00000000000000000000000000000000000000b0"

const withDirectory = <A, E>(use: (directory: string) => Effect.Effect<A, E, PendingKeys.PendingKeys>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "lh-journal-"))),
    (root) => {
      const directory = nodePath.join(root, "state", "pending-keys")
      return use(directory).pipe(
        Effect.provide(PendingKeys.layerFile(directory).pipe(Layer.provide([NodeFileSystem.layer, NodePath.layer])))
      )
    },
    (root) => Effect.promise(() => fs.rm(root, { recursive: true, force: true }))
  )

describe("the file journal", () => {
  it.effect("a 0700 directory of 0600 files, one per entry, listed by owner, oldest first", () =>
    withDirectory((directory) =>
      Effect.gen(function* () {
        const journal = yield* PendingKeys.PendingKeys
        yield* journal.write(entry("b", alice, 2))
        yield* journal.write(entry("a", alice, 1))
        yield* journal.write(entry("c", bob, 3))
        const stat = yield* Effect.promise(() => fs.stat(directory))
        assert.strictEqual(stat.mode & 0o777, 0o700)
        const names = (yield* Effect.promise(() => fs.readdir(directory))).sort()
        assert.deepStrictEqual(names, ["a.json", "b.json", "c.json"])
        for (const name of names) {
          const file = yield* Effect.promise(() => fs.stat(nodePath.join(directory, name)))
          assert.strictEqual(file.mode & 0o777, 0o600)
        }
        assert.deepStrictEqual(
          (yield* journal.list(alice.toUpperCase().replace("0X", "0x"))).map((e) => e.id),
          ["a", "b"]
        )
        assert.deepStrictEqual(
          (yield* journal.list()).map((e) => e.id),
          ["a", "b", "c"]
        )
        yield* journal.write({ ...entry("a", alice, 1), cid: "bafkqaaa" })
        assert.strictEqual((yield* journal.list(alice))[0]!.cid, "bafkqaaa")
        yield* journal.remove("a")
        yield* journal.remove("a")
        assert.deepStrictEqual(
          (yield* journal.list(alice)).map((e) => e.id),
          ["b"]
        )
      })
    )
  )

  it.effect("a torn write is never read: temporaries, cut and foreign files are skipped", () =>
    withDirectory((directory) =>
      Effect.gen(function* () {
        const journal = yield* PendingKeys.PendingKeys
        yield* journal.write(entry("whole", alice))
        const text = JSON.stringify(entry("torn", alice))
        yield* Effect.promise(async () => {
          // What a crash can leave: a temporary never renamed, and (a disk that lied) a cut file.
          await fs.writeFile(nodePath.join(directory, ".torn.0123.tmp"), text.slice(0, 40))
          await fs.writeFile(nodePath.join(directory, "torn.json"), text.slice(0, text.length - 9))
          // An entry under another entry's name is not that entry.
          await fs.writeFile(nodePath.join(directory, "renamed.json"), JSON.stringify(entry("other", alice)))
        })
        assert.deepStrictEqual(
          (yield* journal.list(alice)).map((e) => e.id),
          ["whole"]
        )
      })
    )
  )

  it.effect("a directory made wider than 0700 is narrowed on the next write", () =>
    withDirectory((directory) =>
      Effect.gen(function* () {
        yield* Effect.promise(() => fs.mkdir(directory, { recursive: true, mode: 0o755 }))
        const journal = yield* PendingKeys.PendingKeys
        yield* journal.write(entry("a", alice))
        assert.strictEqual((yield* Effect.promise(() => fs.stat(directory))).mode & 0o777, 0o700)
      })
    )
  )

  it.effect("a journal it cannot write fails with JournalFailed naming the file", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "lh-journal-")))
      const blocker = nodePath.join(root, "a-file")
      yield* Effect.promise(() => fs.writeFile(blocker, ""))
      const error = yield* PendingKeys.PendingKeys.use((journal) => journal.write(entry("a", alice))).pipe(
        Effect.provide(
          PendingKeys.layerFile(nodePath.join(blocker, "pending-keys")).pipe(
            Layer.provide([NodeFileSystem.layer, NodePath.layer])
          )
        ),
        Effect.flip
      )
      yield* Effect.promise(() => fs.rm(root, { recursive: true, force: true }))
      assert.strictEqual(error._tag, "JournalFailed")
      assert.strictEqual(
        error.message,
        `The key journal could not write ${nodePath.join(blocker, "pending-keys", "a.json")}`
      )
    })
  )
})

describe("the in-memory journal", () => {
  it.effect("keeps entries by id, lists them by owner, forgets removed ones", () =>
    Effect.gen(function* () {
      const journal = yield* PendingKeys.PendingKeys
      yield* journal.write(entry("b", alice, 2))
      yield* journal.write(entry("a", alice, 1))
      yield* journal.write(entry("c", bob, 3))
      yield* journal.write({ ...entry("b", alice, 2), cid: "bafkqaaa" })
      const listed = yield* journal.list(alice)
      assert.deepStrictEqual(
        listed.map((e) => [e.id, e.cid]),
        [
          ["a", undefined],
          ["b", "bafkqaaa"]
        ]
      )
      yield* journal.remove("b")
      assert.deepStrictEqual(
        (yield* journal.list()).map((e) => e.id),
        ["a", "c"]
      )
    }).pipe(Effect.provide(PendingKeys.layerMemory))
  )
})

describe("sealed entries", () => {
  it.effect("only the signer they were sealed for opens them, in a later process too", () =>
    Effect.gen(function* () {
      const key = generatePrivateKey()
      const sealer = Signer.makeFromAccount(privateKeyToAccount(key))
      const sealed = yield* PendingKeys.Seal.seal(yield* PendingKeys.Seal.sealingKey(sealer), "entry-1", shards)
      assert.isTrue("sealed" in sealed)
      assert.notInclude(JSON.stringify(sealed), shards[0]!.key)
      // The same key in a new signer (as in the next process): the same sealing key.
      const again = Signer.makeFromAccount(privateKeyToAccount(key))
      const opened = yield* PendingKeys.Seal.open(yield* PendingKeys.Seal.sealingKey(again), "entry-1", sealed)
      assert.deepStrictEqual(opened, shards)
      const stranger = Signer.makeFromAccount(privateKeyToAccount(generatePrivateKey()))
      const refused = yield* Effect.flip(
        PendingKeys.Seal.open(yield* PendingKeys.Seal.sealingKey(stranger), "entry-1", sealed)
      )
      assert.strictEqual(refused.message, "The journal entry entry-1 is sealed for another signer")
      // Bound to its entry: moved under another id, it does not open.
      const moved = yield* Effect.flip(
        PendingKeys.Seal.open(yield* PendingKeys.Seal.sealingKey(again), "entry-2", sealed)
      )
      assert.strictEqual(moved._tag, "JournalEntrySealed")
      const withoutKey = yield* Effect.flip(PendingKeys.Seal.open(undefined, "entry-1", sealed))
      assert.strictEqual(withoutKey._tag, "JournalEntrySealed")
    })
  )
})
