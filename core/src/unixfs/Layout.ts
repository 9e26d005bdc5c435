/**
 * How a UnixFS import lays bytes out: the leaf size, the fan-out of file nodes, raw or wrapped
 * leaves, the CID version and when a folder becomes a HAMT. Kubo's `ipfs add` (the upload node)
 * uses 256 KiB leaves, at most 174 links per file node and a 256 KiB links estimate for folders.
 *
 * @internal
 */

import type { CID } from "multiformats/cid"
import type { MultihashDigest } from "multiformats/hashes/interface"
import { sha256 } from "multiformats/hashes/sha2"

/** The layout of one import. */
export interface Layout {
  /**
   * SHA-256 of a block: multiformats' (synchronous on Node, a promise with Web Crypto); tests
   * give an asynchronous one to run the builder's other path on Node.
   */
  readonly sha256: (block: Uint8Array) => MultihashDigest | Promise<MultihashDigest>
  readonly cidVersion: 0 | 1
  /** Leaves as raw blocks (CID v1, codec raw) rather than UnixFS `file` nodes. */
  readonly rawLeaves: boolean
  /** Bytes of content per leaf. */
  readonly chunkSize: number
  /** Links per file node (at least 2). */
  readonly maxChildren: number
  /** A folder whose links estimate (names and CIDs of its direct entries) passes this is sharded. */
  readonly shardThreshold: number
  /** The entries are wrapped in one directory, reported with path `""`. */
  readonly wrapWithDirectory: boolean
  /**
   * Hears every block once named (a sync sends the blocks it builds). The bytes may be reused
   * after the call: a listener that keeps them copies them.
   */
  readonly onBlock?: ((cid: CID, block: Uint8Array) => void) | undefined
}

/** Kubo's `ipfs add` layout (the `unixfs-v0-2015` profile) for `cidVersion`. */
export const kuboLayout = (settings: {
  readonly cidVersion: 0 | 1
  readonly rawLeaves?: boolean | undefined
  readonly wrapWithDirectory?: boolean | undefined
}): Layout => ({
  sha256: (block) => sha256.digest(block),
  cidVersion: settings.cidVersion,
  rawLeaves: settings.rawLeaves ?? settings.cidVersion === 1,
  chunkSize: 256 * 1024,
  maxChildren: 174,
  shardThreshold: 256 * 1024,
  wrapWithDirectory: settings.wrapWithDirectory ?? false
})
