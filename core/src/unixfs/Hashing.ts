/**
 * Naming blocks with the layout's SHA-256: synchronous where the platform hashes synchronously
 * (Node's `node:crypto` behind multiformats) and a promise where it does not (Web Crypto), so the
 * builder only pays for promises on platforms that need them.
 *
 * @internal
 */
import * as dagPb from "@ipld/dag-pb"
import { CID } from "multiformats/cid"
import type { Layout } from "./Layout.ts"

/** A value now, or later where the platform hashes asynchronously. */
export type Pending<A> = A | Promise<A>

/** `f` of `value`, at once when it is there. */
export const andThen = <A, B>(value: Pending<A>, f: (a: A) => Pending<B>): Pending<B> =>
  value instanceof Promise ? value.then(f) : f(value)

/** The CID of `block` with `codec` and `version`. */
export const cidOf = (layout: Layout, block: Uint8Array, codec: number, version: 0 | 1): Pending<CID> =>
  andThen(layout.sha256(block), (digest) => {
    const cid = CID.create(version, codec, digest)
    layout.onBlock?.(cid, block)
    return cid
  })

/** The CID of a dag-pb `block`, in the layout's CID version. */
export const dagPbCidOf = (layout: Layout, block: Uint8Array): Pending<CID> =>
  cidOf(layout, block, dagPb.code, layout.cidVersion)
