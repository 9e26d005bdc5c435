/**
 * Where the local network keeps IPFS blocks: one `Blockstore` interface (the one Helia and the
 * UnixFS importer/exporter speak), in memory or on disk.
 *
 * On disk (`DiskBlocks.ts`, Node only) it is `blockstore-fs`, Helia's layout: one file per block named by the base32 multihash,
 * sharded into directories by the next-to-last two characters, each written to a temporary file
 * and renamed into place, so a block file is either whole or absent. Both stores key by multihash,
 * as kubo's does: a CIDv0 and the CIDv1 of the same dag-pb block name the same bytes. Identity CIDs
 * are answered from the CID itself and never stored.
 */

import { BaseBlockstore } from "blockstore-core/base"
import { IdentityBlockstore } from "blockstore-core/identity"
import type { Blockstore } from "interface-blockstore"
import { NotFoundError } from "interface-store"
import { base58btc } from "multiformats/bases/base58"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import * as Digest from "multiformats/hashes/digest"
import { identity } from "multiformats/hashes/identity"

export type { Blockstore } from "interface-blockstore"

export class ContentNotFound extends Error {
  readonly cid: string
  constructor(cid: string, what = "block") {
    super(`${what} not found: ${cid}`)
    this.name = "ContentNotFound"
    this.cid = cid
  }
}

/**
 * A blockstore that can tell a block's length without reading its bytes (both of the network's
 * stores can). A CAR answer states its length before its first byte, so it learns every block's
 * length first: by this, a leaf's bytes are read once, to be sent, not twice.
 */
export interface SizedBlockstore extends Blockstore {
  /** The length of the stored block; throws the store's `NotFoundError` when it is absent. */
  size(cid: CID): Promise<number> | number
}

const isSized = (store: Blockstore): store is SizedBlockstore =>
  typeof (store as Partial<SizedBlockstore>).size === "function"

/** Identity CIDs answered from the CID itself over a store that knows its blocks' lengths. */
export class SizedIdentityBlockstore extends IdentityBlockstore implements SizedBlockstore {
  readonly #child: SizedBlockstore

  constructor(child: SizedBlockstore) {
    super(child)
    this.#child = child
  }

  size(cid: CID): Promise<number> | number {
    return cid.multihash.code === identity.code ? cid.multihash.digest.byteLength : this.#child.size(cid)
  }
}

/** Blocks held in this process's memory; gone with it. */
export const memoryBlockstore = (): Blockstore => memoryBlocks().blocks

/** Where the network keeps its blocks, and how to empty it at once (`reset`). */
export interface BlockStorage {
  readonly blocks: Blockstore
  readonly clear: () => void
  /** `memory`, or the blocks' directory. */
  readonly location: string
}

function* once(bytes: Uint8Array): Generator<Uint8Array> {
  yield bytes
}

/** Blocks in a `Map` keyed by multihash (base58btc), each kept as one `Uint8Array`. */
class MapBlockstore extends BaseBlockstore implements SizedBlockstore {
  readonly blocks = new Map<string, { readonly cid: CID; readonly bytes: Uint8Array }>()

  override async put(cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CID> {
    let whole: Uint8Array
    // A copy of its own: the writer may free its bytes once written (the importer frees its leaves),
    // and a view of a larger buffer would keep all of it.
    if (bytes instanceof Uint8Array) whole = bytes.slice()
    else {
      const parts: Array<Uint8Array> = []
      for await (const part of bytes) parts.push(part)
      whole = parts.length === 1 ? parts[0]!.slice() : concatBytes(parts)
    }
    this.blocks.set(blockKey(cid), { cid, bytes: whole })
    return cid
  }

  override *get(cid: CID): Generator<Uint8Array> {
    const block = this.blocks.get(blockKey(cid))
    if (block === undefined) throw new NotFoundError(`block not found: ${cid}`)
    yield block.bytes
  }

  size(cid: CID): number {
    const block = this.blocks.get(blockKey(cid))
    if (block === undefined) throw new NotFoundError(`block not found: ${cid}`)
    return block.bytes.byteLength
  }

  override has(cid: CID): boolean {
    return this.blocks.has(blockKey(cid))
  }

  override delete(cid: CID): void {
    this.blocks.delete(blockKey(cid))
  }

  override *getAll(): Generator<{ cid: CID; bytes: Generator<Uint8Array> }> {
    for (const { cid, bytes } of [...this.blocks.values()]) yield { cid, bytes: once(bytes) }
  }
}

export const memoryBlocks = (): BlockStorage => {
  const memory = new MapBlockstore()
  return { blocks: new SizedIdentityBlockstore(memory), clear: () => memory.blocks.clear(), location: "memory" }
}

export const concatBytes = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

const isNotFound = (error: unknown) =>
  error instanceof NotFoundError || (error instanceof Error && error.name === "NotFoundError")

/** The whole block, or `ContentNotFound`. */
export const readBlock = async (store: Blockstore, cid: CID): Promise<Uint8Array> => {
  const parts: Array<Uint8Array> = []
  try {
    // A disk store hands out Node `Buffer`s; callers get plain `Uint8Array` views.
    for await (const part of store.get(cid)) parts.push(new Uint8Array(part.buffer, part.byteOffset, part.byteLength))
  } catch (error) {
    if (isNotFound(error)) throw new ContentNotFound(cid.toString())
    throw error
  }
  return concatBytes(parts)
}

/**
 * The block's length in bytes, or `ContentNotFound`: asked of a store that can tell without
 * reading the block, read (and dropped) from any other.
 */
export const blockSize = async (store: Blockstore, cid: CID): Promise<number> => {
  if (!isSized(store)) return (await readBlock(store, cid)).byteLength
  try {
    return await store.size(cid)
  } catch (error) {
    if (isNotFound(error)) throw new ContentNotFound(cid.toString())
    throw error
  }
}

/** How many blocks the store holds (walks it: for tests and reports, not hot paths). */
export const countBlocks = async (store: Blockstore): Promise<number> => {
  let count = 0
  for await (const _ of store.getAll()) count += 1
  return count
}

/** Removes every block. */
export const clearBlocks = async (store: Blockstore): Promise<void> => {
  const cids: Array<CID> = []
  for await (const { cid } of store.getAll()) cids.push(cid)
  for (const cid of cids) await store.delete(cid)
}

const blockKey = (cid: CID) => base58btc.encode(cid.multihash.bytes)

/**
 * Writes of one upload, straight into the store as they come (so an upload never sits in memory),
 * that can still be taken back: `discard` deletes the blocks this upload brought in, unless another
 * upload still in flight wrote them too or one that committed since relies on them. `commit` makes
 * them permanent. Blocks that were already stored before are never deleted.
 */
export interface StagedWrites {
  readonly put: (cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>) => Promise<CID>
  readonly has: (cid: CID) => Promise<boolean>
  /** Blocks written through this staging (each once). */
  readonly size: number
  readonly commit: () => void
  readonly discard: () => Promise<void>
}

export interface Stager {
  readonly stage: () => StagedWrites
}

/**
 * A block that open stagings wrote. An upload keeps one per block until it ends (40,960 for
 * 10 GiB), so a claim at rest holds plain values: no CID, no settled promises.
 */
interface Claim {
  /** Stagings still open that wrote the block. */
  writers: number
  /** Whether the store held the block before the claim was made (then it is never deleted); a promise until known. */
  heldBefore: boolean | Promise<boolean>
  /**
   * Writes and the deletion of the block run one after another, so a deletion cannot overtake a
   * write: the last one's end while one runs.
   */
  queue: Promise<void> | undefined
}

/** A claim no staging joined yet, on whether the store `held` the block before. */
const claimOf = (held: boolean | Promise<boolean>): Claim => {
  const claim: Claim = { writers: 0, heldBefore: held, queue: undefined }
  if (typeof held !== "boolean") claim.heldBefore = held.then((known) => (claim.heldBefore = known))
  return claim
}

const settled = () => undefined

const inTurn = <A>(claim: Claim, work: () => Promise<A>): Promise<A> => {
  const next = (claim.queue ?? Promise.resolve()).then(work, work)
  const end = next.then(settled, settled)
  claim.queue = end
  void end.then(() => {
    if (claim.queue === end) claim.queue = undefined
  })
  return next
}

/**
 * A staged block's key: its multihash's bytes, one character each. An upload of 10 GiB stages
 * 40,960 blocks, each kept until the upload ends: a flat 34-character string is a few dozen bytes,
 * where a base58 key built character by character is a rope of some 1 KiB.
 */
const stagedKey = (cid: CID): string => String.fromCharCode(...cid.multihash.bytes)

/**
 * The CID a staged block is deleted by: the stores key blocks by multihash alone, so the raw codec
 * names the block whatever codec it was written under. Rebuilt on discard, so claims hold no CID.
 */
const stagedCid = (key: string): CID =>
  CID.createV1(raw.code, Digest.decode(Uint8Array.from(key, (character) => character.charCodeAt(0))))

/** Stagings over one store; they share the bookkeeping of blocks that no commit has claimed yet. */
export const makeStager = (store: Blockstore): Stager => {
  const pending = new Map<string, Claim>()
  return {
    stage: () => {
      // Per block this upload wrote, the claim it joined: a claim another upload's commit took out
      // of `pending` is no longer this one's to delete.
      const touched = new Map<string, Claim>()
      let open = true
      const put = async (cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>) => {
        if (!open) throw new Error("this staging is already committed or discarded")
        const key = stagedKey(cid)
        let claim = pending.get(key)
        if (claim === undefined) {
          claim = claimOf(store.has(cid))
          pending.set(key, claim)
        }
        if (touched.get(key) !== claim) {
          touched.set(key, claim)
          claim.writers += 1
        }
        await inTurn(claim, async () => store.put(cid, bytes))
        return cid
      }
      return {
        put,
        has: async (cid) => store.has(cid),
        get size() {
          return touched.size
        },
        commit: () => {
          open = false
          for (const key of touched.keys()) pending.delete(key)
        },
        discard: async () => {
          if (!open) return
          open = false
          for (const [key, claim] of touched) {
            if (pending.get(key) !== claim) continue
            claim.writers -= 1
            if (claim.writers > 0) continue
            await inTurn(claim, async () => {
              if (claim.writers === 0 && !(await claim.heldBefore)) await store.delete(stagedCid(key))
            })
            if (claim.writers === 0 && pending.get(key) === claim) pending.delete(key)
          }
        }
      }
    }
  }
}
