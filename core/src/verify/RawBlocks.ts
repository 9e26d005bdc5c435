/**
 * Verified reading block by block: each block the walk needs is asked for on its own (a trustless
 * gateway's `?format=raw`, `Accept: application/vnd.ipld.raw`) and checked against its CID before
 * the next is asked. Slower than one CAR (a round trip per block) but works with gateways that
 * answer raw blocks only, and never holds more than one block.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import type { ContentVerificationFailed } from "../errors/Verification.ts"
import { isInline } from "./Blocks.ts"
import { type BlockSource, type Target, walk } from "./Walk.ts"

/** Blocks fetched one by one with `fetchBlock`; inline (identity) blocks are not fetched. */
export const rawBlockSource = <E>(fetchBlock: (cid: CID) => Effect.Effect<Uint8Array, E>): BlockSource<E> => ({
  block: (cid) => (isInline(cid) ? Effect.succeed(cid.multihash.digest) : fetchBlock(cid)),
  end: Effect.void
})

/** The verified bytes of `target`, its blocks fetched one by one with `fetchBlock`. */
export const verifyBlocks = <E>(
  fetchBlock: (cid: CID) => Effect.Effect<Uint8Array, E>,
  target: Target
): Stream.Stream<Uint8Array, ContentVerificationFailed | E> => walk(rawBlockSource(fetchBlock), target)
