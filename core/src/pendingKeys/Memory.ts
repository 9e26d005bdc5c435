/**
 * The key journal in this process's memory: for tests, and the default where no durable journal
 * is given (it survives a failed save, not the process).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { PendingEntry } from "./Models.ts"

/** A journal over one `Map`, oldest entries first. */
export const make = () => {
  const entries = new Map<string, PendingEntry>()
  return {
    write: (entry: PendingEntry) =>
      Effect.sync(() => {
        entries.set(entry.id, entry)
      }),
    remove: (id: string) =>
      Effect.sync(() => {
        entries.delete(id)
      }),
    list: (address?: string) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter((e) => address === undefined || e.address === address.toLowerCase())
          .sort((a, b) => a.createdAt - b.createdAt)
      )
  }
}
