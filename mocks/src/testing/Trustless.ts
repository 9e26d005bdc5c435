/**
 * The blocks a trustless gateway answers, worked out from the UnixFS layout alone (apart from both
 * the mock gateway and the client's walk), and CAR files made from any list of blocks, so tests
 * can flip, drop, add and cut.
 *
 * For `GET /ipfs/{cid}[/path]?format=car` a CARv1 rooted at `{cid}` holds, depth first
 * (`order=dfs`), the blocks that resolve the path and then the blocks of the entity at its end: a
 * file's whole DAG, or with `entity-bytes` only the blocks holding that range. Repeated blocks are
 * sent each time (`dups=y`) unless the client asks `dups=n`.
 */
import { CarWriter } from "@ipld/car"
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import { varint } from "multiformats"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"

export interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

/** Where the blocks come from. */
export type GetBlock = (cid: CID) => Uint8Array

const decode = (get: GetBlock, cid: CID) => {
  if (cid.code === raw.code) return { unixfs: undefined, links: [] as Array<dagPb.PBLink> }
  const node = dagPb.decode(get(cid))
  return { unixfs: node.Data === undefined ? undefined : UnixFS.unmarshal(node.Data), links: node.Links }
}

/** The HAMT blocks from `shard` down to the entry named `name`, and the entry. */
const searchShard = (get: GetBlock, shard: CID, name: string): { path: Array<CID>; entry: CID } | undefined => {
  const { unixfs, links } = decode(get, shard)
  const width = (Number(unixfs?.fanout ?? 256n) - 1).toString(16).length
  const entry = links.find((link) => (link.Name ?? "").length > width && link.Name!.slice(width) === name)
  if (entry !== undefined) return { path: [shard], entry: entry.Hash }
  for (const link of links) {
    if ((link.Name ?? "").length !== width) continue
    const below = searchShard(get, link.Hash, name)
    if (below !== undefined) return { path: [shard, ...below.path], entry: below.entry }
  }
  return undefined
}

/** The blocks resolving `path` from `root` (not the entity itself), and the entity; `undefined` when absent. */
export const resolvePath = (
  get: GetBlock,
  root: CID,
  path: ReadonlyArray<string>
): { readonly blocks: Array<CID>; readonly entity: CID } | undefined => {
  const blocks: Array<CID> = []
  let cid = root
  for (const segment of path) {
    const { unixfs, links } = decode(get, cid)
    if (unixfs?.type === "hamt-sharded-directory") {
      const found = searchShard(get, cid, segment)
      if (found === undefined) return undefined
      blocks.push(...found.path)
      cid = found.entry
    } else {
      const link = unixfs?.type === "directory" ? links.find((candidate) => candidate.Name === segment) : undefined
      if (link === undefined) return undefined
      blocks.push(cid)
      cid = link.Hash
    }
  }
  return { blocks, entity: cid }
}

/** The file's blocks overlapping [from, to) of its content, depth first. */
function* fileBlocks(get: GetBlock, cid: CID, from: number, to: number): Generator<CID> {
  yield cid
  const { unixfs, links } = decode(get, cid)
  if (unixfs === undefined || unixfs.isDirectory()) return
  let offset = unixfs.data?.length ?? 0
  for (let i = 0; i < unixfs.blockSizes.length; i++) {
    const size = Number(unixfs.blockSizes[i])
    if (offset < to && offset + size > from) yield* fileBlocks(get, links[i]!.Hash, from - offset, to - offset)
    offset += size
  }
}

/** The blocks of a trustless CAR answer for `path` in `root`, the entity's bytes limited to [from, to). */
export function* trustlessBlocks(
  get: GetBlock,
  root: CID,
  options: {
    readonly path?: ReadonlyArray<string>
    readonly from?: number
    readonly to?: number
    readonly dups?: boolean
  } = {}
): Generator<Block> {
  const resolved = resolvePath(get, root, options.path ?? [])
  if (resolved === undefined) throw new Error(`no ${(options.path ?? []).join("/")} in ${root}`)
  const seen = new Set<string>()
  const entity = fileBlocks(get, resolved.entity, options.from ?? 0, options.to ?? Number.POSITIVE_INFINITY)
  for (const cid of [...resolved.blocks, ...entity]) {
    const key = base58btc.encode(cid.multihash.bytes)
    if (options.dups === false && seen.has(key)) continue
    seen.add(key)
    yield { cid, bytes: get(cid) }
  }
}

/** The header of a CARv1 rooted at `roots`. */
export const carHeader = async (roots: ReadonlyArray<CID>): Promise<Uint8Array> => {
  const { writer, out } = CarWriter.create([...roots])
  const parts: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const part of out) parts.push(part)
  })()
  await writer.close()
  await collected
  return parts.length === 1 ? parts[0]! : Uint8Array.from(parts.flatMap((part) => [...part]))
}

/** One CAR section: length prefix, CID, block. */
export const carSection = (block: Block): Uint8Array => {
  const length = block.cid.bytes.length + block.bytes.length
  const section = new Uint8Array(varint.encodingLength(length) + length)
  varint.encodeTo(length, section)
  section.set(block.cid.bytes, varint.encodingLength(length))
  section.set(block.bytes, varint.encodingLength(length) + block.cid.bytes.length)
  return section
}
