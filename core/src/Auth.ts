/**
 * `Auth`: proving who you are to the key nodes and to the API.
 *
 * Key nodes (encryption host): an auth message per address (`GET /api/message/{address}`),
 * a JWT for a signature of it (`POST /api/message/get-jwt`), a refresh (`PUT` on the same path).
 * API host: the auth message (`get_auth_message`, or the older `get_message`), an API key for a
 * signed message (`create_api_key`), and the one-time token `address$signature`.
 *
 * `token(signer)` is what the other services use: a JWT for the signer, cached with its expiry
 * (read from the JWT's `exp` claim, not verified), refreshed shortly before it runs out, and
 * obtained again by signing in when the refresh fails. A key node that refuses it later (its
 * clock says it expired) has it renewed the same way, refresh first, and the call is repeated
 * once (`KeyNodes.sessions`). Time comes from `Clock`, so tests drive it with `TestClock`.
 * Every token is `Redacted`. `checkToken` checks a token before anything is staked on it.
 *
 * `Owner` is how every key-node input says who owns a file: `{ signer }`, which the service signs
 * in through `token(signer)`, or `{ address, token }`.
 *
 * The work lives in `auth/`: `NodeSignIn.ts`, `TokenCache.ts`, `TokenCheck.ts`, `ApiKey.ts`,
 * `Models.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Semaphore from "effect/Semaphore"
import * as ApiKey from "./auth/ApiKey.ts"
import type {
  ApiFailure,
  ApiKeyInput,
  JwtInput,
  JwtPair,
  Options,
  RefreshInput,
  SignInFailure,
  SignInOptions,
  TokenCheckFailure,
  TokenCheckInput
} from "./auth/Models.ts"
import * as NodeSignIn from "./auth/NodeSignIn.ts"
import * as TokenCache from "./auth/TokenCache.ts"
import * as TokenCheck from "./auth/TokenCheck.ts"
import type { InvalidPublicKey, InvalidResponse, InvalidSignature, NodeError, SignerError } from "./Errors.ts"
import * as Hosts from "./internal/Hosts.ts"
import { KeyNodes } from "./KeyNodes.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import type { Signer } from "./Signer.ts"

export * from "./auth/Models.ts"
export { jwtExpiry } from "./auth/TokenCache.ts"
export { Credential } from "./schema/Credential.ts"
export { AddressOwner, Owner, SignerOwner } from "./schema/Owner.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `Auth` service offers.
 *
 * @category models
 */
export interface Service {
  /** The key nodes' message to sign for `address` (`GET /api/message/{address}`, first item's `message`). */
  readonly nodeMessage: (address: string) => Effect.Effect<string, InvalidPublicKey | NodeError | InvalidResponse>
  /** A JWT for a signature of the node message; any failure is `Invalid Signature` with the cause. */
  readonly jwt: (input: JwtInput) => Effect.Effect<JwtPair, InvalidPublicKey | InvalidSignature>
  /** A new JWT pair for a refresh token (which is spent); any failure is `Invalid Signature`. */
  readonly refresh: (input: RefreshInput) => Effect.Effect<JwtPair, InvalidPublicKey | InvalidSignature>
  /** Node message, signature, JWT: the whole sign-in of `signer`, uncached. */
  readonly signIn: (signer: Signer["Service"], options?: SignInOptions) => Effect.Effect<JwtPair, SignInFailure>
  /**
   * A valid JWT for `signer`: cached, refreshed before it expires, signed in again when the refresh
   * fails. It carries the signer's session: a key node that refuses it later (`jwt expired` by the
   * node's clock) has it renewed the same way, and the call is repeated once.
   */
  readonly token: (signer: Signer["Service"]) => Effect.Effect<Redacted.Redacted<string>, SignInFailure>
  /**
   * Checks that the key nodes take `token` for `address`, without writing anything: locally (a
   * JWT's shape and `sub`, a signature's shape), then, for a JWT, one authenticated read on node
   * 1. A token from `token(signer)` is renewed there if the node refuses it. A raw signature is
   * only checked locally (the nodes accept one once). `Invalid Signature`; or the node's
   * `NodeError`: its `jwt expired`, or the failure of a node that could not be asked.
   */
  readonly checkToken: (input: TokenCheckInput) => Effect.Effect<void, TokenCheckFailure>
  /** Drops the cached tokens of `address` (e.g. after the node refused them). */
  readonly forget: (address: string) => Effect.Effect<void>
  /** The API's message to sign (`GET /api/auth/get_auth_message?publicKey=`). */
  readonly apiAuthMessage: (publicKey: string) => Effect.Effect<string, ApiFailure>
  /** The API's older message form (`GET /api/auth/get_message?publicKey=`), used by one-time tokens. */
  readonly apiMessage: (publicKey: string) => Effect.Effect<string, ApiFailure>
  /** An API key for a signature of the API's auth message (`POST /api/auth/create_api_key`). */
  readonly apiKey: (input: ApiKeyInput) => Effect.Effect<Redacted.Redacted<string>, ApiFailure>
  /** `apiAuthMessage`, sign, `apiKey`: an API key for `signer`. */
  readonly createApiKey: (
    signer: Signer["Service"]
  ) => Effect.Effect<Redacted.Redacted<string>, ApiFailure | SignerError>
  /** The one-time upload token `address$signature` of a signed `get_message`. */
  readonly oneTimeToken: (
    signer: Signer["Service"]
  ) => Effect.Effect<Redacted.Redacted<string>, ApiFailure | SignerError>
}

/**
 * Authentication against the key nodes and the API.
 *
 * @category services
 */
export class Auth extends Context.Service<Auth, Service>()("lighthouse-effect/Auth") {}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the service over the key nodes (encryption host) and an `HttpClient` (API host).
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function* (
  options: Options = {}
): Effect.fn.Return<Service, never, LighthouseConfig | HttpClient.HttpClient | KeyNodes> {
  const hosts = Hosts.make(yield* LighthouseConfig, yield* HttpClient.HttpClient)
  const nodes = yield* KeyNodes
  const tokens: TokenCache.TokenCache = {
    nodes,
    cache: new Map(),
    margin: Duration.toMillis(Duration.fromInputUnsafe(options.refreshMargin ?? Duration.seconds(60))),
    // One sign-in at a time: two fibres asking for the same signer's token share one JWT.
    lock: yield* Semaphore.make(1)
  }
  return Auth.of({
    nodeMessage: (address) => NodeSignIn.nodeMessage(nodes, address),
    jwt: (input) => NodeSignIn.jwt(nodes, input),
    refresh: (input) => NodeSignIn.refresh(nodes, input),
    signIn: (signer, signInOptions) => NodeSignIn.signIn(nodes, signer, signInOptions),
    token: (signer) => TokenCache.token(tokens, signer),
    checkToken: (input) => TokenCheck.checkToken(nodes, input),
    forget: (address) => TokenCache.forget(tokens.cache, address),
    apiAuthMessage: (publicKey) => ApiKey.apiAuthMessage(hosts, publicKey),
    apiMessage: (publicKey) => ApiKey.apiMessage(hosts, publicKey),
    apiKey: (input) => ApiKey.apiKey(hosts, input),
    createApiKey: (signer) => ApiKey.createApiKey(hosts, signer),
    oneTimeToken: (signer) => ApiKey.oneTimeToken(hosts, signer)
  })
})

/**
 * The `Auth` service; needs the config, an `HttpClient` and the key nodes.
 *
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<Auth, never, LighthouseConfig | HttpClient.HttpClient | KeyNodes> => Layer.effect(Auth, make(options))
