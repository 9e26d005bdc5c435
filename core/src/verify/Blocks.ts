/**
 * One block checked against its CID: its bytes must hash (sha2-256, or the identity "hash" that
 * inlines them) to the CID's multihash. A CIDv0 and the CIDv1 of a block share the multihash, so
 * blocks are matched by multihash, as IPFS blockstores key them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { equals } from "multiformats/bytes"
import type { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"
import { sha256OfPieces } from "#sha256-pieces"
import { ContentVerificationFailed, type VerificationProblem } from "../errors/Verification.ts"
import { joinPieces, type Pieces } from "./Pieces.ts"

/**
 * The key blocks are matched by: the multihash's bytes, one character each (a key never shown,
 * so not base58, which costs a few times more per block).
 */
export const blockKey = (cid: CID): string =>
  // `apply` takes the bytes as they are; a spread would walk an iterator, once per block.
  String.fromCharCode.apply(null, cid.multihash.bytes as unknown as Array<number>)

export const sameBlock = (a: CID, b: CID): boolean => equals(a.multihash.bytes, b.multihash.bytes)

/** Whether the CID carries its block inline (identity multihash). */
export const isInline = (cid: CID): boolean => cid.multihash.code === identity.code

/** A failure about `block` while verifying `root`. */
export const failure = (root: CID, problem: VerificationProblem, detail: string, block?: CID) =>
  new ContentVerificationFailed({
    cid: root.toString(),
    problem,
    detail,
    ...(block === undefined ? {} : { block: block.toString() })
  })

const mismatch = (root: CID, cid: CID) =>
  failure(root, "block-hash-mismatch", `the bytes answered for block ${cid} hash otherwise`, cid)

/** Succeeds when the bytes of `pieces` (a block as it arrived) hash to `cid`'s multihash. */
export const checkBlock = (root: CID, cid: CID, pieces: Pieces): Effect.Effect<void, ContentVerificationFailed> => {
  const code = cid.multihash.code
  if (code === identity.code) {
    return equals(cid.multihash.digest, joinPieces(pieces))
      ? Effect.void
      : Effect.fail(failure(root, "block-hash-mismatch", `block ${cid} is not the bytes its CID inlines`, cid))
  }
  if (code !== sha256.code) {
    return Effect.fail(
      failure(root, "unsupported-hash", `block ${cid} uses multihash 0x${code.toString(16)}, not sha2-256`, cid)
    )
  }
  const compare = (digest: Uint8Array) =>
    equals(digest, cid.multihash.digest) ? Effect.void : Effect.fail(mismatch(root, cid))
  return Effect.suspend(() => {
    const digest = sha256OfPieces(pieces)
    // Node hashes at once: no promise, no fiber suspension per block.
    return digest instanceof Promise
      ? Effect.flatMap(
          Effect.promise(() => digest),
          compare
        )
      : compare(digest)
  })
}
