/**
 * Test fixtures for the verifiers: UnixFS DAGs imported into memory (small chunks and fan-outs,
 * so a few kilobytes make deep trees), the blocks a trustless gateway answers for a file, a path
 * and a byte range, in depth-first order, and CAR files made from any list of blocks (so tests can
 * flip, drop, add and cut).
 *
 * The blocks are those the mock gateway answers, chosen apart from the client's walk, from the
 * UnixFS layout alone.
 */
import { importer } from "ipfs-unixfs-importer"
import { fixedSize } from "ipfs-unixfs-importer/chunker"
import { balanced } from "ipfs-unixfs-importer/layout"
import { type Block, carHeader, carSection, trustlessBlocks as gatewayBlocks } from "lighthouse-effect/mocks/testing"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"

export type { Block }

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

/** What a trustless gateway answers for `dag` at `path`, `entity-bytes` [from, to) (to the end without `to`). */
export const trustlessBlocks = (
  dag: Dag,
  options: { readonly path?: ReadonlyArray<string>; readonly from?: number; readonly to?: number; dups?: boolean } = {}
): Array<Block> => [...gatewayBlocks(dag.get, dag.root, options)]

/** A CARv1 rooted at `roots` holding `blocks` in order (anything, valid or not). */
export const encodeCar = async (roots: ReadonlyArray<CID>, blocks: ReadonlyArray<Block>): Promise<Uint8Array> =>
  Uint8Array.from([await carHeader(roots), ...blocks.map(carSection)].flatMap((part) => [...part]))
