/**
 * The key journal as files: one `<id>.json` per entry in a directory only its owner may enter
 * (0700), each file readable by its owner only (0600). An entry is written to a temporary file in
 * the same directory, flushed to disk (`fsync`), then renamed over `<id>.json`, and the directory
 * is flushed too: a reader sees the old entry or the new one whole, never a torn write. A
 * temporary file a crash left behind is never read (only `*.json` names are), and one that does
 * not parse (a disk that lied about `fsync`) is skipped.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import { randomBytes } from "../crypto/FileFormat.ts"
import { JournalFailed } from "../Errors.ts"
import { type PendingEntry, PendingEntryJson } from "./Models.ts"

export const DIRECTORY_MODE = 0o700
export const FILE_MODE = 0o600

/** What the file journal works with. */
export interface FileJournalDeps {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly directory: string
}

const failed = (operation: string, location: string) => (cause: unknown) =>
  new JournalFailed({ operation, location, cause })

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** The directory, made 0700 if missing and set to 0700 if it was wider. */
const ensureDirectory = Effect.fnUntraced(function* (deps: FileJournalDeps) {
  yield* deps.fs.makeDirectory(deps.directory, { recursive: true, mode: DIRECTORY_MODE })
  yield* deps.fs.chmod(deps.directory, DIRECTORY_MODE)
})

/** Flushes the directory, so the rename itself survives a power cut (best effort: not every platform opens directories). */
const syncDirectory = (deps: FileJournalDeps) =>
  Effect.scoped(Effect.flatMap(deps.fs.open(deps.directory, { flag: "r" }), (dir) => dir.sync)).pipe(Effect.ignore)

const fileOf = (deps: FileJournalDeps, id: string) => deps.path.join(deps.directory, `${id}.json`)

/** Writes `entry` whole, or leaves the previous version of it in place. */
export const write = Effect.fn("PendingKeys.write")(function* (deps: FileJournalDeps, entry: PendingEntry) {
  const target = fileOf(deps, entry.id)
  const text = yield* Schema.encodeEffect(PendingEntryJson)(entry).pipe(Effect.orDie)
  const temporary = deps.path.join(deps.directory, `.${entry.id}.${hex(randomBytes(6))}.tmp`)
  yield* Effect.gen(function* () {
    yield* ensureDirectory(deps)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const file = yield* deps.fs.open(temporary, { flag: "wx", mode: FILE_MODE })
        yield* file.writeAll(new TextEncoder().encode(text))
        yield* file.sync
      })
    )
    yield* deps.fs.rename(temporary, target)
    yield* syncDirectory(deps)
  }).pipe(
    Effect.tapError(() => deps.fs.remove(temporary).pipe(Effect.ignore)),
    Effect.mapError(failed("write", target))
  )
})

export const remove = Effect.fn("PendingKeys.remove")(function* (deps: FileJournalDeps, id: string) {
  const target = fileOf(deps, id)
  yield* deps.fs.remove(target, { force: true }).pipe(Effect.mapError(failed("remove", target)))
  yield* syncDirectory(deps)
})

/** One file's entry; `undefined` for a file that is gone or does not parse (never a torn write: see above). */
const readEntry = (deps: FileJournalDeps, name: string) =>
  deps.fs.readFileString(deps.path.join(deps.directory, name)).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(PendingEntryJson)),
    Effect.map((entry): PendingEntry | undefined => (`${entry.id}.json` === name ? entry : undefined)),
    Effect.orElseSucceed(() => undefined)
  )

/** The entries, oldest first; only `address`'s when given. */
export const list = Effect.fn("PendingKeys.list")(function* (deps: FileJournalDeps, address?: string) {
  if (!(yield* deps.fs.exists(deps.directory).pipe(Effect.mapError(failed("list", deps.directory))))) return []
  const names = yield* deps.fs.readDirectory(deps.directory).pipe(Effect.mapError(failed("list", deps.directory)))
  const entries = yield* Effect.forEach(
    names.filter((name) => name.endsWith(".json") && !name.startsWith(".")),
    (name) => readEntry(deps, name),
    { concurrency: 8 }
  )
  const owner = address?.toLowerCase()
  return entries
    .filter((e): e is PendingEntry => e !== undefined && (owner === undefined || e.address === owner))
    .sort((a, b) => a.createdAt - b.createdAt)
})
