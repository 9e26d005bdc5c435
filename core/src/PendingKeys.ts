/**
 * `PendingKeys`: the caller-side journal of encrypted uploads whose key shards are not yet on all
 * 5 key nodes. An encrypted upload writes its entry (owner, file name and size, the 5 shards,
 * `shareTo`, the time, the salt its ciphertext starts with) before the first byte is sent,
 * records the CID once the upload node answers, and removes the entry only once every node holds
 * its shard; `Upload.repair` finishes (or undoes) what a crash, a Ctrl-C or a key-node outage
 * left. With a signer the shards are sealed for it (`pendingKeys/Seal.ts`).
 *
 * Layers: `layerMemory` (this process only: tests, and the default of `Upload` where none is
 * given), `layerFile(directory)` (one 0600 file per entry in a 0700 directory, written with
 * `fsync` and a rename: `pendingKeys/FileJournal.ts`) and `layerState(home)`, the file journal under the
 * user's state directory (`$XDG_STATE_HOME/lighthouse-effect/pending-keys`, else
 * `~/.local/state/lighthouse-effect/pending-keys`), which `LighthouseNode.layer` uses. Any other store (a
 * server's database, a browser's IndexedDB) is a `PendingKeys.of({ write, remove, list })`.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { JournalFailed } from "./Errors.ts"
import * as FileJournal from "./pendingKeys/FileJournal.ts"
import * as Memory from "./pendingKeys/Memory.ts"
import type { PendingEntry } from "./pendingKeys/Models.ts"

export { DIRECTORY_MODE, FILE_MODE } from "./pendingKeys/FileJournal.ts"
export * from "./pendingKeys/Models.ts"
export * as Seal from "./pendingKeys/Seal.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What a key journal offers. `write` returns once the entry is durable (as durable as the store).
 *
 * @category models
 */
export interface Service {
  /** Writes an entry, or a newer version of one (same `id`). */
  readonly write: (entry: PendingEntry) => Effect.Effect<void, JournalFailed>
  /** Removes an entry; removing one that is not there succeeds. */
  readonly remove: (id: string) => Effect.Effect<void, JournalFailed>
  /** The entries, oldest first; only `address`'s (any case) when given. Entries that cannot be read are skipped. */
  readonly list: (address?: string) => Effect.Effect<ReadonlyArray<PendingEntry>, JournalFailed>
}

/**
 * The journal of pending key shards.
 *
 * @category services
 */
export class PendingKeys extends Context.Service<PendingKeys, Service>()("lighthouse-effect/PendingKeys") {}

// =============================================================================
// Layers
// =============================================================================

/**
 * A journal in this process's memory; each use of the layer is a journal of its own (a layer's
 * value is otherwise shared by every program it is provided to).
 *
 * @category layers
 */
export const layerMemory: Layer.Layer<PendingKeys> = Layer.fresh(
  Layer.sync(PendingKeys, () => PendingKeys.of(Memory.make()))
)

const fileService = (deps: FileJournal.FileJournalDeps): Service =>
  PendingKeys.of({
    write: (entry) => FileJournal.write(deps, entry),
    remove: (id) => FileJournal.remove(deps, id),
    list: (address) => FileJournal.list(deps, address)
  })

/**
 * A journal of files in `directory` (made 0700; files 0600).
 *
 * @category layers
 */
export const layerFile = (directory: string): Layer.Layer<PendingKeys, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    PendingKeys,
    Effect.gen(function* () {
      return fileService({ fs: yield* FileSystem.FileSystem, path: yield* Path.Path, directory })
    })
  )

/**
 * The journal's directory under the user's state directory: `$XDG_STATE_HOME/lighthouse-effect/pending-keys`,
 * else `<home>/.local/state/lighthouse-effect/pending-keys` with `$HOME`, else `home` (Node's
 * `os.homedir()`); `None` when there is none of them.
 *
 * @category constructors
 */
export const stateDirectory = (home?: string): Effect.Effect<Option.Option<string>, never, Path.Path> =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const nonEmpty = (name: string) =>
      Config.option(Config.String(name)).pipe(
        Effect.map(Option.filter((value) => value !== "")),
        Effect.orElseSucceed(() => Option.none<string>())
      )
    const xdg = yield* nonEmpty("XDG_STATE_HOME")
    if (Option.isSome(xdg)) return Option.some(path.join(xdg.value, "lighthouse-effect", "pending-keys"))
    const homeDirectory = Option.orElse(yield* nonEmpty("HOME"), () => Option.fromUndefinedOr(home))
    return Option.map(homeDirectory, (h) => path.join(h, ".local", "state", "lighthouse-effect", "pending-keys"))
  })

const noStateDirectory = (operation: string) =>
  Effect.fail(
    new JournalFailed({ operation, location: "the state directory", cause: "neither XDG_STATE_HOME nor HOME is set" })
  )

/**
 * The file journal under the user's state directory ({@link stateDirectory}, `home` the last
 * resort); every call fails with `JournalFailed` where there is none.
 *
 * @category layers
 */
export const layerState = (home?: string): Layer.Layer<PendingKeys, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    PendingKeys,
    Effect.gen(function* () {
      const directory = yield* stateDirectory(home)
      if (Option.isSome(directory))
        return fileService({ fs: yield* FileSystem.FileSystem, path: yield* Path.Path, directory: directory.value })
      return PendingKeys.of({
        write: () => noStateDirectory("write"),
        remove: () => noStateDirectory("remove"),
        list: () => noStateDirectory("list")
      })
    })
  )
