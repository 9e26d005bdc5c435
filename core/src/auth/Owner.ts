/**
 * An owner as the key nodes take it. `{ address, token }` is sent as given; `{ signer }` signs in
 * through `Auth.token`, whose JWT carries the signer's session, so a node that refuses it has it
 * renewed and the call repeated once (`KeyNodes.sessions`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { Signer } from "../Signer.ts"
import type { AddressOwner, Owner } from "../schema/Owner.ts"
import type { SignInFailure } from "./Models.ts"

/** What resolving needs of `Auth`: a signer's cached JWT. */
export interface SignerTokens {
  readonly token: (signer: Signer["Service"]) => Effect.Effect<Redacted.Redacted<string>, SignInFailure>
}

/** `owner`'s address and key-node token: given, or the signer's address and its JWT. */
export const resolveOwner = (auth: SignerTokens, owner: Owner): Effect.Effect<AddressOwner, SignInFailure> => {
  if (owner.signer === undefined) return Effect.succeed({ address: owner.address, token: owner.token })
  const { signer } = owner
  return Effect.map(auth.token(signer), (token) => ({ address: signer.address, token }))
}

/** The address that owns: the one given, or the signer's (checked before anything signs in). */
export const addressOf = (owner: Owner): string => (owner.signer === undefined ? owner.address : owner.signer.address)
