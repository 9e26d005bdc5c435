/**
 * Sessions behind tokens. A token that `Auth.token` hands out carries its session: how to get the
 * signer's current token and how to renew it. A key-node call made with such a token sends the
 * session's current token and, when the node refuses it (401: `jwt expired`, or `Invalid
 * Signature` after the network forgot its JWTs), renews the session once and repeats the call.
 * Tokens given as strings, or made anywhere else, have no session and are sent as they are.
 *
 * The registry is keyed by the token object (a `WeakMap`), so a session lives as long as someone
 * holds its token, and callers keep passing plain `Credential`s.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { Credential } from "../schema/Credential.ts"

/** How a session's token is read and renewed; failures are the renewal's own (sign-in, refresh). */
export interface Session {
  /** The session's token now (the cache's, refreshed when its `exp` is near). */
  readonly current: Effect.Effect<Credential, unknown>
  /**
   * A token to use instead of `refused`, which a node refused: renewed through the refresh token,
   * else by signing in again; the newer one when another call already renewed it.
   */
  readonly renew: (refused: Credential) => Effect.Effect<Credential, unknown>
}

/** Which session a token belongs to. */
export interface Sessions {
  /** Ties `token` to `session`, for as long as the token object lives. */
  readonly attach: (token: Redacted.Redacted<string>, session: Session) => void
  /** The session of `token`; `undefined` for strings, no token, and tokens nobody attached. */
  readonly of: (token: Credential | undefined) => Session | undefined
}

export const makeSessions = (): Sessions => {
  const byToken = new WeakMap<object, Session>()
  return {
    attach: (token, session) => {
      byToken.set(token, session)
    },
    of: (token) => (token === undefined || typeof token === "string" ? undefined : byToken.get(token))
  }
}
