/**
 * A folder's entries as a HAMT, the way the importer shards a folder too large for one block:
 * each level takes the next byte of the name's hash (murmur3-x64-64, the first 8 bytes of
 * murmur3-x64-128, most significant first; past 8 levels, the hash of the name followed by the
 * depth byte); names that share a slot go one level down, together. Without removals the trie
 * depends only on the set of names, not on the order they came in.
 *
 * A node's UnixFS data is the bitmap of its used slots (little-endian bytes up to the highest
 * used one, then reversed, as go-ipfs writes it), fanout 256, hash type murmur3-x64-64; a link is
 * named by its slot in two upper-case hex digits, followed by the entry's name (an entry) or
 * nothing (a sub-shard).
 *
 * @internal
 */
import * as dagPb from "@ipld/dag-pb"
import { murmur364 } from "@multiformats/murmur3"
import { encodeData } from "./Data.ts"

/** log2 of the fan-out: a byte of the hash per level. */
const FANOUT_BITS = 8
const FANOUT = 1 << FANOUT_BITS
const MURMUR3_X64_64 = 0x22
const encoder = new TextEncoder()

/** An entry of the trie, with the hashes of its name computed so far. */
export interface ShardEntry<A> {
  readonly name: string
  readonly value: A
  readonly hashes: Array<Uint8Array>
}

/** One node of the trie: each used slot holds an entry or a sub-shard. */
export interface ShardNode<A> {
  readonly slots: Array<ShardEntry<A> | ShardNode<A> | undefined>
}

/** Whether `slot` holds a sub-shard (rather than an entry). */
export const isShardNode = <A>(slot: ShardEntry<A> | ShardNode<A>): slot is ShardNode<A> => "slots" in slot

/** The slot of `entry` at `depth`. */
const slotAt = <A>(entry: ShardEntry<A>, depth: number): number => {
  const round = Math.floor(depth / 8)
  while (entry.hashes.length <= round) {
    const name = encoder.encode(entry.name)
    const next = entry.hashes.length
    const input = next === 0 ? name : Uint8Array.of(...name, next)
    const hash = murmur364.encode(input)
    // @multiformats/murmur3 hashes in JavaScript, synchronously; its type allows a promise.
    if (!(hash instanceof Uint8Array)) throw new Error("murmur3 hashed asynchronously")
    entry.hashes.push(hash)
  }
  return entry.hashes[round]![depth % 8]!
}

const insert = <A>(node: ShardNode<A>, entry: ShardEntry<A>, depth: number): void => {
  const slot = slotAt(entry, depth)
  const taken = node.slots[slot]
  if (taken === undefined) node.slots[slot] = entry
  else if (isShardNode(taken)) insert(taken, entry, depth + 1)
  else {
    const below: ShardNode<A> = { slots: [] }
    insert(below, taken, depth + 1)
    insert(below, entry, depth + 1)
    node.slots[slot] = below
  }
}

/** The trie of `entries` (distinct names). */
export const shardOf = <A>(entries: Iterable<readonly [string, A]>): ShardNode<A> => {
  const root: ShardNode<A> = { slots: [] }
  for (const [name, value] of entries) insert(root, { name, value, hashes: [] }, 0)
  return root
}

/** The entries of `node` in slot order, sub-shards in place. */
export function* shardEntries<A>(node: ShardNode<A>): Generator<ShardEntry<A>> {
  for (const slot of node.slots) {
    if (slot === undefined) continue
    if (isShardNode(slot)) yield* shardEntries(slot)
    else yield slot
  }
}

/** The name of the link to `slot` at `index`. */
export const slotLabel = <A>(index: number, slot: ShardEntry<A> | ShardNode<A>): string => {
  const prefix = index
    .toString(16)
    .toUpperCase()
    .padStart((FANOUT - 1).toString(16).length, "0")
  return isShardNode(slot) ? prefix : prefix + slot.name
}

/** The dag-pb block of a shard node with `links` (one per used slot of `node`) and the folder's `mode`. */
export const shardBlock = <A>(node: ShardNode<A>, mode: number | undefined, links: Array<dagPb.PBLink>): Uint8Array => {
  const bitmap = new Uint8Array(FANOUT / 8)
  let highest = 0
  node.slots.forEach((slot, index) => {
    if (slot === undefined) return
    bitmap[index >> 3]! |= 1 << (index & 7)
    highest = index >> 3
  })
  const data = bitmap.subarray(0, highest + 1).reverse()
  const unixfs = encodeData({ type: "hamt-sharded-directory", data, fanout: FANOUT, hashType: MURMUR3_X64_64, mode })
  return dagPb.encode(dagPb.prepare({ Data: unixfs, Links: links }))
}
