/**
 * Reading UnixFS content back out of a blockstore, one block at a time.
 *
 * Everything here is a pull-based async generator: a block is read from the store only when the
 * consumer asks for the next piece, so a slow download holds one block per DAG level in memory,
 * never the file. (The UnixFS exporter reads ahead into an unbounded queue, which is why file
 * bytes are walked here; its path walker is used for resolution, HAMT shards included.)
 */
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import { walkPath } from "ipfs-unixfs-exporter"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { identity } from "multiformats/hashes/identity"
import { type Blockstore, ContentNotFound, readBlock } from "./Blocks.ts"

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
  const bytes = await readBlock(store, cid)
  if (cid.code === raw.code) return { type: "file", cid, size: bytes.byteLength }
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

/** Follows `segments` through directories (HAMT shards included) from `root`. */
export const resolvePath = async (
  store: Blockstore,
  root: CID,
  segments: ReadonlyArray<string>
): Promise<Resolution> => {
  const path = segments.filter((segment) => segment !== "")
  if (path.length === 0) return { cid: root, crossed: [root] }
  const display = `${root}/${path.join("/")}`
  // The walker splits on unescaped "/", so a "/" inside a name cannot occur here; escape "\".
  const joined = [root.toString(), ...path.map((segment) => segment.replaceAll("/", "\\/"))].join("/")
  let last: { cid: CID; roots: ReadonlyArray<CID> } | undefined
  try {
    for await (const entry of walkPath(joined, store)) last = entry
  } catch (error) {
    if (error instanceof ContentNotFound) throw error
    if (error instanceof Error && (error.name === "NotFoundError" || error.name === "NotUnixFSError")) {
      throw new ContentNotFound(display, "path")
    }
    throw error
  }
  if (last === undefined) throw new ContentNotFound(display, "path")
  return { cid: last.cid, crossed: last.roots }
}

/** A block of a file, with the bytes of the file it carries inside the requested range. */
export interface FileBlock extends Block {
  /** The file's bytes this block holds that fall in the range (empty for inner nodes). */
  readonly data: Uint8Array
}

/**
 * The blocks of a UnixFS file (or raw block) needed for bytes `[start, end)`, depth first, each
 * with its share of those bytes: the root always, then only the subtrees that overlap the range.
 */
export async function* fileBlocks(
  store: Blockstore,
  cid: CID,
  start = 0,
  end = Number.POSITIVE_INFINITY,
  offset = 0
): AsyncGenerator<FileBlock> {
  const bytes = await readBlock(store, cid)
  if (cid.code === raw.code) {
    yield { cid, bytes, data: clip(bytes, offset, start, end) }
    return
  }
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
    yield* fileBlocks(store, link.Hash, start, end, childStart)
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
 * codecs are leaves). Identity blocks are skipped: their bytes are in the CID. `duplicates: false`
 * sends a block only the first time it is met.
 */
export async function* walkDag(
  store: Blockstore,
  root: CID,
  options: { readonly duplicates?: boolean } = {}
): AsyncGenerator<Block> {
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
    const bytes = await readBlock(store, cid)
    yield { cid, bytes }
    if (cid.code === dagPb.code) {
      const links = dagPb.decode(bytes).Links
      for (let i = links.length - 1; i >= 0; i--) stack.push(links[i]!.Hash)
    }
  }
}
