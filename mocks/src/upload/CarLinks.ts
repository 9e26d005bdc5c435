/**
 * Whether a CAR given to `dag/import` closes its DAG: every block its dag-pb blocks link to is in
 * the CAR or already on the node, and, for one already on the node, everything under it too (what
 * kubo checks when it pins the roots). A client that keeps a folder stored (`Upload.sync`) sends
 * only the blocks the node lacks; this is the rule it relies on.
 *
 * Only dag-pb links are followed (UnixFS is dag-pb); other codecs are taken as leaves.
 */
import * as dagPb from "@ipld/dag-pb"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"

/** How the node takes a CAR whose links reach blocks that are not in it. */
export type PartialCars =
  /** Taken when every linked block is in the CAR or already stored (the default). */
  | "accept"
  /** Refused whatever the node holds: every linked block must be in the CAR. */
  | "refuse"

/** A linked block that is not where it should be, and the block that links to it. */
export interface MissingLink {
  readonly cid: CID
  readonly parent: CID
}

const keyOf = (cid: CID) => base58btc.encode(cid.multihash.bytes)

/** The links of a CAR's blocks, collected as they stream past. */
export interface CarLinks {
  /** Notes `cid`'s block as in the CAR, and what it links to. */
  readonly add: (cid: CID, bytes: Uint8Array) => void
  /** The linked blocks the CAR does not hold, each once. */
  readonly outside: () => ReadonlyArray<MissingLink>
}

export const carLinks = (): CarLinks => {
  const inCar = new Set<string>()
  const linked = new Map<string, MissingLink>()
  return {
    add: (cid, bytes) => {
      inCar.add(keyOf(cid))
      if (cid.code !== dagPb.code) return
      for (const link of dagPb.decode(bytes).Links) {
        if (link.Hash.multihash.code === identity.code) continue
        const key = keyOf(link.Hash)
        if (!linked.has(key)) linked.set(key, { cid: link.Hash, parent: cid })
      }
    },
    outside: () => [...linked].filter(([key]) => !inCar.has(key)).map(([, missing]) => missing)
  }
}

/** What the completeness walk needs of the node's store. */
export interface StoredBlocks {
  readonly has: (cid: CID) => Promise<boolean>
  readonly get: (cid: CID) => Promise<Uint8Array>
}

/**
 * The first block under `starts` (blocks the CAR links to but does not hold) that the node does
 * not hold, walking each stored one down; `undefined` when the DAG is whole.
 */
export const firstMissing = async (
  stored: StoredBlocks,
  starts: ReadonlyArray<MissingLink>
): Promise<MissingLink | undefined> => {
  const seen = new Set<string>()
  const stack = [...starts]
  while (stack.length > 0) {
    const next = stack.pop()!
    const key = keyOf(next.cid)
    if (seen.has(key)) continue
    seen.add(key)
    if (!(await stored.has(next.cid))) return next
    if (next.cid.code !== dagPb.code) continue
    for (const link of dagPb.decode(await stored.get(next.cid)).Links) {
      if (link.Hash.multihash.code !== identity.code) stack.push({ cid: link.Hash, parent: next.cid })
    }
  }
  return undefined
}
