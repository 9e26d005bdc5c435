/**
 * The JWT cache behind `Auth.token`: a JWT per signer with its expiry (read from the JWT's `exp`
 * claim, not verified), refreshed shortly before it runs out, and obtained again by signing in
 * when the refresh fails. Time comes from `Clock`, so tests drive it with `TestClock`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type * as Semaphore from "effect/Semaphore"
import { Base64Url } from "effect/encoding"
import type { KeyNodes } from "../KeyNodes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { Signer } from "../Signer.ts"
import type { JwtPair } from "./Models.ts"
import { refresh, signIn } from "./NodeSignIn.ts"

/**
 * The `exp` claim (seconds) of a `jwt:<JWS>` token, read without verifying the signature: only
 * the node can verify it, and the client needs it only to know when to get a new one.
 */
export const jwtExpiry = (token: string): number | undefined => {
  const payload = token.replace(/^jwt:/, "").split(".")[1]
  if (payload === undefined) return undefined
  const text = Base64Url.decodeString(payload)
  if (Result.isFailure(text)) return undefined
  try {
    const claims: unknown = JSON.parse(text.success)
    if (typeof claims !== "object" || claims === null || !("exp" in claims)) return undefined
    return typeof claims.exp === "number" && Number.isFinite(claims.exp) ? claims.exp : undefined
  } catch {
    return undefined
  }
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

const remember = (cache: Map<string, CachedToken>, address: string, pair: JwtPair): CachedToken => {
  const exp = jwtExpiry(Redacted.value(pair.token))
  const entry = { pair, expiresAt: exp === undefined ? undefined : exp * 1000 }
  cache.set(address, entry)
  return entry
}

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
      if (cached !== undefined) {
        const refreshed = yield* refresh(deps.nodes, { address, refreshToken: cached.pair.refreshToken }).pipe(
          Effect.result
        )
        if (Result.isSuccess(refreshed)) return remember(cache, address, refreshed.success).pair.token
        yield* Effect.logDebug("Auth.token: refresh failed, signing in again")
        cache.delete(address)
      }
      return remember(cache, address, yield* signIn(deps.nodes, signer)).pair.token
    })
  )
})

export const forget = Effect.fn("Auth.forget")(function* (cache: Map<string, CachedToken>, address: string) {
  // Keys are the normalized form: EVM addresses lower-cased, base58 keys as given.
  yield* Effect.sync(() => cache.delete(/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address))
})
