/**
 * How a UnixFS import lays bytes out: the leaf size, the fan-out of file nodes, raw or wrapped
 * leaves, the CID version and when a folder becomes a HAMT. The two profiles of IPIP-499
 * (https://specs.ipfs.tech/ipips/ipip-0499/) fix all of these: `unixfs-v0-2015`, kubo's `ipfs add`
 * defaults (256 KiB leaves, 174 links per file node, a folder sharded past 256 KiB of link names
 * and CIDs), and `unixfs-v1-2025` (1 MiB leaves, 1024 links, raw leaves, CID v1, a folder sharded
 * past 256 KiB of serialized block).
 *
 * @internal
 */

import type { CID } from "multiformats/cid"
import type { MultihashDigest } from "multiformats/hashes/interface"
import { sha256 } from "multiformats/hashes/sha2"

/** The import profiles of IPIP-499. */
export type Profile = "unixfs-v0-2015" | "unixfs-v1-2025"

/** Every profile, the default first. */
export const PROFILES: ReadonlyArray<Profile> = ["unixfs-v0-2015", "unixfs-v1-2025"]

/**
 * How a folder's size is estimated against the shard threshold: the bytes of its link names and
 * CIDs (`links-bytes`), or its whole serialized block (`block-bytes`).
 */
export type ShardStrategy = "links-bytes" | "block-bytes"

/** What a profile fixes of the file and folder layout. */
export interface ProfileShape {
  readonly chunkSize: number
  readonly maxChildren: number
  readonly shardStrategy: ShardStrategy
  /** Raw leaves unless the request says otherwise (`unixfs-v0-2015`: as kubo, with CID v1 only). */
  readonly rawLeavesByDefault: (cidVersion: 0 | 1) => boolean
}

/** The shape of each profile (IPIP-499's tables). */
export const profileShape: Readonly<Record<Profile, ProfileShape>> = {
  "unixfs-v0-2015": {
    chunkSize: 256 * 1024,
    maxChildren: 174,
    shardStrategy: "links-bytes",
    rawLeavesByDefault: (cidVersion) => cidVersion === 1
  },
  "unixfs-v1-2025": {
    chunkSize: 1024 * 1024,
    maxChildren: 1024,
    shardStrategy: "block-bytes",
    rawLeavesByDefault: () => true
  }
}

/** Both profiles' folder threshold: 256 KiB, compared with `>`. */
export const SHARD_THRESHOLD = 256 * 1024

/**
 * Leaves hashed off the builder's thread (a worker), several in flight while the builder reads on:
 * the builder waits for the oldest only when {@link LEAVES_IN_FLIGHT} are out.
 */
export interface LeafHashing {
  /** The SHA-256 multihash of `block`, hashed elsewhere; `block` may be reused once this returns. */
  readonly sha256: (block: Uint8Array) => Promise<MultihashDigest>
  /** Bytes of a file hashed on the builder's own thread before its leaves go out: small files never start a worker. */
  readonly after: number
}

/** Leaves of one file hashed elsewhere at once, at most (2 MiB of 256 KiB leaves, 8 MiB of 1 MiB ones). */
export const LEAVES_IN_FLIGHT = 8

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
  /** A folder whose size estimate passes this is sharded. */
  readonly shardThreshold: number
  /** How a folder's size is estimated. @default "links-bytes" */
  readonly shardStrategy?: ShardStrategy | undefined
  /** The entries are wrapped in one directory, reported with path `""`. */
  readonly wrapWithDirectory: boolean
  /**
   * Hears every block once named (a sync sends the blocks it builds). The bytes may be reused
   * after the call: a listener that keeps them copies them.
   */
  readonly onBlock?: ((cid: CID, block: Uint8Array) => void) | undefined
  /** Where leaves of large files are hashed off this thread; absent, every block is hashed here. */
  readonly leafHashing?: LeafHashing | undefined
}

/** The import settings a layout is made from (the `add` request's query). */
export interface LayoutSettings {
  readonly cidVersion: 0 | 1
  readonly rawLeaves?: boolean | undefined
  readonly wrapWithDirectory?: boolean | undefined
  /** @default "unixfs-v0-2015" */
  readonly profile?: Profile | undefined
}

/** The layout of `settings.profile` with the request's CID version, leaves and wrapping. */
export const profileLayout = (settings: LayoutSettings): Layout => {
  const shape = profileShape[settings.profile ?? "unixfs-v0-2015"]
  return {
    sha256: (block) => sha256.digest(block),
    cidVersion: settings.cidVersion,
    rawLeaves: settings.rawLeaves ?? shape.rawLeavesByDefault(settings.cidVersion),
    chunkSize: shape.chunkSize,
    maxChildren: shape.maxChildren,
    shardThreshold: SHARD_THRESHOLD,
    shardStrategy: shape.shardStrategy,
    wrapWithDirectory: settings.wrapWithDirectory ?? false
  }
}

/** Kubo's `ipfs add` layout (the `unixfs-v0-2015` profile) for `cidVersion`. */
export const kuboLayout = (settings: Omit<LayoutSettings, "profile">): Layout =>
  profileLayout({ ...settings, profile: "unixfs-v0-2015" })
