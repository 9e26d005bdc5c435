/**
 * Encrypted uploads and the key journal, through the services: a save that fails leaves the
 * file's entry (its CID, its shards sealed for the signer) and names it; the next encrypted upload
 * of the account saves it before sending anything, or fails before sending when it cannot;
 * `Upload.repair` saves a stored file's shards, finds a file the node never acknowledged by the
 * salt its ciphertext starts with (or deletes it when asked), and drops what was never stored.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Download from "../../src/Download.ts"
import type { EncryptedUploadIncomplete, PendingKeysUnfinished } from "../../src/Errors.ts"
import * as Files from "../../src/Files.ts"
import * as PendingKeys from "../../src/PendingKeys.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, aliceSigner, makeHarness } from "./harness.ts"

const { network, log, layer } = makeHarness()

const seed = () => network.seedAccount(alice.address, { apiKey: "test-api-key" })

const decrypted = (cid: string) =>
  Download.Download.use((download) => download.retrieve(cid, { decrypt: { signer: aliceSigner } })).pipe(
    Effect.map((retrieved) => new TextDecoder().decode(retrieved.bytes))
  )

/** An encrypted text whose save stops at node 3 (once): the failure, and the journal's entry. */
const failedSave = (apiKey: string, text: string) =>
  Effect.gen(function* () {
    const entry = yield* failedAlone(apiKey, text).pipe(Effect.provide(PendingKeys.layerMemory))
    yield* PendingKeys.PendingKeys.use((journal) => journal.write(entry.entry))
    return entry
  })

/** The same in a journal of its own: no earlier entry is repaired first. */
const failedAlone = (apiKey: string, text: string) =>
  Effect.gen(function* () {
    network.faults.status({ host: "encryption", node: 3, method: "POST", path: "/api/setSharedKey/3" }, 500, {
      body: { message: "disk full" },
      times: 1
    })
    const upload = yield* Upload.Upload
    const error = (yield* Effect.flip(
      upload.encryptedText(text, { apiKey, signer: aliceSigner, name: `${text}.txt` })
    )) as EncryptedUploadIncomplete
    const [entry] = yield* PendingKeys.PendingKeys.use((journal) => journal.list(alice.address))
    return { error, entry: entry! }
  })

const run = <A, E>(
  effect: Effect.Effect<A, E, Upload.Upload | Download.Download | Files.Files | PendingKeys.PendingKeys>
) => effect.pipe(Effect.provide(PendingKeys.layerMemory), Effect.provide(layer))

describe("an encrypted upload and the key journal", () => {
  it.effect("a failed save leaves the entry, sealed; the next upload saves it first", () =>
    run(
      Effect.gen(function* () {
        const { apiKey } = seed()
        const { error, entry } = yield* failedSave(apiKey, "first")
        assert.strictEqual(error.failed[0]!.cid, entry.cid)
        assert.isTrue("sealed" in entry.shards)
        assert.strictEqual(entry.name, "first.txt")
        assert.strictEqual(entry.address, alice.address.toLowerCase())
        const upload = yield* Upload.Upload
        yield* upload.encryptedText("second", { apiKey, signer: aliceSigner, name: "second.txt" })
        assert.deepStrictEqual(yield* PendingKeys.PendingKeys.use((journal) => journal.list()), [])
        assert.strictEqual(yield* decrypted(entry.cid!), "first")
      })
    )
  )

  it.effect("an entry that cannot be finished stops the next upload before a byte is sent", () =>
    run(
      Effect.gen(function* () {
        const { apiKey } = seed()
        const { entry } = yield* failedSave(apiKey, "stuck")
        network.faults.down({ host: "encryption", path: /setSharedKey/ })
        log.length = 0
        const upload = yield* Upload.Upload
        const error = (yield* Effect.flip(
          upload.encryptedText("next", { apiKey, signer: aliceSigner })
        )) as PendingKeysUnfinished
        assert.strictEqual(error._tag, "PendingKeysUnfinished")
        assert.deepStrictEqual(
          error.entries.map((e) => [e.name, e.cid]),
          [["stuck.txt", entry.cid]]
        )
        assert.match(
          error.message,
          /^1 earlier encrypted upload\(s\) of this account could not be finished: stuck\.txt/
        )
        assert.isFalse(log.some((request) => request.url.pathname === "/api/v0/add"))
        assert.strictEqual((yield* PendingKeys.PendingKeys.use((journal) => journal.list())).length, 1)
      })
    )
  )
})

describe("Upload.repair", () => {
  it.effect("saves a stored file's shards, finds an unacknowledged one by its salt, drops what was never stored", () =>
    run(
      Effect.gen(function* () {
        const { apiKey } = seed()
        const journal = yield* PendingKeys.PendingKeys
        const known = (yield* failedSave(apiKey, "known")).entry
        const unanswered = (yield* failedSave(apiKey, "unanswered")).entry
        // As if the node had never answered: the CID is not in the entry.
        const { cid: _, ...withoutCid } = unanswered
        yield* journal.write(withoutCid)
        // An upload killed before its body reached the node: nothing stored under its salt.
        const shards = [1, 2, 3, 4, 5].map((n) => ({ key: `${n}`.repeat(64), index: `${n}a`.repeat(32) }))
        yield* journal.write({
          ...withoutCid,
          id: "never",
          name: "never.txt",
          salt: "ab".repeat(16),
          shards: { plain: shards }
        })
        const upload = yield* Upload.Upload
        const outcomes = yield* upload.repair({ apiKey, signer: aliceSigner })
        assert.deepStrictEqual(
          outcomes.map((o) => [o.name, o.outcome, o.cid]),
          [
            ["known.txt", "saved", known.cid],
            ["unanswered.txt", "saved", unanswered.cid],
            ["never.txt", "dropped", ""]
          ]
        )
        assert.deepStrictEqual(yield* journal.list(), [])
        assert.strictEqual(yield* decrypted(known.cid!), "known")
        assert.strictEqual(yield* decrypted(unanswered.cid!), "unanswered")
        // Idempotent: nothing left, nothing done.
        assert.deepStrictEqual(yield* upload.repair({ apiKey, signer: aliceSigner }), [])
      })
    )
  )

  it.effect("deleteOrphans: a stored file the node never acknowledged is deleted from the account", () =>
    run(
      Effect.gen(function* () {
        const { apiKey } = seed()
        const journal = yield* PendingKeys.PendingKeys
        const { cid, ...withoutCid } = (yield* failedSave(apiKey, "orphan")).entry
        yield* journal.write(withoutCid)
        const outcomes = yield* Upload.Upload.use((upload) =>
          upload.repair({ apiKey, signer: aliceSigner, deleteOrphans: true })
        )
        assert.deepStrictEqual(
          outcomes.map((o) => [o.outcome, o.cid]),
          [["deleted", cid]]
        )
        const listed = yield* Files.Files.use((files) => Stream.runCollect(files.uploads(apiKey)))
        assert.isFalse(listed.some((f) => f.cid === cid))
        assert.deepStrictEqual(yield* journal.list(), [])
      })
    )
  )

  it.effect("a save that fails again is an outcome naming the reason and the nodes; the entry stays", () =>
    run(
      Effect.gen(function* () {
        const { apiKey } = seed()
        const { entry } = yield* failedSave(apiKey, "again")
        network.faults.status({ host: "encryption", node: 4, method: "POST", path: "/api/setSharedKey/4" }, 500, {
          body: { message: "disk full" }
        })
        const [outcome] = yield* Upload.Upload.use((upload) => upload.repair({ apiKey, signer: aliceSigner }))
        assert.strictEqual(outcome!.outcome, "failed")
        assert.strictEqual(outcome!.cid, entry.cid)
        assert.deepStrictEqual(outcome!.savedNodes, [1, 2, 3])
        assert.strictEqual((yield* PendingKeys.PendingKeys.use((journal) => journal.list())).length, 1)
      })
    )
  )
})
