/**
 * Reading UnixFS content back out of a blockstore, one block at a time.
 *
 * Everything here is a pull-based async generator: a block is read from the store only when the
 * consumer asks for the next piece, so a slow download holds one block per DAG level in memory,
 * never the file. (The UnixFS exporter reads ahead into an unbounded queue, which is why file
 * bytes are walked here; its path walker looks up one link at a time, HAMT shards included.)
 */
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import { walkPath } from "ipfs-unixfs-exporter"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { identity } from "multiformats/hashes/identity"
import { type Blockstore, blockSize, ContentNotFound, readBlock } from "./Blocks.ts"

/** A link in a directory listing. */
export interface DirectoryEntry {
  readonly name: string
  readonly cid: CID
  readonly size: number
}

/** What a CID points to. */
export type NodeStat =
  | { readonly type: "file"; readonly cid: CID; readonly size: number }
  | { readonly type: "directory"; readonly cid: CID; readonly size: number; readonly sharded: boolean }
  | { readonly type: "other"; readonly cid: CID; readonly codec: number }

export class NotAFile extends Error {
  constructor(cid: string) {
    super(`this dag node is a directory: ${cid}`)
    this.name = "NotAFile"
  }
}

export class NotUnixFs extends Error {
  constructor(cid: string, codec: number) {
    super(`not a UnixFS file: ${cid} (codec 0x${codec.toString(16)})`)
    this.name = "NotUnixFs"
  }
}

/** A block with its CID. */
export interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

/**
 * A block a walk selected. The walk reads the blocks whose links it follows and hands their bytes
 * on; a leaf (a raw block, or a block of a codec whose links are not followed) it leaves unread
 * (`bytes` undefined), for the consumer to read, or only measure (`blockSize`), when it wants.
 */
export interface SelectedBlock {
  readonly cid: CID
  readonly bytes: Uint8Array | undefined
}

/** The selected block with its bytes, read now if the walk left them unread. */
export const withBytes = async (store: Blockstore, { cid, bytes }: SelectedBlock): Promise<Block> => ({
  cid,
  bytes: bytes ?? (await readBlock(store, cid))
})

const unixfsOf = (node: dagPb.PBNode): UnixFS | undefined => {
  if (node.Data === undefined) return undefined
  try {
    return UnixFS.unmarshal(node.Data)
  } catch {
    return undefined
  }
}

/** What `cid` is: a UnixFS file (or raw block), a directory, or another IPLD node. */
export const statNode = async (store: Blockstore, cid: CID): Promise<NodeStat> => {
  if (cid.code === raw.code) return { type: "file", cid, size: await blockSize(store, cid) }
  const bytes = await readBlock(store, cid)
  if (cid.code !== dagPb.code) return { type: "other", cid, codec: cid.code }
  const node = dagPb.decode(bytes)
  const unixfs = unixfsOf(node)
  if (unixfs === undefined) return { type: "other", cid, codec: cid.code }
  if (unixfs.isDirectory()) {
    const size = node.Links.reduce((total, link) => total + (link.Tsize ?? 0), bytes.byteLength)
    return { type: "directory", cid, size, sharded: unixfs.type === "hamt-sharded-directory" }
  }
  return { type: "file", cid, size: Number(unixfs.fileSize()) }
}

// A dag-pb link name in a HAMT shard is a 2-hex-digit bucket prefix, then the entry name; a name
// that is only the prefix points at a sub-shard.
const hamtPrefix = 2

/** The entries of a directory, HAMT shards flattened, in link order. */
export const listDirectory = async (store: Blockstore, cid: CID): Promise<ReadonlyArray<DirectoryEntry>> => {
  const node = dagPb.decode(await readBlock(store, cid))
  const unixfs = unixfsOf(node)
  if (unixfs === undefined || !unixfs.isDirectory()) throw new Error(`not a directory: ${cid}`)
  if (unixfs.type !== "hamt-sharded-directory") {
    return node.Links.map((link) => ({ name: link.Name ?? "", cid: link.Hash, size: link.Tsize ?? 0 }))
  }
  const entries: Array<DirectoryEntry> = []
  for (const link of node.Links) {
    const name = link.Name ?? ""
    if (name.length === hamtPrefix) entries.push(...(await listDirectory(store, link.Hash)))
    else entries.push({ name: name.slice(hamtPrefix), cid: link.Hash, size: link.Tsize ?? 0 })
  }
  return entries
}

/** The shard blocks of a HAMT directory (its root included), depth first, not the entries. */
export async function* shardBlocks(store: Blockstore, cid: CID): AsyncGenerator<Block> {
  const bytes = await readBlock(store, cid)
  yield { cid, bytes }
  for (const link of dagPb.decode(bytes).Links) {
    if ((link.Name ?? "").length === hamtPrefix) yield* shardBlocks(store, link.Hash)
  }
}

/** Where a path led: the CID at its end and every block crossed on the way (root first, end last). */
export interface Resolution {
  readonly cid: CID
  readonly crossed: ReadonlyArray<CID>
}

// What the exporter's walker throws for a path that names nothing: no such link (or a block the
// store lacks, which its blockstore names the same), not UnixFS, a path into a raw or identity
// block, a codec it cannot path through.
const pathErrors = new Set(["NotFoundError", "NotUnixFSError", "BadPathError", "NoResolverError"])

/**
 * The blocks crossed from `parent` to the node its link `name` points at (HAMT shards on the way
 * included, that node last), or `undefined` when `parent` has no such link.
 *
 * The exporter's walker is asked one name at a time, and its answer is checked: under a UnixFS
 * file (or symlink) it "resolves" the next name to the file itself, leaving the name unconsumed
 * in `remainder`, so `{file}/x` would otherwise read as `{file}`. A name holding "/" (a decoded
 * `%2F`) is no UnixFS entry's name, and the walker cannot be given one.
 */
const followLink = async (store: Blockstore, parent: CID, name: string): Promise<ReadonlyArray<CID> | undefined> => {
  if (name.includes("/")) return undefined
  let last: { readonly roots: ReadonlyArray<CID>; readonly remainder: ReadonlyArray<string> } | undefined
  try {
    for await (const entry of walkPath(`${parent}/${name}`, store, { yieldSubShards: true })) last = entry
  } catch (error) {
    if (error instanceof Error && pathErrors.has(error.name)) return undefined
    throw error
  }
  if (last === undefined || last.remainder.length > 0) return undefined
  return last.roots.slice(1)
}

/**
 * Follows `segments` from `root`, one link per segment: a directory's entry (through HAMT shards),
 * or a dag-cbor / dag-json field holding a link. A segment under a file, or naming nothing, is
 * `ContentNotFound` for the whole path; so is a block missing on the way.
 */
export const resolvePath = async (
  store: Blockstore,
  root: CID,
  segments: ReadonlyArray<string>
): Promise<Resolution> => {
  const path = segments.filter((segment) => segment !== "")
  const crossed: Array<CID> = [root]
  for (const segment of path) {
    const next = await followLink(store, crossed.at(-1)!, segment)
    if (next === undefined) throw new ContentNotFound(`${root}/${path.join("/")}`, "path")
    crossed.push(...next)
  }
  return { cid: crossed.at(-1)!, crossed }
}

/** A block of a file, with the bytes of the file it carries inside the requested range. */
export interface FileBlock extends Block {
  /** The file's bytes this block holds that fall in the range (empty for inner nodes). */
  readonly data: Uint8Array
}

/** A block of a file a walk selected: a read inner node with its share of the range, or an unread leaf. */
export type SelectedFileBlock =
  | { readonly cid: CID; readonly bytes: Uint8Array; readonly data: Uint8Array }
  | { readonly cid: CID; readonly bytes: undefined; readonly offset: number }

/**
 * The blocks of a UnixFS file (or raw block) needed for bytes `[start, end)`, depth first: the root
 * always, then only the subtrees that overlap the range. Inner nodes are read (their links say
 * where the range lies); raw leaves are selected unread, with where they sit in the file.
 */
export async function* selectFileBlocks(
  store: Blockstore,
  cid: CID,
  start = 0,
  end = Number.POSITIVE_INFINITY,
  offset = 0
): AsyncGenerator<SelectedFileBlock> {
  if (cid.code === raw.code) {
    yield { cid, bytes: undefined, offset }
    return
  }
  const bytes = await readBlock(store, cid)
  if (cid.code !== dagPb.code) throw new NotUnixFs(cid.toString(), cid.code)
  const node = dagPb.decode(bytes)
  const unixfs = unixfsOf(node)
  if (unixfs === undefined) throw new NotUnixFs(cid.toString(), cid.code)
  if (unixfs.isDirectory()) throw new NotAFile(cid.toString())
  const own = unixfs.data ?? new Uint8Array()
  yield { cid, bytes, data: clip(own, offset, start, end) }
  let position = offset + own.byteLength
  for (const [i, link] of node.Links.entries()) {
    const size = Number(unixfs.blockSizes[i] ?? 0n)
    const childStart = position
    position += size
    if (childStart >= end) break
    if (position <= start) continue
    yield* selectFileBlocks(store, link.Hash, start, end, childStart)
  }
}

/** `selectFileBlocks` with every block read, each with its share of the bytes `[start, end)`. */
export async function* fileBlocks(
  store: Blockstore,
  cid: CID,
  start = 0,
  end = Number.POSITIVE_INFINITY
): AsyncGenerator<FileBlock> {
  for await (const block of selectFileBlocks(store, cid, start, end)) {
    if (block.bytes !== undefined) yield block
    else {
      const bytes = await readBlock(store, block.cid)
      yield { cid: block.cid, bytes, data: clip(bytes, block.offset, start, end) }
    }
  }
}

// The part of `data` (which sits at `offset` in the file) inside `[start, end)`.
const clip = (data: Uint8Array, offset: number, start: number, end: number): Uint8Array => {
  const from = Math.max(0, start - offset)
  const to = Math.min(data.byteLength, end - offset)
  return to <= from ? new Uint8Array() : data.subarray(from, to)
}

/** The bytes `[start, end)` of a UnixFS file (or raw block), block by block. */
export async function* readFile(
  store: Blockstore,
  cid: CID,
  start = 0,
  end = Number.POSITIVE_INFINITY
): AsyncGenerator<Uint8Array> {
  for await (const block of fileBlocks(store, cid, start, end)) {
    if (block.data.byteLength > 0) yield block.data
  }
}

/**
 * Every block of the DAG under `root`, depth first in link order (dag-pb links are followed; other
 * codecs are leaves, selected unread). Identity blocks are skipped: their bytes are in the CID.
 * `duplicates: false` selects a block only the first time it is met.
 */
export async function* selectDagBlocks(
  store: Blockstore,
  root: CID,
  options: { readonly duplicates?: boolean } = {}
): AsyncGenerator<SelectedBlock> {
  const seen = new Set<string>()
  const stack: Array<CID> = [root]
  while (stack.length > 0) {
    const cid = stack.pop()!
    if (cid.multihash.code === identity.code) continue
    if (options.duplicates !== true) {
      const id = base58btc.encode(cid.multihash.bytes)
      if (seen.has(id)) continue
      seen.add(id)
    }
    if (cid.code !== dagPb.code) {
      yield { cid, bytes: undefined }
      continue
    }
    const bytes = await readBlock(store, cid)
    yield { cid, bytes }
    const links = dagPb.decode(bytes).Links
    for (let i = links.length - 1; i >= 0; i--) stack.push(links[i]!.Hash)
  }
}

/** `selectDagBlocks` with every block read. */
export async function* walkDag(
  store: Blockstore,
  root: CID,
  options: { readonly duplicates?: boolean } = {}
): AsyncGenerator<Block> {
  for await (const selected of selectDagBlocks(store, root, options)) yield await withBytes(store, selected)
}
