/**
 * How much of a partial download already on disk is the file's: the file's DAG is walked from
 * its root CID (`verify/Walk.ts`), the inner blocks asked of a trustless gateway one by one
 * (`?format=raw`, each checked against its CID), and each leaf block that the bytes on disk
 * cover is rebuilt from them and hashed against its CID: a raw leaf is the bytes themselves; a
 * UnixFS leaf (`dag-pb`, as CIDv0 files have) is tried in its two usual encodings and, when
 * neither hashes to its CID, fetched and compared. The walk stops at the first leaf that does not
 * match or is cut short; every byte before it is verified, the rest must be fetched again.
 *
 * @since 0.1.0
 */
import * as dagPb from "@ipld/dag-pb"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type { PlatformError } from "effect/PlatformError"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { equals } from "multiformats/bytes"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { NotARegularFile } from "../errors/Transfer.ts"
import { PublishCheckFailed } from "../errors/Verification.ts"
import { decodeData, encodeData } from "../unixfs/Data.ts"
import { isInline } from "../verify/Blocks.ts"
import { MAX_BLOCK_BYTES } from "../verify/Car.ts"
import { fetchRawBlock } from "../verify/Trustless.ts"
import { type FileNode, type Target, walk } from "../verify/Walk.ts"
import { type LaneFailure, Stalled } from "./Lanes.ts"
import type { Plan } from "./Plan.ts"

/** The walk reached a leaf the bytes on disk do not hold: the verified prefix ends at `at`. */
class PrefixEnds extends Data.TaggedError("PrefixEnds")<{ readonly at: number }> {}

/** Whether `bytes` hash (sha2-256) to `cid`. */
const hashesTo = (cid: CID, bytes: Uint8Array) =>
  Effect.promise(async () => equals((await sha256.digest(bytes)).digest, cid.multihash.digest))

/** The two usual encodings of a UnixFS leaf holding `data`: type `file` (kubo, helia) and type `raw` (older kubo). */
const unixfsLeaves = (data: Uint8Array): ReadonlyArray<Uint8Array> =>
  (["file", "raw"] as const).map((type) => dagPb.encode(dagPb.prepare({ Data: encodeData({ type, data }), Links: [] })))

/** A UnixFS leaf's file bytes; `undefined` for a node with links (an inner node) or that does not decode. */
const leafData = (block: Uint8Array): Uint8Array | undefined => {
  try {
    const node = dagPb.decode(block)
    if (node.Links.length > 0 || node.Data === undefined) return undefined
    return decodeData(node.Data).data ?? new Uint8Array()
  } catch {
    return undefined
  }
}

/** A file's bytes `[at, at + size)` on disk, or fewer where the file ends. */
type ReadDisk = (at: number, size: number) => Effect.Effect<Uint8Array, PlatformError>

/** The bytes on disk a walk checks, and where it asks for the blocks the disk cannot rebuild. */
interface DiskCheck {
  readonly fetch: (cid: CID) => Effect.Effect<Uint8Array, LaneFailure>
  readonly readDisk: ReadDisk
  readonly onDisk: number
}

/**
 * The block of `node` (at `cid`): from the disk when its bytes there hash to the CID, from the
 * gateway when it is an inner node; `PrefixEnds` at the node when the disk does not hold it.
 */
const blockOf = (
  { fetch, readDisk, onDisk }: DiskCheck,
  cid: CID,
  node: FileNode | undefined
): Effect.Effect<Uint8Array, LaneFailure | PlatformError | PrefixEnds> =>
  Effect.gen(function* () {
    if (node === undefined || isInline(cid)) return yield* fetch(cid)
    const held = node.at + node.size <= onDisk && node.size <= MAX_BLOCK_BYTES
    if (cid.code === raw.code) {
      const bytes = held ? yield* readDisk(node.at, node.size) : undefined
      if (bytes === undefined || !(yield* hashesTo(cid, bytes))) return yield* new PrefixEnds({ at: node.at })
      return bytes
    }
    if (held) {
      const data = yield* readDisk(node.at, node.size)
      for (const candidate of unixfsLeaves(data)) if (yield* hashesTo(cid, candidate)) return candidate
    }
    const block = yield* fetch(cid)
    const data = leafData(block)
    if (data === undefined) return block
    const disk = yield* readDisk(node.at, Math.min(data.length, Math.max(0, onDisk - node.at)))
    if (disk.length === 0 || !equals(disk, data.subarray(0, disk.length))) return yield* new PrefixEnds({ at: node.at })
    return block
  })

/** A block by its CID from one gateway, verified, within the stall time-out. */
type BlockFetch = (cid: CID) => Effect.Effect<Uint8Array, LaneFailure>

/**
 * How many leading bytes of the `onDisk` bytes that `readDisk` reads are the file at `target`
 * (its `range` is not read), its blocks asked with `fetch`.
 */
const verifiedPrefix = (
  fetch: BlockFetch,
  target: Target,
  readDisk: ReadDisk,
  onDisk: number
): Effect.Effect<number, LaneFailure | PlatformError> => {
  const disk = { fetch, readDisk, onDisk }
  const source = {
    block: (cid: CID, _later: (cid: CID) => boolean, node?: FileNode) => blockOf(disk, cid, node),
    end: Effect.void
  }
  return walk(source, { ...target, range: { offset: 0, length: onDisk } }).pipe(
    Stream.runFold(
      () => 0,
      (verified, bytes) => verified + bytes.length
    ),
    Effect.catchTag("PrefixEnds", (ends) => Effect.succeed(ends.at))
  )
}

/** Reads `[at, at + size)` of an open file. */
export const readerOf =
  (file: FileSystem.File): ReadDisk =>
  (at, size) =>
    Effect.map(
      file.readAlloc(size, { position: BigInt(at) }),
      Option.getOrElse(() => new Uint8Array())
    )

/**
 * Where a resume asks for the DAG's blocks: the plan's lanes, in order, each dropped for the check
 * when it keeps it waiting past the plan's stall time-out.
 */
const checkingSources = (plan: Plan): ReadonlyArray<BlockFetch> =>
  plan.lanes.map((lane) => {
    const fetch = fetchRawBlock(lane.client, plan.target.root)
    return (cid) =>
      Effect.timeoutOrElse(fetch(cid), {
        duration: plan.stall,
        orElse: () => Effect.fail(new Stalled({ millis: Duration.toMillis(plan.stall) }))
      })
  })

/** The plan's file, whole: a resume checks it from its first byte. */
const wholeFile = (plan: Plan): Target => ({ root: plan.target.root, path: plan.target.path ?? [] })

/** The verified prefix, asking each gateway in turn; 0 (start over) when none could show the DAG. */
const firstAnswer = (
  sources: ReadonlyArray<BlockFetch>,
  check: (fetch: BlockFetch) => Effect.Effect<number, LaneFailure | PlatformError>
): Effect.Effect<number> =>
  Effect.gen(function* () {
    for (const fetch of sources) {
      const answer = yield* Effect.result(check(fetch))
      if (Result.isSuccess(answer)) return answer.success
      yield* Effect.logDebug(`Resume: could not check the partial file with a gateway: ${answer.failure.message}`)
    }
    return 0
  })

/**
 * `path` opened for reading and writing, only when it is a regular file with no other name: the
 * name is looked at without following a link (`lstat`), then the opened file's own `stat` must be
 * that same file (a link put there in between is caught). `undefined` when nothing is there.
 */
const openRegular = (
  fs: FileSystem.FileSystem,
  path: string
): Effect.Effect<FileSystem.File | undefined, NotARegularFile | PlatformError, Scope.Scope> =>
  Effect.gen(function* () {
    const named = yield* fs.lstat(path).pipe(
      Effect.catchIf(
        (error) => error.reason._tag === "NotFound",
        () => Effect.succeed(undefined)
      )
    )
    if (named === undefined) return undefined
    yield* refuseIrregular(path, named)
    const file = yield* fs.open(path, { flag: "r+" })
    const opened = yield* file.stat
    const same = opened.dev === named.dev && Option.getOrUndefined(opened.ino) === Option.getOrUndefined(named.ino)
    if (!same) return yield* new NotARegularFile({ path, found: "file replaced while it was opened" })
    yield* refuseIrregular(path, opened)
    return file
  })

/** A file a download may write into: a regular file, its only name (a hard link would carry the writes elsewhere). */
const refuseIrregular = (path: string, info: FileSystem.File.Info) => {
  if (info.type !== "File") return Effect.fail(new NotARegularFile({ path, found: info.type }))
  if (Option.getOrElse(info.nlink, () => 1n) > 1n) {
    return Effect.fail(new NotARegularFile({ path, found: "file with other names (hard links)" }))
  }
  return Effect.void
}

/** `partial`, opened: as it is, else the file at `adopt` moved there, else a new empty file. */
const openPartial = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  adopt: string | undefined,
  partial: string
) {
  const existing = yield* openRegular(fs, partial)
  if (existing !== undefined) return existing
  if (adopt !== undefined) {
    const adopted = yield* openRegular(fs, adopt)
    if (adopted !== undefined) {
      yield* fs.rename(adopt, partial)
      return adopted
    }
  }
  // `wx`: never through a file or link placed at the name meanwhile.
  return yield* fs.open(partial, { flag: "wx+" })
})

/** A resumed download's files: the partial file, and the file it may take up when there is none. */
export interface ResumeFiles {
  readonly fs: FileSystem.FileSystem
  readonly plan: Plan
  /** `<path>.partial`, which holds the stored bytes. */
  readonly partial: string
  /** The target of a plain download, which may be an earlier copy; none when decrypting. */
  readonly adopt: string | undefined
}

/**
 * Readies `partial`, which holds the stored bytes of the plan's file, for a resumed download: without it,
 * an existing file at `adopt` (the target of a plain download, which may be an earlier copy)
 * becomes the partial file; its bytes are then cut to the verified prefix. Neither is followed if
 * it is a link, nor used if it is not a regular file (`NotARegularFile`). Returns the partial
 * file, open for the scope, positioned after that prefix, and the prefix's length, from where the
 * download goes on.
 */
export const prepareResume = Effect.fnUntraced(function* ({ fs, plan, partial, adopt }: ResumeFiles) {
  const file = yield* openPartial(fs, adopt, partial)
  const onDisk = Number((yield* file.stat).size)
  const verified =
    onDisk === 0
      ? 0
      : yield* firstAnswer(checkingSources(plan), (fetch) =>
          verifiedPrefix(fetch, wholeFile(plan), readerOf(file), onDisk)
        )
  yield* file.truncate(verified)
  yield* file.seek(BigInt(verified), "start")
  return { file, from: verified }
})

/**
 * Whether the `size` bytes that `readDisk` reads are the whole file at `target`, no more and no
 * fewer: `undefined` when they are, else what differs.
 */
const differenceFrom = (
  fetch: BlockFetch,
  target: Target,
  readDisk: ReadDisk,
  size: number
): Effect.Effect<string | undefined, LaneFailure | PlatformError> => {
  const disk = { fetch, readDisk, onDisk: size }
  const source = {
    block: (cid: CID, _later: (cid: CID) => boolean, node?: FileNode) => blockOf(disk, cid, node),
    end: Effect.void
  }
  return walk(source, { root: target.root, path: target.path ?? [] }).pipe(
    Stream.runFold(
      () => 0,
      (total, bytes) => total + bytes.length
    ),
    Effect.map((total) => (total === size ? undefined : `${size} bytes on disk, the content has ${total}`)),
    Effect.catchTag("PrefixEnds", (ends) =>
      Effect.succeed(`the bytes on disk differ from the content at byte ${ends.at}`)
    )
  )
}

/**
 * Checks the whole partial file against the CID before it is published: its size and every
 * block (the inner blocks asked of the first gateway that shows them); `PublishCheckFailed` when
 * it differs, or when no gateway could show the DAG.
 */
export const checkBeforePublish = Effect.fnUntraced(function* (plan: Plan, partial: string, file: FileSystem.File) {
  const size = Number((yield* file.stat).size)
  let detail = "no gateway could show the content's blocks to check it"
  for (const fetch of checkingSources(plan)) {
    const answer = yield* Effect.result(differenceFrom(fetch, wholeFile(plan), readerOf(file), size))
    if (Result.isFailure(answer)) {
      yield* Effect.logDebug(`Resume: could not check the whole file with a gateway: ${answer.failure.message}`)
      continue
    }
    if (answer.success === undefined) return
    detail = answer.success
    break
  }
  return yield* new PublishCheckFailed({ cid: plan.cid, path: partial, detail })
})
