/**
 * Keeps a state store in step with the network's in-memory registries.
 *
 * Each registry names its table and lists its records; `sync` writes, in one transaction, every
 * record that is new or changed since the last sync and removes those that are gone. The network
 * syncs after each request it answers (so one request is one atomic change: an upload's record
 * and its quota use land together, after its blocks are stored) and after the helpers tests and
 * scripts call (`seedAccount`, `simulateDeal`, …). Records changed in place are found by their
 * encoding, so registries need no write hooks.
 */
import { encodeValue, type StateStore, type StateTable } from "./State.ts"

/** A registry as the mirror sees it. */
export interface Mirrored {
  readonly table: StateTable
  /** Every record now, by key. */
  readonly rows: () => Iterable<readonly [string, unknown]>
}

export interface Mirror {
  /** Writes what changed since the last sync; answers how many rows were written or removed. */
  readonly sync: () => number
  /** Forgets what was written (after the store was cleared). */
  readonly forget: () => void
}

export const makeMirror = (store: StateStore, registries: ReadonlyArray<Mirrored>): Mirror => {
  // What each table holds, as last written (key → encoding); seeded from the store itself.
  const written = new Map<StateTable, Map<string, string>>()
  const seed = () => {
    written.clear()
    for (const { table } of registries) {
      written.set(table, new Map(store.rows(table).map((row) => [row.key, encodeValue(row.value)])))
    }
  }
  seed()
  return {
    sync: () => {
      const next = new Map<StateTable, Map<string, string>>()
      const changes = store.atomically(() => {
        let count = 0
        for (const { table, rows } of registries) {
          const before = written.get(table)!
          const now = new Map<string, string>()
          for (const [key, value] of rows()) {
            const text = encodeValue(value)
            now.set(key, text)
            if (before.get(key) !== text) {
              store.put(table, key, value)
              count += 1
            }
          }
          for (const key of before.keys()) {
            if (!now.has(key)) {
              store.remove(table, key)
              count += 1
            }
          }
          next.set(table, now)
        }
        return count
      })
      // Only a committed sync moves the baseline: after a failed one, the next retries everything.
      for (const [table, rows] of next) written.set(table, rows)
      return changes
    },
    forget: seed
  }
}
