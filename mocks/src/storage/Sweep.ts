/**
 * Removes the blocks that nothing kept reaches: what an upload killed half-way (`kill -9`) left
 * in the store, and the blocks of deleted files. The caller gives the roots (every uploaded file,
 * every IPNS value); from each, dag-pb links are followed, and raw leaves are kept without being
 * read. A reachable block of another codec (a CAR import of dag-cbor, say) stops the sweep before
 * anything is removed: this cannot tell which blocks it keeps alive.
 *
 * Run it while nothing is uploading (the local network does it at start, before serving): a block
 * written by an upload in flight has no record yet and would be taken.
 */
import * as dagPb from "@ipld/dag-pb"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { identity } from "multiformats/hashes/identity"
import { type Blockstore, ContentNotFound, readBlock } from "./Blocks.ts"

/** What a sweep did: blocks kept and removed, or why it removed nothing. */
export type SweepResult = { readonly kept: number; readonly removed: number } | { readonly refused: string }

const keyOf = (cid: CID) => base58btc.encode(cid.multihash.bytes)

/** The multihashes reachable from `roots`, or why they cannot be known. */
const reachableFrom = async (blocks: Blockstore, roots: Iterable<CID>): Promise<Set<string> | string> => {
  const reached = new Set<string>()
  const pending = [...roots]
  for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
    if (cid.multihash.code === identity.code || reached.has(keyOf(cid))) continue
    reached.add(keyOf(cid))
    if (cid.code === raw.code) continue
    if (cid.code !== dagPb.code) return `block ${cid} is codec 0x${cid.code.toString(16)}, whose links this cannot read`
    try {
      for (const link of dagPb.decode(await readBlock(blocks, cid)).Links) pending.push(link.Hash)
    } catch (error) {
      // A root whose blocks are gone keeps nothing below it.
      if (!(error instanceof ContentNotFound)) throw error
    }
  }
  return reached
}

/** Deletes every block of `blocks` that `roots` do not reach. */
export const sweepUnreferenced = async (blocks: Blockstore, roots: Iterable<CID>): Promise<SweepResult> => {
  const reached = await reachableFrom(blocks, roots)
  if (typeof reached === "string") return { refused: reached }
  const unreached: Array<CID> = []
  let kept = 0
  for await (const { cid } of blocks.getAll()) {
    if (reached.has(keyOf(cid))) kept += 1
    else unreached.push(cid)
  }
  for (const cid of unreached) await blocks.delete(cid)
  return { kept, removed: unreached.length }
}
