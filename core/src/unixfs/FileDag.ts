/**
 * A file's UnixFS DAG, built while its bytes stream past, with the CIDs kubo's `ipfs add` gives it.
 *
 * Bytes fill one leaf buffer (its size grows up to the leaf size, so small files stay small); a
 * full leaf is hashed and the buffer reused, and a chunk that holds whole raw leaves is hashed
 * where it lies, without a copy. A `file` leaf (no raw leaves) is framed in the same buffer: the
 * data sits behind room for its protobuf header, so the block is one contiguous view.
 *
 * The balanced layout is kept level by level: a level that reaches the fan-out becomes one node
 * of the level above at once, so only the links of the unfinished nodes (at most fan-out per
 * level) are held. At the end each level's remainder becomes a node, up to the first level that
 * ever held a single link, the root; a file of one leaf is that leaf.
 *
 * With the layout's `leafHashing` (a worker), a file's leaves past its first `after` bytes are
 * hashed there, up to `LEAVES_IN_FLIGHT` at once, while the builder reads on; their links join
 * the tree in order as their hashes come back, so the CIDs are those of hashing here.
 *
 * @internal
 */
import * as dagPb from "@ipld/dag-pb"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { fileNodeData } from "./FileData.ts"
import { andThen, cidOf, dagPbCidOf, type Pending } from "./Hashing.ts"
import { type Layout, LEAVES_IN_FLIGHT, type LeafHashing } from "./Layout.ts"

/** A node of a file's DAG as its parent links to it. */
export interface FileLink {
  readonly cid: CID
  /** Bytes of every block under the link, its own included (the link's `Tsize`). */
  readonly size: number
  /** Bytes of content under the link (the parent's `blocksizes` entry). */
  readonly contentBytes: number
}

/** A file being built. */
export interface FileDag {
  readonly layout: Layout
  /** The leaf's content starts at `HEADROOM`; the header of a `file` leaf goes right before it. */
  leaf: Uint8Array
  filled: number
  /** The links of each level's unfinished node. */
  readonly levels: Array<Array<FileLink>>
  /** How many links each level has received. */
  readonly received: Array<number>
  /** Bytes of content sealed into leaves so far. */
  sealed: number
  /** Leaves hashed elsewhere whose links have not joined the tree yet, oldest first. */
  readonly hashing: Array<Promise<FileLink>>
}

/** Room for a `file` leaf's header (dag-pb `Data` tag and length, UnixFS type and data tag and length). */
const HEADROOM = 16
/** Room for its trailer (UnixFS `filesize`). */
const TAILROOM = 16
/** The first leaf buffer of a file; it doubles up to the leaf size as content comes. */
const FIRST_LEAF_BYTES = 16 * 1024

/** A new, empty file. */
export const newFileDag = (layout: Layout): FileDag => ({
  layout,
  leaf: new Uint8Array(0),
  filled: 0,
  levels: [],
  received: [],
  sealed: 0,
  hashing: []
})

const varintLength = (value: number): number => {
  let length = 1
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length++
  return length
}

const writeVarint = (into: Uint8Array, at: number, value: number): number => {
  let position = at
  let rest = value
  while (rest >= 0x80) {
    into[position++] = (rest % 0x80) | 0x80
    rest = Math.floor(rest / 0x80)
  }
  into[position++] = rest
  return position
}

/**
 * The dag-pb block of a UnixFS `file` leaf holding the `length` bytes at `HEADROOM` in `buffer`,
 * written around them: `Data` (field 1) holds the UnixFS message `Type=file` (field 1),
 * `Data` (field 2) and `filesize` (field 3); an empty leaf has no `Data` field.
 */
const framedLeaf = (buffer: Uint8Array, length: number): Uint8Array => {
  const dataField = length === 0 ? 0 : 1 + varintLength(length) + length
  const unixfsLength = 2 + dataField + 1 + varintLength(length)
  const headerLength = 1 + varintLength(unixfsLength) + 2 + (length === 0 ? 0 : 1 + varintLength(length))
  const start = HEADROOM - headerLength
  let at = writeVarint(buffer, start + 1, unixfsLength)
  buffer[start] = 0x0a
  buffer[at++] = 0x08
  buffer[at++] = 0x02
  if (length > 0) {
    buffer[at++] = 0x12
    writeVarint(buffer, at, length)
  }
  const end = writeVarint(buffer, HEADROOM + length + 1, length)
  buffer[HEADROOM + length] = 0x18
  return buffer.subarray(start, end)
}

/** Makes room in the leaf buffer for `needed` bytes of content. */
const ensureRoom = (dag: FileDag, needed: number): void => {
  if (HEADROOM + needed + TAILROOM <= dag.leaf.length) return
  const capacity = Math.min(dag.layout.chunkSize, Math.max(needed, FIRST_LEAF_BYTES, 2 * (dag.leaf.length - HEADROOM)))
  const grown = new Uint8Array(HEADROOM + capacity + TAILROOM)
  grown.set(dag.leaf.subarray(HEADROOM, HEADROOM + dag.filled), HEADROOM)
  dag.leaf = grown
}

/** The node over `links`: a UnixFS `file` with their content sizes, linking those with content. */
const parentOf = (layout: Layout, links: ReadonlyArray<FileLink>): Pending<FileLink> => {
  const kept = links.filter((link) => link.contentBytes > 0)
  let size = 0
  let contentBytes = 0
  for (const link of kept) {
    size += link.size
    contentBytes += link.contentBytes
  }
  const data = fileNodeData(kept.map((link) => link.contentBytes))
  const block = dagPb.encode(
    dagPb.prepare({ Data: data, Links: kept.map((link) => ({ Name: "", Tsize: link.size, Hash: link.cid })) })
  )
  return andThen(dagPbCidOf(layout, block), (cid) => ({ cid, size: size + block.length, contentBytes }))
}

/** Adds `link` to `level`; a full level becomes a node of the level above. */
const receive = (dag: FileDag, level: number, link: FileLink): Pending<void> => {
  const links = dag.levels[level] ?? []
  dag.levels[level] = links
  links.push(link)
  dag.received[level] = (dag.received[level] ?? 0) + 1
  if (links.length < dag.layout.maxChildren) return undefined
  dag.levels[level] = []
  return andThen(parentOf(dag.layout, links), (parent) => receive(dag, level + 1, parent))
}

/** Links the leaves hashed elsewhere, oldest first, until at most `keep` are still out. */
const receiveHashed = (dag: FileDag, keep: number): Pending<void> => {
  const oldest = dag.hashing.length > keep ? dag.hashing.shift() : undefined
  if (oldest === undefined) return undefined
  return oldest.then((link) => andThen(receive(dag, 0, link), () => receiveHashed(dag, keep)))
}

/** Sends the leaf `block` to `hashing`; waits only when too many leaves are out. */
const sealElsewhere = (dag: FileDag, hashing: LeafHashing, block: Uint8Array, contentBytes: number): Pending<void> => {
  const [version, codec] = dag.layout.rawLeaves ? [1 as const, raw.code] : [dag.layout.cidVersion, dagPb.code]
  const size = block.length
  const link = hashing.sha256(block).then((digest) => ({ cid: CID.create(version, codec, digest), size, contentBytes }))
  // Awaited in order by `receiveHashed`; a failure reaches the builder there, not as an unhandled rejection.
  link.catch(() => undefined)
  dag.hashing.push(link)
  return receiveHashed(dag, LEAVES_IN_FLIGHT)
}

/** Hashes the leaf `content` (raw leaves) or the leaf buffer's `filled` bytes, and links it. */
const seal = (dag: FileDag, content: Uint8Array | undefined): Pending<void> => {
  const length = content?.length ?? dag.filled
  dag.filled = 0
  if (content === undefined) ensureRoom(dag, length)
  const { rawLeaves, leafHashing } = dag.layout
  const block = rawLeaves ? (content ?? dag.leaf.subarray(HEADROOM, HEADROOM + length)) : framedLeaf(dag.leaf, length)
  // A listener hears a block with its CID at once, while its bytes are still there: no worker then.
  const elsewhere = leafHashing !== undefined && dag.layout.onBlock === undefined && dag.sealed >= leafHashing.after
  dag.sealed += length
  if (elsewhere) return sealElsewhere(dag, leafHashing, block, length)
  return andThen(rawLeaves ? cidOf(dag.layout, block, raw.code, 1) : dagPbCidOf(dag.layout, block), (cid) =>
    receive(dag, 0, { cid, size: block.length, contentBytes: length })
  )
}

/** Feeds `chunk` to the file; a promise only where a block was hashed asynchronously. */
export const write = (dag: FileDag, chunk: Uint8Array): Pending<void> => {
  const { chunkSize, rawLeaves } = dag.layout
  let offset = 0
  while (offset < chunk.length) {
    const left = chunk.length - offset
    let sealed: Pending<void>
    if (dag.filled === 0 && rawLeaves && left >= chunkSize) {
      sealed = seal(dag, chunk.subarray(offset, offset + chunkSize))
      offset += chunkSize
    } else {
      const taken = Math.min(chunkSize - dag.filled, left)
      ensureRoom(dag, dag.filled + taken)
      dag.leaf.set(taken === chunk.length ? chunk : chunk.subarray(offset, offset + taken), HEADROOM + dag.filled)
      dag.filled += taken
      offset += taken
      if (dag.filled < chunkSize) return undefined
      sealed = seal(dag, undefined)
    }
    if (sealed instanceof Promise) {
      const rest = offset
      return sealed.then(() => write(dag, chunk.subarray(rest)))
    }
  }
  return undefined
}

/** The nodes over each level's remaining links, from `level` up to the root. */
const close = (dag: FileDag, level: number): Pending<FileLink> => {
  const links = dag.levels[level] ?? []
  const only = links[0]
  if (dag.received[level] === 1 && only !== undefined) return only
  if (links.length === 0) return close(dag, level + 1)
  dag.levels[level] = []
  return andThen(
    andThen(parentOf(dag.layout, links), (parent) => receive(dag, level + 1, parent)),
    () => close(dag, level + 1)
  )
}

/** The file's root, once all its bytes were written (an empty file is one empty leaf). */
export const finish = (dag: FileDag): Pending<FileLink> =>
  andThen(
    andThen(
      dag.filled > 0 || (dag.received[0] === undefined && dag.hashing.length === 0) ? seal(dag, undefined) : undefined,
      () => receiveHashed(dag, 0)
    ),
    () => close(dag, 0)
  )
