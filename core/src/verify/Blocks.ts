/**
 * One block checked against its CID: its bytes must hash (sha2-256, or the identity "hash" that
 * inlines them) to the CID's multihash. A CIDv0 and the CIDv1 of a block share the multihash, so
 * blocks are matched by multihash, as IPFS blockstores key them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { base58btc } from "multiformats/bases/base58"
import { equals } from "multiformats/bytes"
import type { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"
import { ContentVerificationFailed, type VerificationProblem } from "../errors/Verification.ts"

/** The key blocks are matched by: the multihash, base58. */
export const blockKey = (cid: CID): string => base58btc.encode(cid.multihash.bytes)

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

/** Succeeds when `bytes` hash to `cid`'s multihash. */
export const checkBlock = (root: CID, cid: CID, bytes: Uint8Array): Effect.Effect<void, ContentVerificationFailed> => {
  const code = cid.multihash.code
  if (code === identity.code) {
    return equals(cid.multihash.digest, bytes)
      ? Effect.void
      : Effect.fail(failure(root, "block-hash-mismatch", `block ${cid} is not the bytes its CID inlines`, cid))
  }
  if (code !== sha256.code) {
    return Effect.fail(
      failure(root, "unsupported-hash", `block ${cid} uses multihash 0x${code.toString(16)}, not sha2-256`, cid)
    )
  }
  return Effect.flatMap(
    Effect.promise(async () => (await sha256.digest(bytes)).digest),
    (digest) =>
      equals(digest, cid.multihash.digest)
        ? Effect.void
        : Effect.fail(failure(root, "block-hash-mismatch", `the bytes answered for block ${cid} hash otherwise`, cid))
  )
}
