/**
 * What the sign-in and API-key calls take and give, and how they fail.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Redacted from "effect/Redacted"
import type {
  HttpStatusError,
  InvalidPublicKey,
  InvalidResponse,
  InvalidSignature,
  NetworkError,
  NodeError,
  RequestTimedOut,
  SignerError
} from "../Errors.ts"
import type { Credential } from "../schema/Credential.ts"

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
  readonly signature: Credential
  /** @default "ALL" */
  readonly chain?: string | undefined
}

/** `PUT /api/message/get-jwt`. */
export interface RefreshInput {
  readonly address: string
  readonly refreshToken: Credential
}

/** `POST /api/auth/create_api_key`. */
export interface ApiKeyInput {
  readonly publicKey: string
  /** The signature of the API's auth message. */
  readonly signedMessage: Credential
}

/** Failures of a call to the API host (`HTTP error! status {n}` on a non-2xx answer). */
export type ApiFailure = InvalidPublicKey | HttpStatusError | NetworkError | RequestTimedOut | InvalidResponse

/** Failures of signing in to the key nodes. */
export type SignInFailure = InvalidPublicKey | NodeError | InvalidResponse | SignerError | InvalidSignature

/** Options of `Auth.layer`. */
export interface Options {
  /** A cached JWT is refreshed when less than this is left of it. @default 60 seconds */
  readonly refreshMargin?: Duration.Input | undefined
}
