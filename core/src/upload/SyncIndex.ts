/**
 * `Upload.sync`'s local index of one folder, kept in the caller's state directory: each file's
 * size, modification time and CID (so an unchanged file is not read again), the CIDs the node is
 * known to hold whole (every snapshot's files and folders), and the history of snapshots.
 *
 * One JSON file per synced folder, `<state>/sync/<hash of the folder's real path>.json`, in a
 * directory only its owner may enter (0700), readable by its owner only (0600). It is written to a
 * temporary file, flushed, then renamed over the index (as the key journal's entries are): an
 * interrupted sync leaves the previous index or the new one whole, and a re-run starts from it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Schema from "effect/Schema"
import { sha256 } from "multiformats/hashes/sha2"
import { SyncIndexFailed } from "../Errors.ts"

/**
 * A file as the last sync saw it.
 *
 * @category schemas
 */
export const IndexedFile = Schema.Struct({
  size: Schema.Number,
  mtimeMs: Schema.Number,
  cid: Schema.String,
  /** Bytes of every block of its DAG (the folder link's `Tsize`). */
  dagSize: Schema.Number
})
/** @category models */
export type IndexedFile = typeof IndexedFile.Type

/**
 * How a snapshot reached the node: only the blocks it lacked (`partial`), the whole folder because
 * the node refused a partial CAR (`full`).
 *
 * @category schemas
 */
export const SyncMode = Schema.Literals(["partial", "full"])
/** @category models */
export type SyncMode = typeof SyncMode.Type

/**
 * One snapshot of the folder: a UnixFS folder CID that restores the folder as it was.
 *
 * @category schemas
 */
export const Snapshot = Schema.Struct({
  cid: Schema.String,
  /** When it was stored, in milliseconds since the epoch. */
  at: Schema.Number,
  files: Schema.Number,
  /** Bytes of the files' content. */
  bytes: Schema.Number,
  /** Bytes of the request bodies' content sent for it (the CAR, or the files in a full upload). */
  bytesSent: Schema.Number,
  mode: SyncMode
})
/** @category models */
export type Snapshot = typeof Snapshot.Type

/** The index of one folder. */
export const SyncIndex = Schema.Struct({
  version: Schema.Literal(1),
  /** The folder's real path. */
  directory: Schema.String,
  files: Schema.Record(Schema.String, IndexedFile),
  /** CIDs the node holds with everything under them. */
  stored: Schema.Array(Schema.String),
  /** Oldest first. */
  snapshots: Schema.Array(Snapshot)
})
export type SyncIndex = typeof SyncIndex.Type

const SyncIndexJson = Schema.fromJsonString(SyncIndex)

const DIRECTORY_MODE = 0o700
const FILE_MODE = 0o600

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** Where the index of the folder at real path `directory` lives under `stateDirectory`. */
export const indexLocation = (stateDirectory: string, directory: string): Effect.Effect<string> =>
  Effect.promise(async () => {
    const digest = await sha256.digest(new TextEncoder().encode(directory))
    return `${stateDirectory.replace(/[\\/]+$/, "")}/sync/${hex(digest.digest).slice(0, 32)}.json`
  })

/** An index with nothing in it yet. */
export const emptyIndex = (directory: string): SyncIndex => ({
  version: 1,
  directory,
  files: {},
  stored: [],
  snapshots: []
})

/** The index at `location`; an empty one when there is none yet. */
export const readIndex = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  location: string,
  directory: string
): Effect.fn.Return<SyncIndex, SyncIndexFailed> {
  const failed = (cause: unknown) => new SyncIndexFailed({ operation: "read", location, cause })
  if (!(yield* fs.exists(location).pipe(Effect.mapError(failed)))) return emptyIndex(directory)
  const text = yield* fs.readFileString(location).pipe(Effect.mapError(failed))
  return yield* Schema.decodeUnknownEffect(SyncIndexJson)(text).pipe(Effect.mapError(failed))
})

/** The folder of the index at `location`, made when absent, entered by its owner only. */
export const makeIndexFolder = (fs: FileSystem.FileSystem, location: string): Effect.Effect<void, SyncIndexFailed> => {
  const folder = location.slice(0, location.lastIndexOf("/"))
  return fs.makeDirectory(folder, { recursive: true, mode: DIRECTORY_MODE }).pipe(
    Effect.andThen(fs.chmod(folder, DIRECTORY_MODE)),
    Effect.mapError((cause) => new SyncIndexFailed({ operation: "write", location, cause }))
  )
}

/** Writes `index` whole over `location`, or leaves the previous one in place. */
export const writeIndex = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  location: string,
  index: SyncIndex
): Effect.fn.Return<void, SyncIndexFailed> {
  const folder = location.slice(0, location.lastIndexOf("/"))
  const temporary = `${location}.${hex(crypto.getRandomValues(new Uint8Array(6)))}.tmp`
  const text = yield* Schema.encodeEffect(SyncIndexJson)(index).pipe(Effect.orDie)
  yield* Effect.gen(function* () {
    yield* fs.makeDirectory(folder, { recursive: true, mode: DIRECTORY_MODE })
    yield* fs.chmod(folder, DIRECTORY_MODE)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const file = yield* fs.open(temporary, { flag: "wx", mode: FILE_MODE })
        yield* file.writeAll(new TextEncoder().encode(text))
        yield* file.sync
      })
    )
    yield* fs.rename(temporary, location)
  }).pipe(
    Effect.tapError(() => fs.remove(temporary).pipe(Effect.ignore)),
    Effect.mapError((cause) => new SyncIndexFailed({ operation: "write", location, cause }))
  )
})
