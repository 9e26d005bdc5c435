/**
 * The state in an SQLite database file (`node:sqlite`, built into Node ≥ 22.13 without a flag: no
 * native build).
 *
 * One table per kind of record (`StateTables`), each `key TEXT PRIMARY KEY, value TEXT` (JSON);
 * SQLite's `rowid` keeps the order rows were first written, which the uploads list relies on.
 * `schema_version` holds the version the file was last migrated to; `migrations` lists, in order,
 * what takes a file from one version to the next, each step applied in its own transaction.
 *
 * The journal is a write-ahead log with `synchronous = FULL`: a committed transaction survives the
 * process being killed (and the machine losing power); an uncommitted one leaves no trace.
 */
import type * as NodeSqlite from "node:sqlite"
import type { DatabaseSync, StatementSync } from "node:sqlite"
import { UnsupportedNode } from "../NodeSupport.ts"
import { decodeValue, encodeValue, type StateStore, type StateTable, StateTables } from "./State.ts"

/**
 * `node:sqlite`, loaded only when a state file is opened: a static import would stop
 * `lighthouse-effect/mocks/node` and `/mocks/server` from loading at all on a Node without it (Node
 * 20, and 22 before 22.13), though only a state directory uses it. `process.getBuiltinModule`
 * (Node ≥ 20.16 and 22.3) keeps opening synchronous; it answers `undefined` for a module this Node
 * does not have, and is itself missing on older ones.
 */
export const loadSqlite = (): typeof NodeSqlite => {
  const sqlite = process.getBuiltinModule?.("node:sqlite")
  if (sqlite === undefined)
    throw new UnsupportedNode(
      "A state directory",
      "22.13",
      "for node:sqlite",
      "without stateDir the simulated network keeps its state in memory"
    )
  return sqlite
}

const createTable = (db: DatabaseSync, table: StateTable) =>
  db.exec(`CREATE TABLE ${table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)

/**
 * Migration `i` takes a database from version `i` to `i + 1`. A step never changes once released:
 * a new table is a new step, so files written by any earlier version reach the same schema.
 */
export const migrations: ReadonlyArray<(db: DatabaseSync) => void> = [
  (db) => {
    const first: ReadonlyArray<StateTable> = [
      "accounts",
      "api_keys",
      "files",
      "ipns_keys",
      "ipns_records",
      "deals",
      "key_shards",
      "spent_nonces",
      "releases",
      "payments_seen",
      "meta"
    ]
    for (const table of first) createTable(db, table)
  },
  (db) => createTable(db, "walrus_blobs")
]

export const SchemaVersion = migrations.length

export class NewerSchema extends Error {
  constructor(file: string, found: number) {
    super(`${file} has schema version ${found}; this version of the local network knows up to ${SchemaVersion}`)
    this.name = "NewerSchema"
  }
}

const schemaVersion = (db: DatabaseSync): number => {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
  const row = db.prepare("SELECT version FROM schema_version").get() as { version: number } | undefined
  if (row === undefined) {
    db.exec("INSERT INTO schema_version (version) VALUES (0)")
    return 0
  }
  return row.version
}

const migrate = (db: DatabaseSync, file: string) => {
  const found = schemaVersion(db)
  if (found > SchemaVersion) throw new NewerSchema(file, found)
  for (let version = found; version < SchemaVersion; version++) {
    db.exec("BEGIN IMMEDIATE")
    try {
      migrations[version]!(db)
      db.prepare("UPDATE schema_version SET version = ?").run(version + 1)
      db.exec("COMMIT")
    } catch (error) {
      db.exec("ROLLBACK")
      throw error
    }
  }
}

interface Statements {
  readonly rows: StatementSync
  readonly get: StatementSync
  readonly put: StatementSync
  readonly remove: StatementSync
  readonly clear: StatementSync
}

const prepare = (db: DatabaseSync, table: StateTable): Statements => ({
  rows: db.prepare(`SELECT key, value FROM ${table} ORDER BY rowid`),
  get: db.prepare(`SELECT value FROM ${table} WHERE key = ?`),
  // An upsert keeps the row (and its rowid, hence its place in the order).
  put: db.prepare(
    `INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`
  ),
  remove: db.prepare(`DELETE FROM ${table} WHERE key = ?`),
  clear: db.prepare(`DELETE FROM ${table}`)
})

/**
 * Opens (creating and migrating when needed) the state database at `file`; `UnsupportedNode` on a
 * Node without `node:sqlite`.
 */
export const openSqliteState = (file: string, sqlite: typeof NodeSqlite = loadSqlite()): StateStore => {
  const db = new sqlite.DatabaseSync(file)
  try {
    db.exec("PRAGMA journal_mode = WAL")
    db.exec("PRAGMA synchronous = FULL")
    db.exec("PRAGMA busy_timeout = 5000")
    migrate(db, file)
  } catch (error) {
    db.close()
    throw error
  }
  const statements = new Map(StateTables.map((table) => [table, prepare(db, table)]))
  const of = (table: StateTable) => statements.get(table)!
  let depth = 0

  const atomically = <A>(change: () => A): A => {
    if (depth > 0) return change()
    db.exec("BEGIN IMMEDIATE")
    depth = 1
    try {
      const result = change()
      depth = 0
      db.exec("COMMIT")
      return result
    } catch (error) {
      depth = 0
      db.exec("ROLLBACK")
      throw error
    }
  }

  return {
    location: file,
    rows: (table) =>
      (of(table).rows.all() as Array<{ key: string; value: string }>).map((row) => ({
        key: row.key,
        value: decodeValue(row.value)
      })),
    get: (table, key) => {
      const row = of(table).get.get(key) as { value: string } | undefined
      return row === undefined ? undefined : decodeValue(row.value)
    },
    put: (table, key, value) => {
      of(table).put.run(key, encodeValue(value))
    },
    remove: (table, key) => {
      of(table).remove.run(key)
    },
    clear: (tables = StateTables) => {
      atomically(() => {
        for (const table of tables) of(table).clear.run()
      })
    },
    atomically,
    close: () => {
      if (db.isOpen) db.close()
    }
  }
}
