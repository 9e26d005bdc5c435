/**
 * CAR (v1) responses of the trustless gateway: which blocks a request's path, `dag-scope` and
 * `entity-bytes` select, in depth-first order, and their encoding as a stream pulled block by block.
 *
 * Blocks come in this order: those crossed to resolve the path (root first, HAMT shards
 * included), then the blocks of the path's end selected by the scope: `block` the end alone,
 * `entity` a whole UnixFS file (or, with `entity-bytes`, the root and only the subtrees the range
 * needs) or a directory's own blocks, `all` the whole DAG below. Identity blocks are never sent
 * (their bytes are in the CID); with `dups=n` a block is sent once.
 */
import * as CarBufferWriter from "@ipld/car/buffer-writer"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { varint } from "multiformats"
import { type Blockstore, readBlock } from "../storage/Blocks.ts"
import { type Block, fileBlocks, type Resolution, shardBlocks, statNode, walkDag } from "../storage/Dag.ts"
import { type CarOptions, entityRange } from "./Negotiate.ts"

/** The CARv1 header naming `roots`. */
export const carHeader = (roots: ReadonlyArray<CID>): Uint8Array => {
  const writer = CarBufferWriter.createWriter(new ArrayBuffer(CarBufferWriter.headerLength({ roots: [...roots] })), {
    roots: [...roots]
  })
  return CarBufferWriter.close(writer)
}

/** One CAR section: varint length, CID, block bytes. */
export const carSection = ({ cid, bytes }: Block): Uint8Array => {
  const length = cid.bytes.byteLength + bytes.byteLength
  const prefix = varint.encodeTo(length, new Uint8Array(varint.encodingLength(length)))
  const section = new Uint8Array(prefix.byteLength + length)
  section.set(prefix, 0)
  section.set(cid.bytes, prefix.byteLength)
  section.set(bytes, prefix.byteLength + cid.bytes.byteLength)
  return section
}

/** The blocks under the path's end that the scope (and entity range) selects. */
async function* endBlocks(store: Blockstore, end: CID, options: CarOptions): AsyncGenerator<Block> {
  if (options.scope === "all") {
    yield* walkDag(store, end, { duplicates: options.duplicates })
    return
  }
  if (options.scope === "block") {
    yield { cid: end, bytes: await readBlock(store, end) }
    return
  }
  const stat = await statNode(store, end)
  if (stat.type === "file") {
    if (options.entityBytes === undefined) {
      yield* fileBlocks(store, end)
      return
    }
    const range = entityRange(options.entityBytes, stat.size)
    if (range === undefined) yield { cid: end, bytes: await readBlock(store, end) }
    else yield* fileBlocks(store, end, range.start, range.end)
    return
  }
  if (stat.type === "directory" && stat.sharded) {
    yield* shardBlocks(store, end)
    return
  }
  yield { cid: end, bytes: await readBlock(store, end) }
}

/** Every block of the response, in order: path blocks, then the end's. */
export async function* carBlocks(
  store: Blockstore,
  resolution: Resolution,
  options: CarOptions
): AsyncGenerator<Block> {
  const sent = new Set<string>()
  const fresh = (cid: CID) => {
    if (cid.multihash.code === identity.code) return false
    if (options.duplicates) return true
    const key = base58btc.encode(cid.multihash.bytes)
    if (sent.has(key)) return false
    sent.add(key)
    return true
  }
  for (const cid of resolution.crossed.slice(0, -1)) {
    if (fresh(cid)) yield { cid, bytes: await readBlock(store, cid) }
  }
  for await (const block of endBlocks(store, resolution.cid, options)) {
    if (fresh(block.cid)) yield block
  }
}

/** The CAR bytes: the header naming `root`, then one section per block, pulled on demand. */
/**
 * The byte length of `carStream(root, blocks)`, from a pass over the same blocks. Answers carry it:
 * undici's `fetch` over msw in process can miss the end of a body of unknown length whose reader
 * is paused when it ends.
 */
export const carLength = async (root: CID, blocks: AsyncIterable<Block>): Promise<number> => {
  let length = carHeader([root]).byteLength
  for await (const { cid, bytes } of blocks) {
    const section = cid.bytes.byteLength + bytes.byteLength
    length += varint.encodingLength(section) + section
  }
  return length
}

export async function* carStream(root: CID, blocks: AsyncIterable<Block>): AsyncGenerator<Uint8Array> {
  yield carHeader([root])
  for await (const block of blocks) yield carSection(block)
}

/** `Content-Type` of a CAR response, with every parameter the gateway knows. */
export const carContentType = (options: CarOptions): string =>
  `application/vnd.ipld.car; version=1; order=dfs; dups=${options.duplicates ? "y" : "n"}`

/** A short, stable tag of the parameters that change a CAR's bytes (for its `Etag`). */
export const carVariant = (options: CarOptions): string => {
  const text = [
    options.scope,
    options.duplicates ? "y" : "n",
    options.entityBytes === undefined ? "" : `${options.entityBytes.from}:${options.entityBytes.to}`
  ].join("|")
  // FNV-1a, 32 bits: enough to tell variants of one CID apart.
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(16).padStart(8, "0")
}
