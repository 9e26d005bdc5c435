/**
 * SHA-256 of a block in pieces where `node:crypto` is not (browsers, workers): WebCrypto hashes
 * one buffer in one call, so the pieces are joined first (a copy only when there are several).
 * The package's `#sha256-pieces` import resolves here except under the `node` condition
 * (`Sha256Node.ts`).
 *
 * @internal
 */
import { sha256 } from "multiformats/hashes/sha2"
import { joinPieces, type Pieces } from "./Pieces.ts"

/** The SHA-256 digest of the bytes of `pieces` together; a promise where the platform hashes asynchronously. */
export const sha256OfPieces = (pieces: Pieces): Uint8Array | Promise<Uint8Array> => {
  const digest = sha256.digest(joinPieces(pieces))
  return digest instanceof Promise ? digest.then((multihash) => multihash.digest) : digest.digest
}
