/**
 * The JWT cache behind `Auth.token`: a JWT per signer with its expiry (read from the JWT's `exp`
 * claim, not verified), refreshed shortly before it runs out, and obtained again by signing in
 * when the refresh fails. Time comes from `Clock`, so tests drive it with `TestClock`.
 *
 * Each token handed out carries the signer's session (`KeyNodes.sessions`): a key node that
 * refuses it (its clock says expired, or it no longer knows the JWT) has it `renew`ed the same
 * way, refresh first, and the call repeated once.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Base64Url } from "effect/encoding"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type * as Semaphore from "effect/Semaphore"
import { reveal } from "../internal/http.ts"
import type { KeyNodes } from "../KeyNodes.ts"
import type { Signer } from "../Signer.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { Credential } from "../schema/Credential.ts"
import type { JwtPair } from "./Models.ts"
import { refresh, signIn } from "./NodeSignIn.ts"

/**
 * The claims of a `jwt:<JWS>` token (or a bare JWS), read without verifying the signature: only
 * the node can verify it. `undefined` when the token is not three segments with a JSON object in
 * the middle one.
 */
export const jwtClaims = (token: string): Readonly<Record<string, unknown>> | undefined => {
  const segments = token.replace(/^jwt:/, "").split(".")
  if (segments.length !== 3 || segments.some((segment) => !/^[\w-]*$/.test(segment))) return undefined
  const text = Base64Url.decodeString(segments[1]!)
  if (Result.isFailure(text)) return undefined
  try {
    const claims: unknown = JSON.parse(text.success)
    return typeof claims === "object" && claims !== null && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The `exp` claim (seconds) of a `jwt:<JWS>` token, read without verifying the signature: only
 * the node can verify it, and the client needs it only to know when to get a new one.
 */
export const jwtExpiry = (token: string): number | undefined => {
  const exp = jwtClaims(token)?.exp
  return typeof exp === "number" && Number.isFinite(exp) ? exp : undefined
}

export interface CachedToken {
  readonly pair: JwtPair
  /** Milliseconds; `undefined` when the JWT carries no `exp`. */
  readonly expiresAt: number | undefined
}

/** The cache and what it needs: the key nodes, the refresh margin, and one sign-in at a time. */
export interface TokenCache {
  readonly nodes: KeyNodes["Service"]
  readonly cache: Map<string, CachedToken>
  /** A cached JWT is refreshed when less than this many milliseconds are left of it. */
  readonly margin: number
  readonly lock: Semaphore.Semaphore
}

/** Caches `pair` for `address`, its token tied to the signer's session. */
const remember = (deps: TokenCache, signer: Signer["Service"], address: string, pair: JwtPair): CachedToken => {
  const exp = jwtExpiry(Redacted.value(pair.token))
  const entry = { pair, expiresAt: exp === undefined ? undefined : exp * 1000 }
  deps.cache.set(address, entry)
  deps.nodes.sessions.attach(pair.token, {
    current: token(deps, signer),
    renew: (refused) => renew(deps, signer, refused)
  })
  return entry
}

/** A new JWT for `address`: through the refresh token of `cached` when there is one, else by signing in. */
const replace = Effect.fnUntraced(function* (
  deps: TokenCache,
  signer: Signer["Service"],
  address: string,
  cached: CachedToken | undefined
) {
  if (cached !== undefined) {
    const refreshed = yield* refresh(deps.nodes, { address, refreshToken: cached.pair.refreshToken }).pipe(
      Effect.result
    )
    if (Result.isSuccess(refreshed)) return remember(deps, signer, address, refreshed.success).pair.token
    yield* Effect.logDebug("Auth.token: refresh failed, signing in again")
    deps.cache.delete(address)
  }
  return remember(deps, signer, address, yield* signIn(deps.nodes, signer)).pair.token
})

export const token = Effect.fn("Auth.token")(function* (deps: TokenCache, signer: Signer["Service"]) {
  const address = yield* parsePublicKey(signer.address)
  const { cache, margin } = deps
  return yield* deps.lock.withPermit(
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const cached = cache.get(address)
      if (cached !== undefined && (cached.expiresAt === undefined || cached.expiresAt - margin > now)) {
        return cached.pair.token
      }
      return yield* replace(deps, signer, address, cached)
    })
  )
})

/**
 * After a key node refused `refused` (expired by its clock, or unknown to it): the cached JWT
 * renewed once, through the refresh token, else by signing in again. When the cache already holds
 * another token (a concurrent call renewed it), that one.
 */
export const renew = Effect.fn("Auth.renew")(function* (
  deps: TokenCache,
  signer: Signer["Service"],
  refused: Credential
) {
  const address = yield* parsePublicKey(signer.address)
  return yield* deps.lock.withPermit(
    Effect.gen(function* () {
      const cached = deps.cache.get(address)
      if (cached !== undefined && Redacted.value(cached.pair.token) !== reveal(refused)) return cached.pair.token
      return yield* replace(deps, signer, address, cached)
    })
  )
})

export const forget = Effect.fn("Auth.forget")(function* (cache: Map<string, CachedToken>, address: string) {
  // Keys are the normalized form: EVM addresses lower-cased, base58 keys as given.
  yield* Effect.sync(() => cache.delete(/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address))
})
