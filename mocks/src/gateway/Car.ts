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
import { varint } from "multiformats"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { type Blockstore, blockSize } from "../storage/Blocks.ts"
import {
  type Resolution,
  type SelectedBlock,
  selectDagBlocks,
  selectFileBlocks,
  shardBlocks,
  statNode,
  withBytes
} from "../storage/Dag.ts"
import { markOwnedChunk, readsAfresh } from "../storage/Release.ts"
import { type CarOptions, entityRange } from "./Negotiate.ts"

/** The CARv1 header naming `roots`. */
export const carHeader = (roots: ReadonlyArray<CID>): Uint8Array => {
  const writer = CarBufferWriter.createWriter(new ArrayBuffer(CarBufferWriter.headerLength({ roots: [...roots] })), {
    roots: [...roots]
  })
  return CarBufferWriter.close(writer)
}

/**
 * What comes before a block's bytes in its CAR section: the varint length of CID and block, then
 * the CID. The block's bytes follow as they are, never copied into one section.
 */
export const carSectionPrefix = (cid: CID, blockLength: number): Uint8Array => {
  const length = cid.bytes.byteLength + blockLength
  const varintLength = varint.encodingLength(length)
  const prefix = new Uint8Array(varintLength + cid.bytes.byteLength)
  varint.encodeTo(length, prefix)
  prefix.set(cid.bytes, varintLength)
  return prefix
}

/**
 * The blocks under the path's end that the scope (and entity range) selects. Leaves come unread
 * (see `SelectedBlock`): the length of the answer needs only their lengths.
 */
async function* endBlocks(store: Blockstore, end: CID, options: CarOptions): AsyncGenerator<SelectedBlock> {
  if (options.scope === "all") {
    yield* selectDagBlocks(store, end, { duplicates: options.duplicates })
    return
  }
  if (options.scope === "block") {
    yield { cid: end, bytes: undefined }
    return
  }
  const stat = await statNode(store, end)
  if (stat.type === "file") {
    if (options.entityBytes === undefined) {
      yield* selectFileBlocks(store, end)
      return
    }
    const range = entityRange(options.entityBytes, stat.size)
    if (range === undefined) yield { cid: end, bytes: undefined }
    else yield* selectFileBlocks(store, end, range.start, range.end)
    return
  }
  if (stat.type === "directory" && stat.sharded) {
    yield* shardBlocks(store, end)
    return
  }
  yield { cid: end, bytes: undefined }
}

/** Every block of the response, in order: path blocks, then the end's. */
export async function* carBlocks(
  store: Blockstore,
  resolution: Resolution,
  options: CarOptions
): AsyncGenerator<SelectedBlock> {
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
    if (fresh(cid)) yield { cid, bytes: undefined }
  }
  for await (const block of endBlocks(store, resolution.cid, options)) {
    if (fresh(block.cid)) yield block
  }
}

/**
 * The byte length of `carStream(store, root, blocks)`, from a pass over the same blocks that reads
 * only those it must follow links through: a leaf's length is asked of the store (`blockSize`).
 * Answers carry it: undici's `fetch` over msw in process can miss the end of a body of unknown
 * length whose reader is paused when it ends.
 */
export const carLength = async (
  store: Blockstore,
  root: CID,
  blocks: AsyncIterable<SelectedBlock>
): Promise<number> => {
  let length = carHeader([root]).byteLength
  for await (const { cid, bytes } of blocks) {
    const section = cid.bytes.byteLength + (bytes?.byteLength ?? (await blockSize(store, cid)))
    length += varint.encodingLength(section) + section
  }
  return length
}

/**
 * The CAR bytes: the header naming `root`, then each block's section, pulled on demand, as two
 * pieces: its prefix (`carSectionPrefix`), then the block's bytes as the store gave them.
 */
export async function* carStream(
  store: Blockstore,
  root: CID,
  blocks: AsyncIterable<SelectedBlock>
): AsyncGenerator<Uint8Array> {
  yield carHeader([root])
  const fresh = readsAfresh(store)
  for await (const selected of blocks) {
    const { cid, bytes } = await withBytes(store, selected)
    yield carSectionPrefix(cid, bytes.byteLength)
    // A leaf read here, from disk, for this answer alone (the walk's own reads stay the walk's):
    // the server frees it once sent.
    yield fresh && selected.bytes === undefined ? markOwnedChunk(bytes) : bytes
  }
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
