/**
 * `Auth`: proving who you are to the key nodes and to the API.
 *
 * Key nodes (encryption host, spec §7): an auth message per address (`GET /api/message/{address}`),
 * a JWT for a signature of it (`POST /api/message/get-jwt`), a refresh (`PUT` on the same path).
 * API host: the auth message (`get_auth_message`, or the older `get_message`), an API key for a
 * signed message (`create_api_key`), and the one-time token `address$signature`.
 *
 * `token(signer)` is what the other services use: a JWT for the signer, cached with its expiry
 * (read from the JWT's `exp` claim, not verified), refreshed shortly before it runs out, and
 * obtained again by signing in when the refresh fails. Time comes from `Clock`, so tests drive
 * it with `TestClock`. Every token is `Redacted`.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Redacted } from "effect"
import type {
  HttpStatusError,
  InvalidPublicKey,
  InvalidResponse,
  InvalidSignature,
  NetworkError,
  NodeError,
  RequestTimedOut,
  SignerError
} from "./Errors.ts"
import type { Token } from "./internal/http.ts"
import type { Signer } from "./Signer.ts"

// =============================================================================
// Models
// =============================================================================

/** What `get-jwt` gives: a `jwt:`-prefixed bearer token and a single-use `r:` refresh token. */
export interface JwtPair {
  readonly token: Redacted.Redacted<string>
  readonly refreshToken: Redacted.Redacted<string>
}

/** `POST /api/message/get-jwt`. */
export interface JwtInput {
  /** EVM address (any case; sent lower-cased) or 44-character base58 key. */
  readonly address: string
  /** The signature of the node's auth message. */
  readonly signature: Token
  /** @default "ALL" */
  readonly chain?: string | undefined
}

/** `PUT /api/message/get-jwt`. */
export interface RefreshInput {
  readonly address: string
  readonly refreshToken: Token
}

/** `POST /api/auth/create_api_key`. */
export interface ApiKeyInput {
  readonly publicKey: string
  /** The signature of the API's auth message. */
  readonly signedMessage: Token
}

/** Failures of a call to the API host (`HTTP error! status {n}` on a non-2xx answer). */
export type ApiFailure = InvalidPublicKey | HttpStatusError | NetworkError | RequestTimedOut | InvalidResponse

/** Failures of signing in to the key nodes. */
export type SignInFailure = InvalidPublicKey | NodeError | SignerError | InvalidSignature

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** The key nodes' message to sign for `address` (`GET /api/message/{address}`, first item's `message`). */
  readonly nodeMessage: (address: string) => Effect.Effect<string, InvalidPublicKey | NodeError>
  /** A JWT for a signature of the node message; any failure is `Invalid Signature` with the cause. */
  readonly jwt: (input: JwtInput) => Effect.Effect<JwtPair, InvalidPublicKey | InvalidSignature>
  /** A new JWT pair for a refresh token (which is spent); any failure is `Invalid Signature`. */
  readonly refresh: (input: RefreshInput) => Effect.Effect<JwtPair, InvalidPublicKey | InvalidSignature>
  /** Node message, signature, JWT: the whole sign-in of `signer`, uncached. */
  readonly signIn: (
    signer: Signer["Service"],
    options?: { readonly chain?: string | undefined }
  ) => Effect.Effect<JwtPair, SignInFailure>
  /** A valid JWT for `signer`: cached, refreshed before it expires, signed in again when the refresh fails. */
  readonly token: (signer: Signer["Service"]) => Effect.Effect<Redacted.Redacted<string>, SignInFailure>
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
  /** The one-time upload token `address$signature` of a signed `get_message` (spec §7). */
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
