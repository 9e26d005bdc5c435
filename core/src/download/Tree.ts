/**
 * `toDirectory`: a UnixFS folder's whole tree into a directory, from one trustless CAR of its DAG
 * (`GET /ipfs/{cid}?format=car&dag-scope=all`, depth-first, every block checked as it streams:
 * `TreeWalk.ts`), each file written as its blocks arrive. Nothing is collected: memory does not
 * grow with the tree, but for the report's lists.
 *
 * Only what the DAG says lands, and only inside the directory: an entry `TreeWalk.ts` refuses,
 * a path too long for the platform, or a folder whose place on disk holds something else (a
 * link is never followed) is skipped and reported. Each file is written beside its place
 * (`.<random>.partial`, opened `wx`) and renamed once its last block has checked; a failure
 * removes it, so only whole, verified files are ever left. An existing file is kept when its bytes
 * are the DAG's (a resumed download rewrites nothing), replaced only with `force`, else skipped
 * and reported.
 *
 * A folder's cost is per file, in the file system's thread pool: its bytes are gathered into
 * 256 KiB writes, a file that fits one is written in one call at its end, and inside a folder
 * this download made no file's place is looked at first (the lock keeps other downloads out);
 * elsewhere each place is looked at (`lstat`) before anything is written.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { PlatformError } from "effect/PlatformError"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import { NetworkError } from "../Errors.ts"
import { NotADirectoryTarget } from "../errors/Transfer.ts"
import { UnverifiableGateway } from "../errors/Verification.ts"
import { urlOf } from "../internal/Hosts.ts"
import { DownstreamCopies } from "../internal/OwnedBytes.ts"
import { walkCar } from "../verify/Car.ts"
import type { Pieces } from "../verify/Pieces.ts"
import { CAR_ACCEPT } from "../verify/Trustless.ts"
import type { DownloadDeps } from "./Content.ts"
import { planFor } from "./Content.ts"
import type { ListOptions, ToDirectoryOptions, TreeEntry, TreeReport } from "./Models.ts"
import type { Lane } from "./Open.ts"
import { lockTarget } from "./TargetLock.ts"
import { type Refusal, type TreeEvent, walkTree } from "./TreeWalk.ts"

/** The runtime's platform where it has one (Node, Bun, Deno); `undefined` in browsers and Workers, which write no folders. */
const platform = (globalThis as { readonly process?: { readonly platform?: string } }).process?.platform

/** The longest path the platform opens (`PATH_MAX` on Linux, `MAX_PATH` on Windows). */
const MAX_PATH = platform === "win32" ? 260 : platform === "darwin" ? 1024 : 4096

const separator = platform === "win32" ? "\\" : "/"

/** A file being written: beside its place, or compared with the file already there. */
interface Writing {
  readonly relative: string
  readonly place: string
  readonly scope: Scope.Closeable
  /** The temporary file, once named; `file` once opened (a file that fits the buffer is written whole at its end). */
  temporary: { readonly path: string; file: FileSystem.File | undefined } | undefined
  /** The file already at `place`, while its bytes are the DAG's so far. */
  existing: FileSystem.File | undefined
  position: number
}

/** Bytes gathered before a write (as `FileWrites.ts` gathers a file's): a socket's pieces are 64 KiB. */
const WRITE_BYTES = 256 * 1024

/** The state of one `toDirectory`: where it writes, what it has done, the file in hand. */
interface TreeState {
  readonly fs: FileSystem.FileSystem
  readonly dir: string
  readonly force: boolean
  readonly onProgress: ToDirectoryOptions["onProgress"]
  readonly written: Array<string>
  readonly kept: Array<string>
  readonly skipped: Array<{ readonly path: string; readonly reason: Refusal }>
  /** Folders skipped: nothing under them is written. */
  readonly skippedFolders: Set<string>
  /**
   * The folders open on the way down, by depth (the root at 0), and whether this download made
   * each: in a folder it made, nothing is at a file's place but what it wrote (no `lstat` per file).
   */
  readonly made: Array<{ readonly relative: string; readonly made: boolean }>
  /** The file in hand's bytes not yet written, reused from file to file. */
  readonly buffer: Uint8Array
  filled: number
  /** The temporary files' names: a random start, counted up. */
  readonly names: { readonly base: number; count: number }
  bytes: number
  files: number
  current: Writing | undefined
}

const relativeOf = (path: ReadonlyArray<string>) => path.join("/")
const placeOf = (state: TreeState, path: ReadonlyArray<string>) => [state.dir, ...path].join(separator)

/** Whether something above `path` was skipped. */
const underSkipped = (state: TreeState, path: ReadonlyArray<string>) => {
  for (let depth = 1; depth < path.length; depth++) {
    if (state.skippedFolders.has(relativeOf(path.slice(0, depth)))) return true
  }
  return false
}

const skip = (state: TreeState, path: ReadonlyArray<string>, reason: Refusal) => {
  state.skipped.push({ path: relativeOf(path), reason })
}

/** What is at `place`, not following a link; `undefined` when nothing is. */
const lookAt = (fs: FileSystem.FileSystem, place: string) =>
  fs.lstat(place).pipe(
    Effect.catchIf(
      (error) => error.reason._tag === "NotFound",
      () => Effect.succeed(undefined)
    )
  )

const progress = (state: TreeState) => state.onProgress?.({ bytes: state.bytes, files: state.files })

/** Whether this download made the folder holding `path` (then nothing else is in it). */
const inMadeFolder = (state: TreeState, path: ReadonlyArray<string>) => {
  const parent = state.made[path.length - 1]
  return parent?.made === true && parent.relative === relativeOf(path.slice(0, -1))
}

/** Notes the folder at `path` as open, made by this download or not; deeper ones are closed. */
const openFolder = (state: TreeState, path: ReadonlyArray<string>, made: boolean) => {
  state.made.length = path.length
  state.made.push({ relative: relativeOf(path), made })
}

/** A folder of the tree: made inside the directory, or skipped when something else is at its place. */
const enterFolder = Effect.fnUntraced(function* (state: TreeState, path: ReadonlyArray<string>) {
  if (path.length === 0 || underSkipped(state, path)) return
  const place = placeOf(state, path)
  const refusal: Refusal | undefined = place.length > MAX_PATH ? "path-too-long" : undefined
  const fresh = refusal === undefined && inMadeFolder(state, path)
  const found = refusal === undefined && !fresh ? yield* lookAt(state.fs, place) : undefined
  if (refusal === undefined && found === undefined) {
    yield* state.fs.makeDirectory(place)
    return openFolder(state, path, true)
  }
  if (found?.type === "Directory") {
    openFolder(state, path, false)
    return yield* removeLeftovers(state.fs, place)
  }
  state.skippedFolders.add(relativeOf(path))
  skip(state, path, refusal ?? "not-a-directory")
})

/** The name {@link temporaryBeside} gives a file being written. */
const TEMPORARY = /^\.[0-9a-f]{12}\.partial$/

/**
 * The temporary files a killed download left in `folder` (its cleanup never ran), removed: with
 * the directory's lock held, no other download is writing them.
 */
const removeLeftovers = Effect.fnUntraced(function* (fs: FileSystem.FileSystem, folder: string) {
  for (const name of yield* fs.readDirectory(folder)) {
    if (!TEMPORARY.test(name)) continue
    const found = yield* lookAt(fs, `${folder}${separator}${name}`)
    if (found?.type === "File") yield* fs.remove(`${folder}${separator}${name}`)
  }
})

/** A temporary name beside `place`, not yet used in this download (opened `wx`: never through something there). */
const temporaryBeside = (state: TreeState, place: string) => {
  const folder = place.slice(0, place.lastIndexOf(separator))
  const suffix = ((state.names.base + state.names.count++) % 2 ** 48).toString(16).padStart(12, "0")
  return `${folder}${separator}.${suffix}.partial`
}

/** The temporary file of the file in hand, opened `wx` (never through something already at its name). */
const openTemporary = (state: TreeState, writing: Writing) =>
  Effect.gen(function* () {
    const temporary = writing.temporary ?? { path: temporaryBeside(state, writing.place), file: undefined }
    writing.temporary = temporary
    const file = yield* state.fs.open(temporary.path, { flag: "wx" }).pipe(Scope.provide(writing.scope))
    temporary.file = file
    return file
  })

/** What the buffer holds, written to the temporary file (opened on its first write). */
const flush = Effect.fnUntraced(function* (state: TreeState, writing: Writing) {
  if (state.filled === 0) return
  const file = writing.temporary?.file ?? (yield* openTemporary(state, writing))
  const full = state.buffer.subarray(0, state.filled)
  state.filled = 0
  yield* file.writeAll(full)
})

/** A piece of the file in hand into the buffer, written out whenever the buffer is full. */
const gather = Effect.fnUntraced(function* (state: TreeState, writing: Writing, piece: Uint8Array) {
  if (state.filled === 0 && piece.byteLength >= state.buffer.byteLength) {
    const file = writing.temporary?.file ?? (yield* openTemporary(state, writing))
    return yield* file.writeAll(piece)
  }
  let at = 0
  while (at < piece.byteLength) {
    const taken = Math.min(piece.byteLength - at, state.buffer.byteLength - state.filled)
    state.buffer.set(at === 0 && taken === piece.byteLength ? piece : piece.subarray(at, at + taken), state.filled)
    state.filled += taken
    at += taken
    if (state.filled === state.buffer.byteLength) yield* flush(state, writing)
  }
})

/** A file of the tree starting: compared with the file at its place, written beside it, or skipped. */
const startFile = Effect.fnUntraced(function* (state: TreeState, path: ReadonlyArray<string>, size: number) {
  if (underSkipped(state, path)) return
  const place = placeOf(state, path)
  if (place.length > MAX_PATH) return skip(state, path, "path-too-long")
  const found = inMadeFolder(state, path) ? undefined : yield* lookAt(state.fs, place)
  if (found !== undefined && (found.type !== "File" || (Number(found.size) !== size && !state.force))) {
    return skip(state, path, "exists")
  }
  const writing: Writing = {
    relative: relativeOf(path),
    place,
    scope: yield* Scope.make(),
    temporary: undefined,
    existing: undefined,
    position: 0
  }
  state.current = writing
  state.filled = 0
  if (found !== undefined && Number(found.size) === size) {
    writing.existing = yield* state.fs.open(place, { flag: "r" }).pipe(Scope.provide(writing.scope))
  }
})

/** The bytes the file at its place holds at `position`, `length` of them. */
const readExisting = (file: FileSystem.File, position: number, length: number) =>
  Effect.map(file.readAlloc(length, { position: BigInt(position) }), (read) =>
    read._tag === "None" ? new Uint8Array() : read.value
  )

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i])

/** The file at its place differs from the DAG at `writing.position`: replaced (its matching prefix copied) with `force`, else skipped. */
const diverge = Effect.fnUntraced(function* (state: TreeState, writing: Writing) {
  const existing = writing.existing!
  writing.existing = undefined
  if (!state.force) {
    skip(state, writing.relative.split("/"), "exists")
    state.current = undefined
    return yield* Scope.close(writing.scope, Exit.void)
  }
  const file = yield* openTemporary(state, writing)
  if (writing.position > 0) yield* file.writeAll(yield* readExisting(existing, 0, writing.position))
})

/** Verified bytes of the file in hand: compared with the file at its place, or gathered to be written beside it. */
const writeBytes = Effect.fnUntraced(function* (state: TreeState, pieces: Pieces) {
  const writing = state.current
  if (writing === undefined) return
  for (const piece of pieces) {
    if (writing.existing !== undefined) {
      const there = yield* readExisting(writing.existing, writing.position, piece.byteLength)
      if (!sameBytes(there, piece)) yield* diverge(state, writing)
    }
    if (state.current !== writing) return
    if (writing.existing === undefined) yield* gather(state, writing, piece)
    writing.position += piece.byteLength
    state.bytes += piece.byteLength
  }
  progress(state)
})

/**
 * The file in hand's temporary file, complete: a file that fit the buffer is written whole in one
 * call (most of a folder's files are small: an open, a write and a close, with no scope).
 */
const completeTemporary = (state: TreeState, writing: Writing) =>
  Effect.suspend(() => {
    if (writing.temporary?.file !== undefined) return flush(state, writing)
    writing.temporary = { path: temporaryBeside(state, writing.place), file: undefined }
    const whole = state.buffer.subarray(0, state.filled)
    state.filled = 0
    return state.fs.writeFile(writing.temporary.path, whole, { flag: "wx" })
  })

/** The file in hand is whole and every block of it checked: renamed into its place, or kept as it was. */
const endFile = Effect.fnUntraced(function* (state: TreeState) {
  const writing = state.current
  if (writing === undefined) return
  if (writing.existing === undefined) yield* completeTemporary(state, writing)
  state.current = undefined
  yield* Scope.close(writing.scope, Exit.void)
  if (writing.temporary === undefined) state.kept.push(writing.relative)
  else {
    yield* state.fs.rename(writing.temporary.path, writing.place)
    state.written.push(writing.relative)
  }
  state.files += 1
  progress(state)
})

const onEvent = (state: TreeState, event: TreeEvent): Effect.Effect<void, PlatformError> => {
  switch (event._tag) {
    case "Folder":
      return enterFolder(state, event.path)
    case "FileStart":
      return startFile(state, event.path, event.size)
    case "Bytes":
      return writeBytes(state, event.pieces)
    case "FileEnd":
      return endFile(state)
    case "Refused":
      return Effect.sync(() => {
        if (!underSkipped(state, event.path)) skip(state, event.path, event.reason)
      })
  }
}

/** A failed download leaves no file unverified: the one in hand is closed and its temporary file removed. */
const abandon = (state: TreeState) =>
  Effect.suspend(() => {
    const writing = state.current
    state.current = undefined
    if (writing === undefined) return Effect.void
    return Effect.andThen(
      Scope.close(writing.scope, Exit.void),
      writing.temporary === undefined
        ? Effect.void
        : Effect.ignore(state.fs.remove(writing.temporary.path, { force: true }))
    )
  })

/** The lane's CAR of the whole DAG under `root`, once it has answered with one. */
const openTree = (lane: Lane, root: CID, path: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const inside = path.map((segment) => `/${encodeURIComponent(segment)}`).join("")
    const request = HttpClientRequest.get(`/ipfs/${root}${inside}`, {
      urlParams: { format: "car", "dag-scope": "all" }
    }).pipe(HttpClientRequest.setHeader("Accept", CAR_ACCEPT))
    const response = yield* lane.client.execute(request)
    const url = urlOf(response.request)
    const type = (response.headers["content-type"] ?? "").toLowerCase().split(";")[0]!.trim()
    if (type !== "application/vnd.ipld.car") {
      return yield* new UnverifiableGateway({ url, answer: type === "" ? "no content type" : type, format: "car" })
    }
    return response.stream.pipe(Stream.mapError((cause) => new NetworkError({ method: "GET", url, cause })))
  })

/** The directory to write into: made when absent; `NotADirectoryTarget` when something else is there. */
const prepareDirectory = Effect.fnUntraced(function* (fs: FileSystem.FileSystem, dir: string) {
  const found = yield* lookAt(fs, dir)
  if (found === undefined) {
    yield* fs.makeDirectory(dir, { recursive: true })
    return true
  }
  const target = found.type === "SymbolicLink" ? yield* fs.stat(dir) : found
  if (target.type !== "Directory") return yield* new NotADirectoryTarget({ path: dir, found: found.type })
  return false
})

/**
 * The folder at `cid` into the directory `dir`, holding `<dir>.lock` meanwhile; the report of what
 * was written, kept and skipped. Fails at the first block that does not check out, with only
 * whole, verified files left in `dir`.
 */
export const toDirectory = Effect.fn("Download.toDirectory")(function* (
  deps: DownloadDeps,
  cid: string,
  dir: string,
  options?: ToDirectoryOptions
) {
  const plan = yield* planFor(deps, cid, "toDirectory", { gateway: options?.gateway, path: options?.path })
  const { fs } = deps
  const made = yield* prepareDirectory(fs, dir)
  yield* lockTarget(fs, dir)
  yield* removeLeftovers(fs, dir)
  const root = plan.target.root
  const state: TreeState = {
    fs,
    dir,
    force: options?.force === true,
    onProgress: options?.onProgress,
    written: [],
    kept: [],
    skipped: [],
    skippedFolders: new Set(),
    made: [{ relative: "", made }],
    buffer: new Uint8Array(WRITE_BYTES),
    filled: 0,
    names: { base: crypto.getRandomValues(new Uint8Array(6)).reduce((n, byte) => n * 256 + byte, 0), count: 0 },
    bytes: 0,
    files: 0,
    current: undefined
  }
  const inside = plan.target.path ?? []
  const car = yield* openTree(plan.lanes[0]!, root, inside)
  // Every piece is copied into the buffer or written before the next is pulled: the reads may be freed.
  yield* walkCar(car, root, (source) => walkTree(source, root, inside), true).pipe(
    Stream.runForEach((event) => onEvent(state, event)),
    Effect.provideService(DownstreamCopies, true),
    Effect.onError(() => abandon(state))
  )
  const report: TreeReport = {
    cid,
    bytes: state.bytes,
    files: state.files,
    written: state.written,
    kept: state.kept,
    skipped: state.skipped
  }
  return report
}, Effect.scoped)

/** The entry of a folder's listing: its path, what it is, a file's size; why it is refused, for one that is. */
export const entryOf = (event: TreeEvent): TreeEntry | undefined => {
  const path = relativeOf(event._tag === "Bytes" ? [] : event.path)
  switch (event._tag) {
    case "Folder":
      return event.path.length === 0 ? undefined : { path, type: "folder", cid: event.cid.toString() }
    case "FileStart":
      return { path, type: "file", cid: event.cid.toString(), size: event.size }
    case "Refused":
      return { path, type: "refused", reason: event.reason }
    default:
      return undefined
  }
}

/**
 * The entries of the folder at `cid`, its whole tree (`recursive`) or its own entries, from the
 * same verified CAR as `toDirectory` (every block checked, the files' bytes too: a listing is
 * verified like a download).
 */
export const list = Effect.fn("Download.list")(function* (deps: DownloadDeps, cid: string, options?: ListOptions) {
  const plan = yield* planFor(deps, cid, "list", { gateway: options?.gateway, path: options?.path })
  const root = plan.target.root
  const inside = plan.target.path ?? []
  const car = yield* openTree(plan.lanes[0]!, root, inside)
  const entries: Array<TreeEntry> = []
  yield* walkCar(car, root, (source) => walkTree(source, root, inside)).pipe(
    Stream.runForEach((event) =>
      Effect.sync(() => {
        const entry = entryOf(event)
        if (entry !== undefined && (options?.recursive === true || !entry.path.includes("/"))) entries.push(entry)
      })
    )
  )
  return entries
})
