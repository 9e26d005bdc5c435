/**
 * Where the local network keeps everything but blocks: accounts, API keys, the uploads list, key
 * shards, access conditions, shares, IPNS keys and records, deals, payments seen, Walrus blobs.
 *
 * One interface, two stores: `memoryState()` (tests, `serve` without `--state-dir`) and
 * `openSqliteState(file)` (see `SqliteState.ts`). The network's registries keep their working copy
 * in memory (it is small: no content bytes) and write every change through to the store; at start
 * they load what the store holds. A logical change (an upload's record and its quota use, a key
 * node's shard and its audit entry) is written inside one `atomically` call: all of it lands, or
 * none of it does.
 *
 * Values are JSON; bytes, bigints and CIDs survive the round trip (`encodeValue`/`decodeValue`), as
 * one-key objects `{ $bytes }`, `{ $bigint }`, `{ $cid }`, names a stored record never uses itself.
 */
import { base64 } from "multiformats/bases/base64"
import { CID } from "multiformats/cid"

/** The tables of the state, one per kind of record. */
export const StateTables = [
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
  "meta",
  "walrus_blobs"
] as const

export type StateTable = (typeof StateTables)[number]

export interface StateRow {
  readonly key: string
  readonly value: unknown
}

export interface StateStore {
  /** `memory`, or the database file. */
  readonly location: string
  /** The rows of a table in the order they were first written (an update keeps a row's place). */
  readonly rows: (table: StateTable) => ReadonlyArray<StateRow>
  readonly get: (table: StateTable, key: string) => unknown
  /** Inserts or replaces. */
  readonly put: (table: StateTable, key: string, value: unknown) => void
  readonly remove: (table: StateTable, key: string) => void
  /** Empties the tables (all by default). */
  readonly clear: (tables?: ReadonlyArray<StateTable>) => void
  /**
   * Runs `change`; every `put`/`remove` inside it is written in one transaction, or, when it
   * throws, none is. Nested calls join the outer one.
   */
  readonly atomically: <A>(change: () => A) => A
  readonly close: () => void
}

// =============================================================================
// Values
// =============================================================================

/** JSON text of a value; `Uint8Array`, `bigint` and `CID` are tagged so `decodeValue` restores them. */
export const encodeValue = (value: unknown): string =>
  JSON.stringify(value, function (this: Record<string, unknown>, key, converted: unknown) {
    // `this[key]` is the value before its own `toJSON` (a CID's) ran; at the top, `this` is `{ "": value }`.
    const original = this[key]
    const cid = CID.asCID(original)
    if (cid !== null) return { $cid: cid.toString() }
    if (original instanceof Uint8Array) return { $bytes: base64.baseEncode(original) }
    if (typeof original === "bigint") return { $bigint: original.toString() }
    return converted
  })

export const decodeValue = (text: string): unknown =>
  JSON.parse(text, (_key, value: unknown) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value
    const keys = Object.keys(value)
    if (keys.length !== 1) return value
    const tagged = value as { $cid?: unknown; $bytes?: unknown; $bigint?: unknown }
    if (typeof tagged.$cid === "string") return CID.parse(tagged.$cid)
    if (typeof tagged.$bytes === "string") return base64.baseDecode(tagged.$bytes)
    if (typeof tagged.$bigint === "string") return BigInt(tagged.$bigint)
    return value
  })

// =============================================================================
// In memory
// =============================================================================

type Undo = () => void

/**
 * The state in this process's memory. Values are stored encoded, as on disk, so both stores hand
 * back copies and reject the same unencodable values.
 */
export const memoryState = (): StateStore => {
  const tables = new Map<StateTable, Map<string, string>>(StateTables.map((table) => [table, new Map()]))
  let undo: Array<Undo> | undefined
  const table = (name: StateTable) => tables.get(name)!
  const remember = (name: StateTable, key: string, removing: boolean) => {
    if (undo === undefined) return
    const rows = table(name)
    const previous = rows.get(key)
    if (previous === undefined) undo.push(() => rows.delete(key))
    else if (!removing) undo.push(() => rows.set(key, previous))
    else {
      // Putting a removed row back must restore its place: rebuild the table as it was.
      const before = [...rows]
      undo.push(() => {
        rows.clear()
        for (const [k, v] of before) rows.set(k, v)
      })
    }
  }
  return {
    location: "memory",
    rows: (name) => [...table(name)].map(([key, text]) => ({ key, value: decodeValue(text) })),
    get: (name, key) => {
      const text = table(name).get(key)
      return text === undefined ? undefined : decodeValue(text)
    },
    put: (name, key, value) => {
      const text = encodeValue(value)
      remember(name, key, false)
      table(name).set(key, text)
    },
    remove: (name, key) => {
      if (!table(name).has(key)) return
      remember(name, key, true)
      table(name).delete(key)
    },
    clear: (names = StateTables) => {
      for (const name of names) {
        const rows = table(name)
        if (undo !== undefined) {
          const before = [...rows]
          undo.push(() => {
            rows.clear()
            for (const [k, v] of before) rows.set(k, v)
          })
        }
        rows.clear()
      }
    },
    atomically: (change) => {
      if (undo !== undefined) return change()
      const steps: Array<Undo> = []
      undo = steps
      try {
        return change()
      } catch (error) {
        undo = undefined
        for (const step of steps.reverse()) step()
        throw error
      } finally {
        undo = undefined
      }
    },
    close: () => {}
  }
}
