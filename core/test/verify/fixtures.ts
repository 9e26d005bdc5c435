/**
 * Test fixtures for the verifiers: UnixFS DAGs imported into memory (small chunks and fan-outs,
 * so a few kilobytes make deep trees), the blocks a trustless gateway answers for a file, a path
 * and a byte range, in depth-first order, and CAR files made from any list of blocks (so tests can
 * flip, drop, add and cut).
 *
 * The block selection here is written apart from the client's walk, from the UnixFS layout alone.
 */
import { CarWriter } from "@ipld/car"
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import { importer } from "ipfs-unixfs-importer"
import { fixedSize } from "ipfs-unixfs-importer/chunker"
import { balanced } from "ipfs-unixfs-importer/layout"
import { varint } from "multiformats"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"

export interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

export interface Dag {
  readonly root: CID
  readonly get: (cid: CID) => Uint8Array
}

export interface ImportShape {
  readonly cidVersion?: 0 | 1
  readonly rawLeaves?: boolean
  readonly chunkSize?: number
  readonly maxChildren?: number
  /** Directory size (bytes of links) past which a directory is HAMT-sharded. */
  readonly shardAt?: number | undefined
  /** log2 of a HAMT node's fan-out. @default 8 */
  readonly fanoutBits?: number | undefined
}

const key = (cid: CID) => base58btc.encode(cid.multihash.bytes)

/** Imports `files` (one unnamed file when given bytes); the root is the last entry. */
export const importDag = async (
  files: Uint8Array | ReadonlyArray<{ readonly path: string; readonly bytes: Uint8Array }>,
  shape: ImportShape = {}
): Promise<Dag> => {
  const blocks = new Map<string, Uint8Array>()
  const store = {
    put: (cid: CID, bytes: Uint8Array) => {
      blocks.set(key(cid), bytes)
      return cid
    }
  }
  const candidates =
    files instanceof Uint8Array ? [{ content: files }] : files.map(({ path, bytes }) => ({ path, content: bytes }))
  let root: CID | undefined
  for await (const entry of importer(candidates, store, {
    cidVersion: shape.cidVersion ?? 1,
    rawLeaves: shape.rawLeaves ?? true,
    chunker: fixedSize({ chunkSize: shape.chunkSize ?? 256 * 1024 }),
    layout: balanced({ maxChildrenPerNode: shape.maxChildren ?? 174 }),
    ...(shape.shardAt === undefined ? {} : { shardSplitThresholdBytes: shape.shardAt }),
    ...(shape.fanoutBits === undefined ? {} : { shardFanoutBits: shape.fanoutBits })
  })) {
    root = entry.cid
  }
  return {
    root: root!,
    get: (cid) => {
      const bytes = blocks.get(key(cid))
      if (bytes === undefined) throw new Error(`no block ${cid}`)
      return bytes
    }
  }
}

const node = (dag: Dag, cid: CID) => {
  if (cid.code === raw.code) return { unixfs: undefined, links: [] as Array<dagPb.PBLink> }
  const decoded = dagPb.decode(dag.get(cid))
  return { unixfs: UnixFS.unmarshal(decoded.Data!), links: decoded.Links }
}

/** The blocks from a HAMT node down to the link named `name` (its prefix is unknown here). */
const searchShard = (dag: Dag, cid: CID, name: string): { path: Array<CID>; found: CID } | undefined => {
  const { unixfs, links } = node(dag, cid)
  const width = (Number(unixfs!.fanout) - 1).toString(16).length
  for (const link of links) {
    if (link.Name!.length > width && link.Name!.slice(width) === name) return { path: [cid], found: link.Hash }
  }
  for (const link of links) {
    if (link.Name!.length !== width) continue
    const below = searchShard(dag, link.Hash, name)
    if (below !== undefined) return { path: [cid, ...below.path], found: below.found }
  }
  return undefined
}

/** The file's blocks overlapping [start, end) of its content, depth-first. */
const fileBlocks = (dag: Dag, cid: CID, start: number, end: number, out: Array<CID>) => {
  out.push(cid)
  const { unixfs, links } = node(dag, cid)
  if (unixfs === undefined) return
  let offset = unixfs.data?.length ?? 0
  unixfs.blockSizes.forEach((blockSize, i) => {
    const size = Number(blockSize)
    if (offset < end && offset + size > start) fileBlocks(dag, links[i]!.Hash, start - offset, end - offset, out)
    offset += size
  })
}

/** What a trustless gateway answers for `dag` at `path`, `entity-bytes` [from, to) (to the end without `to`). */
export const trustlessBlocks = (
  dag: Dag,
  options: { readonly path?: ReadonlyArray<string>; readonly from?: number; readonly to?: number; dups?: boolean } = {}
): Array<Block> => {
  const cids: Array<CID> = []
  let cid = dag.root
  for (const segment of options.path ?? []) {
    const { unixfs, links } = node(dag, cid)
    if (unixfs?.type === "hamt-sharded-directory") {
      const found = searchShard(dag, cid, segment)!
      cids.push(...found.path)
      cid = found.found
    } else {
      cids.push(cid)
      cid = links.find((link) => link.Name === segment)!.Hash
    }
  }
  const { unixfs } = node(dag, cid)
  const size = unixfs === undefined ? dag.get(cid).length : Number(unixfs.fileSize())
  fileBlocks(dag, cid, options.from ?? 0, options.to ?? size, cids)
  const seen = new Set<string>()
  return cids
    .filter((each) => options.dups !== false || (!seen.has(key(each)) && seen.add(key(each)) !== undefined))
    .map((each) => ({ cid: each, bytes: dag.get(each) }))
}

/** A CARv1 rooted at `roots` holding `blocks` in order (anything, valid or not). */
export const encodeCar = async (roots: ReadonlyArray<CID>, blocks: ReadonlyArray<Block>): Promise<Uint8Array> => {
  const { writer, out } = CarWriter.create([...roots])
  const parts: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const part of out) parts.push(part)
  })()
  await writer.close()
  await collected
  for (const block of blocks) {
    const length = block.cid.bytes.length + block.bytes.length
    parts.push(varint.encodeTo(length, new Uint8Array(varint.encodingLength(length))), block.cid.bytes, block.bytes)
  }
  const car = new Uint8Array(parts.reduce((total, part) => total + part.length, 0))
  let offset = 0
  for (const part of parts) {
    car.set(part, offset)
    offset += part.length
  }
  return car
}
