/**
 * A UnixFS file read block by block from its root CID, every block checked before its bytes go
 * out: the walk resolves a path through directories, then reads the file's DAG depth-first (the
 * order of a trustless gateway's `order=dfs` CAR), asking its {@link BlockSource} for exactly the
 * block it needs next. A byte range reads only the blocks that hold it. Memory: one block, and the
 * CIDs still to read (at most 174 per level of the balanced layout). A block may come in pieces
 * (as a CAR's reads cut it): it is hashed in them, and a raw leaf's bytes go out in them, uncopied.
 *
 * A block is trusted only once its bytes hash to a CID that a trusted block links to, starting
 * from the root asked for; so the bytes given out are the file's, or the walk fails.
 *
 * @since 0.1.0
 */
import * as dagPb from "@ipld/dag-pb"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import type { ContentVerificationFailed } from "../errors/Verification.ts"
import { type Data, decodeData } from "../unixfs/Data.ts"
import { checkBlock, failure, sameBlock } from "./Blocks.ts"
import { type HamtStep, hamtStep } from "./Hamt.ts"
import { byteLengthOf, joinPieces, type Pieces, slicePieces } from "./Pieces.ts"

/** Where the walk gets its blocks from: a CAR being read, or a gateway asked block by block. */
export interface BlockSource<E> {
  /**
   * The bytes answered for `cid`, the block the walk needs now (checked by the walk): whole, or
   * in pieces in their order (as they arrived; the walk neither copies nor keeps them past the
   * block). `later` tells whether a block is one the walk needs after it; `node` is where a
   * block of the file lies in it (absent for folders on the way).
   */
  readonly block: (
    cid: CID,
    later: (cid: CID) => boolean,
    node?: FileNode
  ) => Effect.Effect<Uint8Array | ReadonlyArray<Uint8Array>, ContentVerificationFailed | E>
  /** Succeeds when nothing follows the last block. */
  readonly end: Effect.Effect<void, ContentVerificationFailed | E>
}

/** A block of the file: the file's bytes it holds, `size` of them from the file's byte `at`. */
export interface FileNode {
  readonly at: number
  readonly size: number
}

/** A byte range of the file: `length` bytes from `offset` (to the end without `length`). */
export interface ByteRange {
  readonly offset: number
  readonly length?: number | undefined
}

/** What to read. */
export interface Target {
  readonly root: CID
  /** Path segments inside the root (a folder), none for the root itself. */
  readonly path?: ReadonlyArray<string> | undefined
  readonly range?: ByteRange | undefined
}

type Task =
  /** A node on the way to the file: `segments` still to resolve. */
  | { readonly kind: "path"; readonly cid: CID; readonly segments: ReadonlyArray<string> }
  /** A sub-shard of a HAMT-sharded directory on the way, at the lookup's `step`. */
  | { readonly kind: "shard"; readonly cid: CID; readonly step: HamtStep; readonly segments: ReadonlyArray<string> }
  /** A node of the file holding `size` bytes from the file's byte `at`, of which [start, end) are wanted. */
  | {
      readonly kind: "file"
      readonly cid: CID
      readonly at: number
      readonly size: number
      readonly start: number
      readonly end: number
    }

/** A checked block, decoded: its bytes as they came, the UnixFS node (none for a raw leaf) and its links. */
interface Decoded {
  readonly pieces: Pieces
  readonly unixfs: Data | undefined
  readonly links: ReadonlyArray<dagPb.PBLink>
}

/** One walk: the root its blocks are checked under, what it reads, and the blocks still to read (the top next). */
interface Walking {
  readonly root: CID
  readonly target: Target
  readonly stack: Array<Task>
}

/**
 * Whether a dag-pb node's bytes hold a link (its field 2), read from the node's top-level keys and
 * lengths alone. Bytes that are not a well-formed node count as holding one: they are copied, and
 * the decoder refuses them.
 *
 * @internal
 */
export const holdsLinks = (bytes: Uint8Array): boolean => {
  let at = 0
  while (at < bytes.length) {
    const key = bytes[at++]!
    if (key !== 0x0a) return true
    let length = 0
    for (let shift = 0; ; shift += 7) {
      if (at >= bytes.length || shift > 28) return true
      const byte = bytes[at++]!
      length += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) break
    }
    at += length
  }
  return false
}

const decode = (root: CID, cid: CID, pieces: Pieces): Effect.Effect<Decoded, ContentVerificationFailed> => {
  if (cid.code === raw.code) return Effect.succeed({ pieces, unixfs: undefined, links: [] })
  if (cid.code !== dagPb.code) {
    return Effect.fail(failure(root, "not-a-file", `block ${cid} is codec 0x${cid.code.toString(16)}, not UnixFS`, cid))
  }
  return Effect.try({
    try: () => {
      const joined = joinPieces(pieces)
      // Links outlive their block (the walk keeps them until it reaches each child), and a block in
      // one piece is a view into the answer's read, which the CAR reader may free a while later
      // (`Car.ts`): a node with links is decoded from a copy then (`new Uint8Array`: a Node
      // `Buffer`'s `slice` is a view). A leaf is decoded where it lies.
      const copied = joined === pieces[0] && holdsLinks(joined) ? new Uint8Array(joined) : joined
      const node = dagPb.decode(copied)
      if (node.Data === undefined) throw new Error("no UnixFS data")
      return { pieces, unixfs: decodeData(node.Data), links: node.Links }
    },
    catch: (error) =>
      failure(root, "malformed-block", `block ${cid} is not a UnixFS node: ${(error as Error).message}`, cid)
  })
}

const isFileNode = (decoded: Decoded) =>
  decoded.unixfs === undefined || decoded.unixfs.type === "file" || decoded.unixfs.type === "raw"

const contentSize = (decoded: Decoded): number =>
  decoded.unixfs === undefined ? byteLengthOf(decoded.pieces) : decoded.unixfs.fileSize

/** The range asked for within a file of `size` bytes, as [start, end). */
const clampRange = (range: ByteRange | undefined, size: number) => {
  const start = Math.min(size, range?.offset ?? 0)
  const end = range?.length === undefined ? size : Math.min(size, start + range.length)
  return { start, end }
}

/** Reads a file node: its own bytes in the range, and the children holding the rest pushed. */
const readFileNode = (
  walking: Walking,
  task: Extract<Task, { kind: "file" }>,
  decoded: Decoded
): Effect.Effect<Pieces, ContentVerificationFailed> => {
  const { root } = walking
  if (!isFileNode(decoded)) {
    return Effect.fail(failure(root, "malformed-block", `block ${task.cid} is a ${decoded.unixfs?.type} inside a file`))
  }
  if (contentSize(decoded) !== task.size) {
    return Effect.fail(
      failure(
        root,
        "malformed-block",
        `block ${task.cid} holds ${contentSize(decoded)} bytes where its parent says ${task.size}`,
        task.cid
      )
    )
  }
  const own = decoded.unixfs === undefined ? decoded.pieces : [decoded.unixfs.data ?? new Uint8Array()]
  const sizes = decoded.unixfs?.blockSizes ?? []
  if (sizes.length !== decoded.links.length) {
    return Effect.fail(
      failure(root, "malformed-block", `block ${task.cid} has ${decoded.links.length} links but ${sizes.length} sizes`)
    )
  }
  const children: Array<Task> = []
  let offset = byteLengthOf(own)
  sizes.forEach((blockSize, i) => {
    const size = Number(blockSize)
    if (offset < task.end && offset + size > task.start) {
      const start = Math.max(0, task.start - offset)
      const end = Math.min(size, task.end - offset)
      children.push({ kind: "file", cid: decoded.links[i]!.Hash, at: task.at + offset, size, start, end })
    }
    offset += size
  })
  for (let i = children.length - 1; i >= 0; i--) walking.stack.push(children[i]!)
  return Effect.succeed(slicePieces(own, task.start, task.end))
}

/** Resolves one path step in a directory node, or starts the file when the path is done. */
const readPathNode = (
  walking: Walking,
  task: Extract<Task, { kind: "path" }>,
  decoded: Decoded
): Effect.Effect<Pieces | undefined, ContentVerificationFailed> => {
  const { root } = walking
  const [segment, ...rest] = task.segments
  if (segment === undefined) {
    if (!isFileNode(decoded)) {
      return Effect.fail(failure(root, "not-a-file", `${task.cid} is a ${decoded.unixfs?.type}, not a file`, task.cid))
    }
    const size = contentSize(decoded)
    const { start, end } = clampRange(walking.target.range, size)
    return readFileNode(walking, { kind: "file", cid: task.cid, at: 0, size, start, end }, decoded)
  }
  const type = decoded.unixfs?.type
  if (type === "hamt-sharded-directory") {
    return Effect.flatMap(hamtStep(root, task.cid, decoded.unixfs!, segment), (step) =>
      followShard(walking, { kind: "shard", cid: task.cid, step, segments: task.segments }, decoded)
    )
  }
  if (type !== "directory") {
    return Effect.fail(failure(root, "path-not-found", `${task.cid} is not a folder, it has no "${segment}"`))
  }
  const link = decoded.links.find((candidate) => candidate.Name === segment)
  if (link === undefined) return Effect.fail(failure(root, "path-not-found", `no "${segment}" in ${task.cid}`))
  walking.stack.push({ kind: "path", cid: link.Hash, segments: rest })
  return Effect.succeed(undefined)
}

/** Follows a HAMT shard: to the entry named by the path segment, or to the sub-shard holding it. */
const followShard = (
  walking: Walking,
  task: Extract<Task, { kind: "shard" }>,
  decoded: Decoded
): Effect.Effect<undefined, ContentVerificationFailed> => {
  const { root, stack } = walking
  const { cid, step, segments } = task
  const [segment, ...rest] = segments
  if (decoded.unixfs?.type !== "hamt-sharded-directory") {
    return Effect.fail(failure(root, "malformed-block", `block ${cid} is a ${decoded.unixfs?.type} inside a HAMT`, cid))
  }
  const entry = decoded.links.find((link) => link.Name === `${step.prefix}${segment}`)
  if (entry !== undefined) {
    stack.push({ kind: "path", cid: entry.Hash, segments: rest })
    return Effect.succeed(undefined)
  }
  const shard = decoded.links.find((link) => link.Name === step.prefix)
  if (shard === undefined) return Effect.fail(failure(root, "path-not-found", `no "${segment}" in ${cid}`))
  return Effect.map(step.next, (next) => {
    stack.push({ kind: "shard", cid: shard.Hash, step: next, segments })
    return undefined
  })
}

/**
 * The verified bytes of the file at `target`, in order; fails at the first block that does not
 * check out. Each step is a chain of effects, not an `Effect.gen`: a generator per block, waiting
 * on the source's socket, left objects behind that outlived V8's young generation (see `Car.ts`).
 */
export const walk = <E>(
  source: BlockSource<E>,
  target: Target
): Stream.Stream<Uint8Array, ContentVerificationFailed | E> =>
  Stream.suspend(() => {
    const root = target.root
    const stack: Array<Task> = [{ kind: "path", cid: root, segments: target.path ?? [] }]
    const walking: Walking = { root, target, stack }
    const later = (cid: CID) => stack.some((task) => sameBlock(task.cid, cid))
    /** Checks a block, then reads it: its bytes of the file, and its children pushed. */
    const visit = (task: Task, pieces: Pieces): Effect.Effect<Pieces | undefined, ContentVerificationFailed> =>
      Effect.andThen(
        checkBlock(root, task.cid, pieces),
        Effect.flatMap(decode(root, task.cid, pieces), (decoded) =>
          task.kind === "file"
            ? readFileNode(walking, task, decoded)
            : task.kind === "path"
              ? readPathNode(walking, task, decoded)
              : followShard(walking, task, decoded)
        )
      )
    const finished = [[], Option.none()] as const
    return Stream.paginate(undefined, () => {
      const task = stack.pop()
      if (task === undefined) return Effect.as(source.end, finished)
      const node = task.kind === "file" ? { at: task.at, size: task.size } : undefined
      return Effect.flatMap(source.block(task.cid, later, node), (answered) =>
        Effect.map(
          visit(task, answered instanceof Uint8Array ? [answered] : answered),
          // The block's pieces go out as one chunk: the bytes of one verified block.
          (out) => [out ?? [], Option.some(undefined)] as const
        )
      )
    })
  })
