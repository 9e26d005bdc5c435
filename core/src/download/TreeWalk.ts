/**
 * A UnixFS folder's whole DAG read block by block from its root CID (the order of a trustless
 * gateway's `dag-scope=all&order=dfs` CAR), every block checked against the CID that links to it
 * before anything of it goes out, as a stream of events: a folder entered, a file's start, its
 * bytes, its end, an entry refused. Nothing is collected: memory is one block, the tasks still to
 * read, and the names of the folders open on the way (to find a name given twice).
 *
 * An entry is refused when its name could not be written inside the target as it is (a separator,
 * `.`/`..`, NUL or a control character, a drive letter, an empty name, a name over 255 bytes, a
 * name given twice in its folder) or when it is not a file or a folder (a symlink, never followed).
 * A refused entry's blocks are still read and checked (the CAR holds them) but nothing of them
 * goes out.
 *
 * @since 0.1.0
 */
import * as dagPb from "@ipld/dag-pb"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { NotAFolder } from "../errors/Transfer.ts"
import type { ContentVerificationFailed } from "../errors/Verification.ts"
import { type Data, decodeData } from "../unixfs/Data.ts"
import { checkBlock, failure, sameBlock } from "../verify/Blocks.ts"
import { type HamtStep, hamtStep } from "../verify/Hamt.ts"
import { byteLengthOf, joinPieces, type Pieces } from "../verify/Pieces.ts"
import type { BlockSource } from "../verify/Walk.ts"

/** Why an entry of the DAG is not written. */
export type Refusal =
  | "separator"
  | "dot-name"
  | "control-character"
  | "absolute"
  | "empty-name"
  | "name-too-long"
  | "duplicate"
  | "symlink"
  | "unsupported"
  | "path-too-long"
  | "exists"
  | "not-a-directory"

/** What the walk of a tree gives out, in the DAG's order. */
export type TreeEvent =
  | { readonly _tag: "Folder"; readonly path: ReadonlyArray<string>; readonly cid: CID }
  | { readonly _tag: "FileStart"; readonly path: ReadonlyArray<string>; readonly cid: CID; readonly size: number }
  | { readonly _tag: "Bytes"; readonly pieces: Pieces }
  | { readonly _tag: "FileEnd"; readonly path: ReadonlyArray<string> }
  | { readonly _tag: "Refused"; readonly path: ReadonlyArray<string>; readonly reason: Refusal }

/** A folder being read: the names seen in it so far (its HAMT shards share them). */
interface OpenFolder {
  readonly path: ReadonlyArray<string>
  readonly seen: Set<string>
}

type Task =
  /** A folder on the way to the tree asked for, `segments` of the path still to resolve. */
  | { readonly kind: "resolve"; readonly cid: CID; readonly segments: ReadonlyArray<string> }
  /** A HAMT shard on the way, at the lookup's `step`. */
  | {
      readonly kind: "resolve-shard"
      readonly cid: CID
      readonly step: HamtStep
      readonly segments: ReadonlyArray<string>
    }
  /** An entry (or the root) whose block says what it is; `silent` under a refused entry. */
  | { readonly kind: "entry"; readonly cid: CID; readonly path: ReadonlyArray<string>; readonly silent: boolean }
  /** A shard of a HAMT-sharded folder, its link names `width` hex digits before the entry's name. */
  | {
      readonly kind: "shard"
      readonly cid: CID
      readonly folder: OpenFolder
      readonly width: number
      readonly silent: boolean
    }
  /** A block of a file holding `size` of its bytes. */
  | { readonly kind: "chunk"; readonly cid: CID; readonly size: number; readonly silent: boolean }
  /** The end of a file (no block). */
  | { readonly kind: "end"; readonly cid?: undefined; readonly path: ReadonlyArray<string>; readonly silent: boolean }

interface Decoded {
  readonly pieces: Pieces
  readonly unixfs: Data | undefined
  readonly links: ReadonlyArray<dagPb.PBLink>
}

const MAX_NAME_BYTES = 255
const encoder = new TextEncoder()

/** Why `name` cannot be a file's name inside the target; `undefined` when it can. */
export const nameRefusal = (name: string): Refusal | undefined => {
  if (name === "") return "empty-name"
  if (name === "." || name === "..") return "dot-name"
  if (name.includes("/") || name.includes("\\")) return "separator"
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return "control-character"
  if (/^[A-Za-z]:/.test(name)) return "absolute"
  if (encoder.encode(name).byteLength > MAX_NAME_BYTES) return "name-too-long"
  return undefined
}

const decode = (root: CID, cid: CID, pieces: Pieces): Effect.Effect<Decoded, ContentVerificationFailed> => {
  if (cid.code === raw.code) return Effect.succeed({ pieces, unixfs: undefined, links: [] })
  if (cid.code !== dagPb.code) {
    return Effect.fail(
      failure(root, "malformed-block", `block ${cid} is codec 0x${cid.code.toString(16)}, not UnixFS`, cid)
    )
  }
  return Effect.try({
    try: () => {
      // Copied: links outlive the block, which may be a view into the answer's read.
      const node = dagPb.decode(new Uint8Array(joinPieces(pieces)))
      if (node.Data === undefined) throw new Error("no UnixFS data")
      return { pieces, unixfs: decodeData(node.Data), links: node.Links }
    },
    catch: (error) =>
      failure(root, "malformed-block", `block ${cid} is not a UnixFS node: ${(error as Error).message}`, cid)
  })
}

const isFile = (decoded: Decoded) =>
  decoded.unixfs === undefined || decoded.unixfs.type === "file" || decoded.unixfs.type === "raw"

const sizeOf = (decoded: Decoded) =>
  decoded.unixfs === undefined ? byteLengthOf(decoded.pieces) : decoded.unixfs.fileSize

/** The width of a HAMT's link prefixes, from its root's fanout; a fanout that is not a power of two is refused. */
const hamtWidth = (root: CID, cid: CID, unixfs: Data): Effect.Effect<number, ContentVerificationFailed> => {
  const fanout = unixfs.fanout ?? 0
  const bits = Math.log2(fanout)
  return Number.isInteger(bits) && bits >= 1 && bits <= 16
    ? Effect.succeed((fanout - 1).toString(16).length)
    : Effect.fail(failure(root, "malformed-block", `HAMT ${cid} has fanout ${fanout}`, cid))
}

/** One walk: its root, the tasks still to do (the top next), and the events of the step being taken. */
interface Walking {
  readonly root: CID
  readonly stack: Array<Task>
  readonly out: Array<TreeEvent>
}

/** `entries` of `folder` pushed in order (the first on top), each refused name reported and read silently. */
const pushEntries = (
  walking: Walking,
  folder: OpenFolder,
  silent: boolean,
  entries: ReadonlyArray<{ readonly name: string; readonly cid: CID }>
) => {
  const tasks: Array<Task> = []
  for (const { name, cid } of entries) {
    const path = [...folder.path, name]
    const refusal = nameRefusal(name) ?? (folder.seen.has(name) ? "duplicate" : undefined)
    folder.seen.add(name)
    if (refusal !== undefined && !silent) walking.out.push({ _tag: "Refused", path, reason: refusal })
    tasks.push({ kind: "entry", cid, path, silent: silent || refusal !== undefined })
  }
  for (let i = tasks.length - 1; i >= 0; i--) walking.stack.push(tasks[i]!)
}

/** A HAMT shard's links: sub-shards (named by their prefix alone) and entries, in their order. */
const readShard = (walking: Walking, task: Extract<Task, { kind: "shard" }>, decoded: Decoded) => {
  if (decoded.unixfs?.type !== "hamt-sharded-directory") {
    return Effect.fail(failure(walking.root, "malformed-block", `block ${task.cid} is not a HAMT shard`, task.cid))
  }
  const tasks: Array<Task> = []
  const entries: Array<{ name: string; cid: CID }> = []
  // Entries and sub-shards keep their order: each sub-shard's entries come where it stands.
  const flush = () => {
    pushEntriesInto(tasks, walking, task, entries.splice(0))
  }
  for (const link of decoded.links) {
    const name = link.Name ?? ""
    if (name.length === task.width) {
      flush()
      tasks.push({ ...task, cid: link.Hash })
    } else entries.push({ name: name.slice(task.width), cid: link.Hash })
  }
  flush()
  for (let i = tasks.length - 1; i >= 0; i--) walking.stack.push(tasks[i]!)
  return Effect.void
}

/** `pushEntries` into a list of tasks instead of the stack (a shard's, in order with its sub-shards). */
const pushEntriesInto = (
  tasks: Array<Task>,
  walking: Walking,
  task: Extract<Task, { kind: "shard" }>,
  entries: ReadonlyArray<{ readonly name: string; readonly cid: CID }>
) => {
  const into: Walking = { root: walking.root, stack: [], out: walking.out }
  pushEntries(into, task.folder, task.silent, entries)
  for (let i = into.stack.length - 1; i >= 0; i--) tasks.push(into.stack[i]!)
}

/** A file's block: its own bytes out, its children pushed; its size must be what its parent says. */
const readChunk = (walking: Walking, cid: CID, size: number, silent: boolean, decoded: Decoded) => {
  const { root } = walking
  if (!isFile(decoded)) {
    return Effect.fail(failure(root, "malformed-block", `block ${cid} is a ${decoded.unixfs?.type} inside a file`, cid))
  }
  if (sizeOf(decoded) !== size) {
    return Effect.fail(
      failure(root, "malformed-block", `block ${cid} holds ${sizeOf(decoded)} bytes where its parent says ${size}`, cid)
    )
  }
  const sizes = decoded.unixfs?.blockSizes ?? []
  if (sizes.length !== decoded.links.length) {
    return Effect.fail(
      failure(root, "malformed-block", `block ${cid} has ${decoded.links.length} links but ${sizes.length} sizes`, cid)
    )
  }
  for (let i = sizes.length - 1; i >= 0; i--) {
    walking.stack.push({ kind: "chunk", cid: decoded.links[i]!.Hash, size: Number(sizes[i]), silent })
  }
  const own = decoded.unixfs === undefined ? decoded.pieces : [decoded.unixfs.data ?? new Uint8Array()]
  if (!silent && byteLengthOf(own) > 0) walking.out.push({ _tag: "Bytes", pieces: own })
  return Effect.void
}

/** An entry: a folder's entries pushed, a file started, anything else refused (and read silently). */
const readEntry = (
  walking: Walking,
  task: Extract<Task, { kind: "entry" }>,
  decoded: Decoded
): Effect.Effect<void, ContentVerificationFailed | NotAFolder> => {
  const { path, silent, cid } = task
  if (isFile(decoded)) {
    if (path.length === 0) return Effect.fail(new NotAFolder({ cid: cid.toString(), found: "file" }))
    if (!silent) walking.out.push({ _tag: "FileStart", path, cid, size: sizeOf(decoded) })
    walking.stack.push({ kind: "end", path, silent })
    return readChunk(walking, cid, sizeOf(decoded), silent, decoded)
  }
  const type = decoded.unixfs!.type
  if (type === "directory" || type === "hamt-sharded-directory") {
    if (!silent) walking.out.push({ _tag: "Folder", path, cid })
    const folder: OpenFolder = { path, seen: new Set() }
    if (type === "directory") {
      pushEntries(
        walking,
        folder,
        silent,
        decoded.links.map((link) => ({ name: link.Name ?? "", cid: link.Hash }))
      )
      return Effect.void
    }
    return Effect.flatMap(hamtWidth(walking.root, cid, decoded.unixfs!), (width) =>
      readShard(walking, { kind: "shard", cid, folder, width, silent }, decoded)
    )
  }
  if (path.length === 0) return Effect.fail(new NotAFolder({ cid: cid.toString(), found: type }))
  if (!silent) walking.out.push({ _tag: "Refused", path, reason: type === "symlink" ? "symlink" : "unsupported" })
  // A symlink's target, or metadata, is never followed: its links are not read.
  return Effect.void
}

/** One step of the path to the tree asked for: the tree itself once the path is done. */
const resolve = (
  walking: Walking,
  task: Extract<Task, { kind: "resolve" }>,
  decoded: Decoded
): Effect.Effect<void, ContentVerificationFailed | NotAFolder> => {
  const { root, stack } = walking
  const [segment, ...rest] = task.segments
  if (segment === undefined)
    return readEntry(walking, { kind: "entry", cid: task.cid, path: [], silent: false }, decoded)
  const type = decoded.unixfs?.type
  if (type === "hamt-sharded-directory") {
    return Effect.flatMap(hamtStep(root, task.cid, decoded.unixfs!, segment), (step) =>
      resolveShard(walking, { kind: "resolve-shard", cid: task.cid, step, segments: task.segments }, decoded)
    )
  }
  const link = type === "directory" ? decoded.links.find((candidate) => candidate.Name === segment) : undefined
  if (link === undefined) return Effect.fail(failure(root, "path-not-found", `no "${segment}" in ${task.cid}`))
  stack.push({ kind: "resolve", cid: link.Hash, segments: rest })
  return Effect.void
}

/** A HAMT shard on the path: to the entry named by the segment, or to the sub-shard holding it. */
const resolveShard = (
  walking: Walking,
  task: Extract<Task, { kind: "resolve-shard" }>,
  decoded: Decoded
): Effect.Effect<void, ContentVerificationFailed> => {
  const { root, stack } = walking
  const [segment, ...rest] = task.segments
  if (decoded.unixfs?.type !== "hamt-sharded-directory") {
    return Effect.fail(failure(root, "malformed-block", `block ${task.cid} is not a HAMT shard`, task.cid))
  }
  const entry = decoded.links.find((link) => link.Name === `${task.step.prefix}${segment}`)
  if (entry !== undefined) {
    stack.push({ kind: "resolve", cid: entry.Hash, segments: rest })
    return Effect.void
  }
  const shard = decoded.links.find((link) => link.Name === task.step.prefix)
  if (shard === undefined) return Effect.fail(failure(root, "path-not-found", `no "${segment}" in ${task.cid}`))
  return Effect.map(task.step.next, (next) => {
    stack.push({ kind: "resolve-shard", cid: shard.Hash, step: next, segments: task.segments })
  })
}

/**
 * The events of the tree under `root`, every block checked before its events go out; fails at the
 * first block that does not check out, or (`NotAFolder`) when the root is not a folder.
 */
export const walkTree = <E>(
  source: BlockSource<E>,
  root: CID,
  path: ReadonlyArray<string> = []
): Stream.Stream<TreeEvent, ContentVerificationFailed | NotAFolder | E> =>
  Stream.suspend(() => {
    const stack: Array<Task> = [{ kind: "resolve", cid: root, segments: path }]
    const walking: Walking = { root, stack, out: [] }
    const later = (cid: CID) => stack.some((task) => task.kind !== "end" && sameBlock(task.cid, cid))
    const visit = (
      task: Exclude<Task, { kind: "end" }>,
      pieces: Pieces
    ): Effect.Effect<void, ContentVerificationFailed | NotAFolder> =>
      Effect.andThen(
        checkBlock(root, task.cid, pieces),
        Effect.flatMap(decode(root, task.cid, pieces), (decoded) =>
          task.kind === "resolve"
            ? resolve(walking, task, decoded)
            : task.kind === "resolve-shard"
              ? resolveShard(walking, task, decoded)
              : task.kind === "entry"
                ? readEntry(walking, task, decoded)
                : task.kind === "shard"
                  ? readShard(walking, task, decoded)
                  : readChunk(walking, task.cid, task.size, task.silent, decoded)
        )
      )
    const taken = () => [walking.out.splice(0), Option.some(undefined)] as const
    return Stream.paginate<undefined, TreeEvent, ContentVerificationFailed | NotAFolder | E>(undefined, () => {
      const task = stack.pop()
      if (task === undefined) return Effect.as(source.end, [[], Option.none()] as const)
      if (task.kind === "end") {
        if (!task.silent) walking.out.push({ _tag: "FileEnd", path: task.path })
        return Effect.sync(taken)
      }
      return Effect.flatMap(source.block(task.cid, later), (answered) =>
        Effect.map(visit(task, answered instanceof Uint8Array ? [answered] : answered), taken)
      )
    })
  })
