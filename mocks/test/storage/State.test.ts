/**
 * The two state stores (memory, SQLite) keep the same rows in the same order, write a logical
 * change all or nothing, round-trip bytes, bigints and CIDs, and the SQLite file keeps everything
 * across reopening, with its schema version recorded; a file of an earlier schema is migrated.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import fc from "fast-check"
import { CID } from "multiformats/cid"
import { afterEach, describe, expect, it } from "vitest"
import { makeMirror } from "../../src/storage/Mirror.ts"
import { migrations, NewerSchema, openSqliteState, SchemaVersion } from "../../src/storage/SqliteState.ts"
import { decodeValue, encodeValue, memoryState, type StateStore } from "../../src/storage/State.ts"

const directories: Array<string> = []
const opened: Array<StateStore> = []
afterEach(async () => {
  for (const store of opened.splice(0)) store.close()
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})
const databaseFile = async () => {
  const directory = await mkdtemp(join(tmpdir(), "state-"))
  directories.push(directory)
  return join(directory, "state.sqlite")
}
const track = (store: StateStore) => {
  opened.push(store)
  return store
}

const stores: ReadonlyArray<readonly [string, () => Promise<StateStore>]> = [
  ["memory", async () => memoryState()],
  ["sqlite", async () => track(openSqliteState(await databaseFile()))]
]

describe.each(stores)("%s state", (_name, open) => {
  it("keeps rows in first-written order; an update keeps its place", async () => {
    const store = await open()
    store.put("files", "a", { n: 1 })
    store.put("files", "b", { n: 2 })
    store.put("files", "c", { n: 3 })
    store.put("files", "a", { n: 10 })
    store.remove("files", "b")
    expect(store.rows("files")).toEqual([
      { key: "a", value: { n: 10 } },
      { key: "c", value: { n: 3 } }
    ])
    expect(store.get("files", "c")).toEqual({ n: 3 })
    expect(store.get("files", "b")).toBeUndefined()
    expect(store.rows("accounts")).toEqual([])
  })

  it("writes a change all or nothing", async () => {
    const store = await open()
    store.put("accounts", "0xa", { dataUsed: 0 })
    store.put("files", "keep", 1)
    expect(() =>
      store.atomically(() => {
        store.put("accounts", "0xa", { dataUsed: 100 })
        store.put("files", "new", { cid: "x" })
        store.remove("files", "keep")
        store.atomically(() => store.put("deals", "d", 1))
        throw new Error("refused half way")
      })
    ).toThrow("refused half way")
    expect(store.get("accounts", "0xa")).toEqual({ dataUsed: 0 })
    expect(store.rows("files")).toEqual([{ key: "keep", value: 1 }])
    expect(store.rows("deals")).toEqual([])
    const answer = store.atomically(() => {
      store.put("files", "new", 2)
      return "done"
    })
    expect(answer).toBe("done")
    expect(store.rows("files").map((row) => row.key)).toEqual(["keep", "new"])
  })

  it("rolls a removed row back into its place", async () => {
    const store = await open()
    for (const key of ["a", "b", "c"]) store.put("files", key, key)
    expect(() =>
      store.atomically(() => {
        store.remove("files", "b")
        throw new Error("no")
      })
    ).toThrow("no")
    expect(store.rows("files").map((row) => row.key)).toEqual(["a", "b", "c"])
  })

  it("clears all tables or the ones named", async () => {
    const store = await open()
    store.put("files", "a", 1)
    store.put("accounts", "b", 2)
    store.clear(["files"])
    expect(store.rows("files")).toEqual([])
    expect(store.rows("accounts")).toHaveLength(1)
    store.clear()
    expect(store.rows("accounts")).toEqual([])
  })

  it("round-trips bytes, bigints and CIDs", async () => {
    const store = await open()
    const cid = CID.parse("bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4")
    const value = { cid, bytes: Uint8Array.of(0, 1, 255), big: 2n ** 70n, nested: [{ cid }], text: "t", n: null }
    store.put("deals", "k", value)
    const back = store.get("deals", "k") as typeof value
    expect(back.cid.equals(cid)).toBe(true)
    expect(back.nested[0]!.cid.equals(cid)).toBe(true)
    expect(back.bytes).toEqual(Uint8Array.of(0, 1, 255))
    expect(back.big).toBe(2n ** 70n)
    expect(back.text).toBe("t")
    expect(back.n).toBeNull()
  })
})

describe("value encoding", () => {
  it("round-trips any JSON value with bytes and bigints inside", () => {
    const leaf = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.bigInt(),
      fc.uint8Array({ maxLength: 40 })
    )
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("node")),
        fc.dictionary(
          fc.string().filter((key) => !key.startsWith("$")),
          tie("node")
        )
      )
    })).node
    fc.assert(
      fc.property(value, (v) => {
        expect(decodeValue(encodeValue(v))).toEqual(v)
      })
    )
  })
})

describe("sqlite state file", () => {
  it("keeps everything across reopening and records its schema version", async () => {
    const file = await databaseFile()
    const first = openSqliteState(file)
    first.atomically(() => {
      first.put("api_keys", "key-1", "0xabc")
      first.put("files", "f1", { cid: "bafy", fileSizeInBytes: "12" })
    })
    first.close()
    const second = track(openSqliteState(file))
    expect(second.get("api_keys", "key-1")).toBe("0xabc")
    expect(second.rows("files")).toEqual([{ key: "f1", value: { cid: "bafy", fileSizeInBytes: "12" } }])
    const db = new DatabaseSync(file, { readOnly: true })
    expect(db.prepare("SELECT version FROM schema_version").all()).toEqual([{ version: SchemaVersion }])
    db.close()
  })

  it("migrates a file written by the first schema forward, keeping its rows", async () => {
    const file = await databaseFile()
    // A version-1 file, as the first release wrote it: its tables and one upload record.
    const old = new DatabaseSync(file)
    old.exec("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (0)")
    migrations[0]!(old)
    old.exec("UPDATE schema_version SET version = 1")
    old.prepare("INSERT INTO files (key, value) VALUES (?, ?)").run("f1", encodeValue({ cid: "bafy" }))
    expect(() => old.prepare("SELECT * FROM walrus_blobs").all()).toThrow(/no such table/)
    old.close()

    const store = track(openSqliteState(file))
    expect(store.rows("files")).toEqual([{ key: "f1", value: { cid: "bafy" } }])
    store.put("walrus_blobs", "bafy", ["blob-id"])
    expect(store.get("walrus_blobs", "bafy")).toEqual(["blob-id"])
    const db = new DatabaseSync(file, { readOnly: true })
    expect(db.prepare("SELECT version FROM schema_version").all()).toEqual([{ version: SchemaVersion }])
    db.close()
  })

  it("refuses a file written by a newer schema", async () => {
    const file = await databaseFile()
    const db = new DatabaseSync(file)
    db.exec(
      `CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (${SchemaVersion + 1})`
    )
    db.close()
    expect(() => openSqliteState(file)).toThrow(new NewerSchema(file, SchemaVersion + 1))
  })
})

describe("mirror", () => {
  it("writes new and changed records, removes gone ones, and skips a sync with nothing new", () => {
    const store = memoryState()
    const files = new Map<string, { status: string }>([["a", { status: "queued" }]])
    const mirror = makeMirror(store, [{ table: "files", rows: () => files }])
    expect(mirror.sync()).toBe(1)
    expect(mirror.sync()).toBe(0)
    files.get("a")!.status = "active"
    files.set("b", { status: "queued" })
    expect(mirror.sync()).toBe(2)
    files.delete("a")
    expect(mirror.sync()).toBe(1)
    expect(store.rows("files")).toEqual([{ key: "b", value: { status: "queued" } }])
  })

  it("starts from what the store already holds", () => {
    const store = memoryState()
    store.put("accounts", "0xa", { dataUsed: 1 })
    const accounts = new Map([["0xa", { dataUsed: 1 }]])
    const mirror = makeMirror(store, [{ table: "accounts", rows: () => accounts }])
    expect(mirror.sync()).toBe(0)
  })

  it("retries everything after a sync that failed", () => {
    const store = memoryState()
    let fail = true
    const rows = new Map([["k", 1]])
    const mirror = makeMirror(store, [
      { table: "files", rows: () => rows },
      {
        table: "deals",
        rows: () => {
          if (fail) throw new Error("disk full")
          return []
        }
      }
    ])
    expect(() => mirror.sync()).toThrow("disk full")
    expect(store.rows("files")).toEqual([])
    fail = false
    expect(mirror.sync()).toBe(1)
    expect(store.rows("files")).toEqual([{ key: "k", value: 1 }])
  })
})
