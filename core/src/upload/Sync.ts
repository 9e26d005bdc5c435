/**
 * `Upload.sync`: a folder on disk kept stored, sending only what changed. Each run makes one
 * snapshot, a plain UnixFS folder CID (the one a folder upload of the same files gives), which
 * any gateway serves and `Download.toDirectory` restores.
 *
 * 1. The folder is walked (as folder uploads walk it); a file whose size and modification time
 *    the index holds keeps its CID, any other is read once to compute it (`SyncCar.hashFile`).
 * 2. The folder nodes are built on the client (`unixfs/Tree.ts`); blocks whose CIDs the index
 *    knows the node holds whole (earlier snapshots' files and folders) are not sent.
 * 3. One CAR goes through `dag/import`: the root, the new folder nodes, then each new file's
 *    blocks, built again as its bytes are read (memory does not grow with the folder). The
 *    node takes it when the DAG is whole with what it holds (docs/PROTOCOL.md, partial CARs);
 *    if it refuses, the whole folder is uploaded instead and the result says `full`.
 * 4. The index (files, what is stored, the snapshot) is written atomically; it is also written
 *    while files are hashed, so an interrupted run, re-run, does not read them again.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { PlatformError } from "effect/PlatformError"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { lockTarget } from "../download/TargetLock.ts"
import {
  CidMismatch,
  FileStreamError,
  type SyncIndexFailed,
  SyncInProgress,
  type SyncSourceChanged,
  type UnreadableEntry
} from "../Errors.ts"
import { Routes } from "../routes/Routes.ts"
import { Credential } from "../schema/Credential.ts"
import { kuboLayout, type Layout } from "../unixfs/Layout.ts"
import type { Built } from "../unixfs/Tree.ts"
import * as Input from "./Input.ts"
import { DealParameters, type UploadFailure } from "./Options.ts"
import type { PlainDeps } from "./Plain.ts"
import * as Plain from "./Plain.ts"
import * as Response from "./Response.ts"
import { send } from "./Send.ts"
import { type Block, carHeader, carSection, fileSections, folderBlocks, hashFile } from "./SyncCar.ts"
import {
  type IndexedFile,
  indexLocation,
  makeIndexFolder,
  readIndex,
  type Snapshot,
  type SyncIndex,
  SyncMode,
  writeIndex
} from "./SyncIndex.ts"
import { walk } from "./Walk.ts"

export { Snapshot } from "./SyncIndex.ts"

/**
 * What `Upload.sync` takes.
 *
 * @category schemas
 */
export const SyncOptions = Schema.Struct({
  /** The account's API key. */
  apiKey: Credential,
  /** Where the index of each synced folder is kept (the caller's state directory). */
  stateDirectory: Schema.String,
  /** CID version of the snapshots. @default 1 */
  cidVersion: Schema.optional(Schema.Literals([0, 1])),
  /** Sent as `X-Deal-Parameter` (JSON). */
  dealParameters: Schema.optional(Schema.NullOr(DealParameters)),
  /** Computes the snapshot and what would be sent, sends nothing and writes no index. @default false */
  dryRun: Schema.optional(Schema.Boolean)
})
/** @category models */
export type SyncOptions = typeof SyncOptions.Type

/**
 * What `Upload.syncHistory` takes.
 *
 * @category schemas
 */
export const SyncHistoryOptions = Schema.Struct({ stateDirectory: Schema.String })
/** @category models */
export type SyncHistoryOptions = typeof SyncHistoryOptions.Type

/**
 * One run of `Upload.sync`: the snapshot's CID, how it was sent (`dry-run`: it was not), the
 * files it holds and their bytes, the files whose blocks were sent (or would be), those gone since
 * the last snapshot, how many files were read, and the bytes sent (a dry run: the blocks' bytes).
 *
 * @category schemas
 */
export const SyncResult = Schema.Struct({
  cid: Schema.String,
  mode: Schema.Union([SyncMode, Schema.Literal("dry-run")]),
  files: Schema.Number,
  bytes: Schema.Number,
  sent: Schema.Array(Schema.String),
  removed: Schema.Array(Schema.String),
  read: Schema.Number,
  bytesSent: Schema.Number,
  /** The snapshot is the same folder as the last one. */
  unchanged: Schema.Boolean
})
/** @category models */
export type SyncResult = typeof SyncResult.Type

/** How `sync` fails. */
export type SyncFailure =
  | UploadFailure
  | SyncIndexFailed
  | SyncInProgress
  | SyncSourceChanged
  | UnreadableEntry
  | PlatformError

/** A file of the folder, with its CID. */
interface Scanned extends IndexedFile {
  readonly relative: string
  readonly path: string
}

/** Bytes hashed between two writes of the index while files are read. */
const CHECKPOINT_BYTES = 64 * 1024 * 1024
const READ_CHUNK = 256 * 1024

const filesOf = (scanned: ReadonlyArray<Scanned>): Record<string, IndexedFile> =>
  Object.fromEntries(
    scanned.map(({ relative, size, mtimeMs, cid, dagSize }) => [relative, { size, mtimeMs, cid, dagSize }])
  )

/** Whether the index's entry still holds: same size and time, and a CID of this run's version. */
const isUnchanged = (known: IndexedFile, size: number, mtimeMs: number, layout: Layout) =>
  known.size === size && known.mtimeMs === mtimeMs && CID.parse(known.cid).version === layout.cidVersion

/** Every file of the folder with its CID: from the index when unchanged, else read. */
const scan = Effect.fnUntraced(function* (
  deps: PlainDeps,
  folder: { readonly directory: string; readonly location: string; readonly index: SyncIndex },
  layout: Layout,
  dryRun: boolean
) {
  const { files } = yield* walk(deps.fs, folder.directory)
  const scanned: Array<Scanned> = []
  let read = 0
  let sinceCheckpoint = 0
  for (const found of files) {
    const info = yield* deps.fs.stat(found.path)
    const mtimeMs = Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
    const known = folder.index.files[found.relative]
    if (known !== undefined && isUnchanged(known, found.size, mtimeMs, layout)) {
      scanned.push({ ...known, relative: found.relative, path: found.path })
      continue
    }
    const root = yield* hashFile(layout, deps.fs.stream(found.path, { chunkSize: READ_CHUNK }))
    scanned.push({
      relative: found.relative,
      path: found.path,
      size: found.size,
      mtimeMs,
      cid: `${root.cid}`,
      dagSize: root.size
    })
    read += 1
    sinceCheckpoint += found.size
    if (!dryRun && sinceCheckpoint >= CHECKPOINT_BYTES) {
      sinceCheckpoint = 0
      const index = folder.index
      yield* writeIndex(deps.fs, folder.location, { ...index, files: { ...index.files, ...filesOf(scanned) } })
    }
  }
  // What was read is kept before anything is sent: a re-run after a failed send reads nothing again.
  if (!dryRun && read > 0) {
    yield* writeIndex(deps.fs, folder.location, {
      ...folder.index,
      files: { ...folder.index.files, ...filesOf(scanned) }
    })
  }
  return { scanned, read }
})

/** A scanned file as the folder builder takes it. */
const builtOf = (file: Scanned): Built => {
  const cid = CID.parse(file.cid)
  // A file of one raw leaf has no UnixFS node, so no mode.
  return {
    path: file.relative,
    cid,
    size: BigInt(file.dagSize),
    directory: false,
    mode: cid.code === raw.code ? undefined : 0o644
  }
}

/** The files whose blocks the node lacks, each CID once. */
const newFiles = (scanned: ReadonlyArray<Scanned>, stored: ReadonlySet<string>): ReadonlyArray<Scanned> => {
  const seen = new Set<string>()
  return scanned.filter((file) => {
    if (stored.has(file.cid) || seen.has(file.cid)) return false
    seen.add(file.cid)
    return true
  })
}

/** The CAR of a snapshot: header, the folder nodes to send, each new file's blocks. */
const carBody = (
  deps: PlainDeps,
  layout: Layout,
  root: CID,
  folders: ReadonlyArray<Block>,
  files: ReadonlyArray<Scanned>
) =>
  Stream.suspend(() => {
    const sent = new Set(folders.map((block) => `${block.cid}`))
    return Stream.make(carHeader(root)).pipe(
      Stream.concat(Stream.fromIterable(folders.map(carSection))),
      Stream.concat(
        Stream.fromIterable(files).pipe(
          Stream.flatMap((file) =>
            fileSections(
              layout,
              deps.fs.stream(file.path, { chunkSize: READ_CHUNK }),
              { path: file.relative, cid: file.cid },
              sent
            )
          )
        )
      )
    )
  })

const sameCid = (a: string, b: CID) => CID.parse(a).toV1().equals(b.toV1())

/** Sends the CAR through `dag/import`; the CAR's bytes. */
const sendPartial = Effect.fnUntraced(function* (
  deps: PlainDeps,
  options: SyncOptions,
  root: CID,
  body: Stream.Stream<Uint8Array, SyncSourceChanged | PlatformError>
) {
  let carBytes = 0
  // The transport only carries a body's failure as a `FileStreamError`; a changed file wins over it.
  let changed: SyncSourceChanged | undefined
  const content = body.pipe(
    Stream.tap((chunk) =>
      Effect.sync(() => {
        carBytes += chunk.length
      })
    ),
    Stream.mapError((error) => {
      if (error._tag === "SyncSourceChanged") changed = error
      return new FileStreamError({ fileName: "snapshot.car", detail: error.message, cause: error })
    })
  )
  const { text, url } = yield* send(deps.hosts, {
    path: Routes.uploadNode.dagImport.path,
    apiKey: options.apiKey,
    encryption: false,
    mimeType: undefined,
    dealParameters: options.dealParameters,
    onProgress: undefined,
    parts: [{ name: "snapshot.car", size: undefined, content }]
  }).pipe(Effect.catch((error) => Effect.fail(changed ?? error)))
  const roots = yield* Response.carRoots(text, url)
  const answered = roots[0]?.Root.Cid["/"] ?? ""
  if (roots.length !== 1 || !sameCid(answered, root)) {
    return yield* new CidMismatch({ path: "", expected: `${root}`, answered })
  }
  return carBytes
})

/** Refusals that a full upload would meet too: the key, the quota. */
const FINAL_STATUSES: ReadonlySet<number> = new Set([401, 402, 403])

/** The whole folder as a folder upload, when the node refused the partial CAR; the content bytes sent. */
const sendFull = Effect.fnUntraced(function* (
  deps: PlainDeps,
  options: SyncOptions,
  directory: string,
  root: CID,
  scanned: ReadonlyArray<Scanned>
) {
  const entry = yield* Plain.folder(deps, Input.directory(directory), {
    apiKey: options.apiKey,
    cidVersion: options.cidVersion ?? 1,
    dealParameters: options.dealParameters
  })
  if (!sameCid(entry.Hash, root)) return yield* new CidMismatch({ path: "", expected: `${root}`, answered: entry.Hash })
  return scanned.reduce((sum, file) => sum + file.size, 0)
})

/** The paths of the last snapshot's files that are gone. */
const removedSince = (index: SyncIndex, scanned: ReadonlyArray<Scanned>) => {
  const now = new Set(scanned.map((file) => file.relative))
  return Object.keys(index.files).filter((path) => !now.has(path))
}

/**
 * One sync of a folder at a time (in this process or another): `<index>.lock` is held for the
 * scope, as downloads hold theirs (`TargetLock.ts`); `SyncInProgress` when a running process holds it.
 */
const lockFolder = (deps: PlainDeps, location: string, directory: string) =>
  Effect.andThen(
    makeIndexFolder(deps.fs, location),
    lockTarget(deps.fs, location).pipe(
      Effect.catchTag("DownloadInProgress", ({ lock, pid }) =>
        Effect.fail(new SyncInProgress({ directory, lock, pid }))
      )
    )
  )

/**
 * Stores a snapshot of the folder at `directory`, sending only what the node lacks. The folder's
 * lock is held throughout (a dry run, which writes nothing, takes none).
 */
export const sync = Effect.fn("Upload.sync")(function* (
  deps: PlainDeps,
  directory: string,
  options: SyncOptions
): Effect.fn.Return<SyncResult, SyncFailure, Scope.Scope> {
  const real = yield* deps.fs.realPath(directory)
  const location = yield* indexLocation(options.stateDirectory, real)
  const dryRun = options.dryRun === true
  if (!dryRun) yield* lockFolder(deps, location, real)
  const index = yield* readIndex(deps.fs, location, real)
  const layout = kuboLayout({ cidVersion: options.cidVersion ?? 1 })
  const { scanned, read } = yield* scan(deps, { directory: real, location, index }, layout, dryRun)
  const folder = yield* Effect.promise(() => folderBlocks(layout, scanned.map(builtOf)))
  const stored = new Set(index.stored)
  const rootKey = `${folder.root}`
  // The root always goes: the node's answer then vouches for the whole snapshot.
  const folders = folder.blocks.filter((block) => `${block.cid}` === rootKey || !stored.has(`${block.cid}`))
  const files = newFiles(scanned, stored)
  const common = {
    cid: rootKey,
    files: scanned.length,
    bytes: scanned.reduce((sum, file) => sum + file.size, 0),
    sent: files.map((file) => file.relative),
    removed: removedSince(index, scanned),
    read,
    unchanged: index.snapshots.at(-1)?.cid === rootKey
  }
  if (dryRun) {
    const blockBytes = [...folders.map((b) => b.bytes.length), ...files.map((f) => f.dagSize)]
    return { ...common, mode: "dry-run" as const, bytesSent: blockBytes.reduce((sum, n) => sum + n, 0) }
  }
  const sent = yield* sendPartial(deps, options, folder.root, carBody(deps, layout, folder.root, folders, files)).pipe(
    Effect.map((bytesSent) => ({ mode: "partial" as const, bytesSent })),
    Effect.catchTag("UploadRejected", (rejected) =>
      FINAL_STATUSES.has(rejected.status)
        ? Effect.fail(rejected)
        : Effect.map(sendFull(deps, options, real, folder.root, scanned), (bytesSent) => ({
            mode: "full" as const,
            bytesSent
          }))
    )
  )
  const snapshot: Snapshot = {
    cid: rootKey,
    at: yield* Clock.currentTimeMillis,
    files: common.files,
    bytes: common.bytes,
    ...sent
  }
  const nowStored = [...scanned.map((file) => file.cid), ...folder.blocks.map((block) => `${block.cid}`)]
  yield* writeIndex(deps.fs, location, {
    ...index,
    files: filesOf(scanned),
    stored: [...new Set([...index.stored, ...nowStored])],
    snapshots: [...index.snapshots, snapshot]
  })
  return { ...common, ...sent }
}, Effect.scoped)

/** The snapshots of the folder at `directory`, oldest first. */
export const history = Effect.fn("Upload.syncHistory")(function* (
  deps: PlainDeps,
  directory: string,
  options: SyncHistoryOptions
): Effect.fn.Return<ReadonlyArray<Snapshot>, SyncIndexFailed | PlatformError> {
  const real = yield* deps.fs.realPath(directory)
  const index = yield* readIndex(deps.fs, yield* indexLocation(options.stateDirectory, real), real)
  return index.snapshots
})
