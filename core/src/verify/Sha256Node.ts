/**
 * SHA-256 of a block in pieces on Node (`node:crypto`): each piece is fed to one hash as it lies,
 * synchronously, without joining them. The package's `#sha256-pieces` import resolves here under
 * the `node` condition only, so browser and worker bundles never hold `node:crypto`
 * (`Sha256Web.ts` is theirs).
 *
 * @internal
 */
import { createHash } from "node:crypto"
import type { Pieces } from "./Pieces.ts"

/** The SHA-256 digest of the bytes of `pieces` together; at once on Node. */
export const sha256OfPieces = (pieces: Pieces): Uint8Array | Promise<Uint8Array> => {
  const hash = createHash("sha256")
  for (const piece of pieces) hash.update(piece)
  return hash.digest()
}
