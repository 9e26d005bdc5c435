/**
 * Finding a name in a HAMT-sharded UnixFS directory (how IPFS stores folders too large for one
 * block). The name's hash is murmur3-x64-64 (the first 8 bytes of murmur3-x64-128, as go-ipfs
 * computes it); each level of the trie takes the next log2(fanout) bits of it, most significant
 * first, and a link is named by that index in upper-case hex, padded to the width of
 * `fanout - 1`, followed by the entry's name (an entry) or by nothing (a sub-shard).
 *
 * @internal
 */
import { murmur3128 } from "@multiformats/murmur3"
import * as Effect from "effect/Effect"
import type { CID } from "multiformats/cid"
import type { ContentVerificationFailed } from "../errors/Verification.ts"
import type { Data } from "../unixfs/Data.ts"
import { failure } from "./Blocks.ts"

/** murmur3-x64-64, the only hash UnixFS HAMTs use. */
const MURMUR3_X64_64 = 0x22

/** One level of a HAMT lookup: the link prefix at this level, and the next level's step. */
export interface HamtStep {
  readonly prefix: string
  readonly next: Effect.Effect<HamtStep, ContentVerificationFailed>
}

const encoder = new TextEncoder()

/** Takes `bits` bits of `hash` from bit `position`, most significant first. */
const takeBits = (hash: Uint8Array, position: number, bits: number): number => {
  let value = 0
  for (let i = position; i < position + bits; i++) {
    value = (value << 1) | ((hash[i >> 3]! >> (7 - (i & 7))) & 1)
  }
  return value
}

/** One name looked up in the HAMT `shard` (read for `root`): its hash, taken `bits` at a time, as prefixes `width` digits wide. */
interface Lookup {
  readonly root: CID
  readonly shard: CID
  readonly hash: Uint8Array
  readonly bits: number
  readonly width: number
}

const stepAt = (lookup: Lookup, level: number): HamtStep => {
  const { root, shard, hash, bits } = lookup
  return {
    prefix: takeBits(hash, level * bits, bits)
      .toString(16)
      .toUpperCase()
      .padStart(lookup.width, "0"),
    next: Effect.suspend(() =>
      (level + 2) * bits > hash.length * 8
        ? Effect.fail(failure(root, "malformed-block", `the HAMT under ${shard} is deeper than its hash`, shard))
        : Effect.succeed(stepAt(lookup, level + 1))
    )
  }
}

/** The first step of looking up `name` in the HAMT whose root node is `unixfs`. */
export const hamtStep = (
  root: CID,
  shard: CID,
  unixfs: Data,
  name: string
): Effect.Effect<HamtStep, ContentVerificationFailed> => {
  const fanout = unixfs.fanout ?? 0
  const bits = Math.log2(fanout)
  // A shard without `hashType` is read as murmur3 (as it was when ipfs-unixfs dropped the field); any other value is refused.
  const hashType = unixfs.hashType ?? MURMUR3_X64_64
  if (hashType !== MURMUR3_X64_64 || !Number.isInteger(bits) || bits < 1 || bits > 16) {
    return Effect.fail(
      failure(root, "malformed-block", `HAMT ${shard} has hash 0x${hashType.toString(16)} and fanout ${fanout}`)
    )
  }
  const width = (fanout - 1).toString(16).length
  return Effect.map(
    Effect.promise(async () => (await murmur3128.encode(encoder.encode(name))).subarray(0, 8)),
    (hash) => stepAt({ root, shard, hash, bits, width }, 0)
  )
}
