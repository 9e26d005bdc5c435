/**
 * What the sign-in and API-key calls take and give, and how they fail.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type {
  HttpStatusError,
  InvalidPublicKey,
  InvalidResponse,
  InvalidSignature,
  NodeError,
  SignerError,
  TransportFailure
} from "../Errors.ts"
import { Credential } from "../schema/Credential.ts"
import { AddressOwner } from "../schema/Owner.ts"

/** What `get-jwt` gives: a `jwt:`-prefixed bearer token and a single-use `r:` refresh token. */
export interface JwtPair {
  readonly token: Redacted.Redacted<string>
  readonly refreshToken: Redacted.Redacted<string>
}

/**
 * `POST /api/message/get-jwt`.
 *
 * @category schemas
 */
export const JwtInput = Schema.Struct({
  /** EVM address (any case; sent lower-cased) or 44-character base58 key. */
  address: Schema.String,
  /** The signature of the node's auth message. */
  signature: Credential,
  /** @default "ALL" */
  chain: Schema.optional(Schema.String)
})
/** @category models */
export type JwtInput = typeof JwtInput.Type

/**
 * `PUT /api/message/get-jwt`.
 *
 * @category schemas
 */
export const RefreshInput = Schema.Struct({ address: Schema.String, refreshToken: Credential })
/** @category models */
export type RefreshInput = typeof RefreshInput.Type

/**
 * `POST /api/auth/create_api_key`.
 *
 * @category schemas
 */
export const ApiKeyInput = Schema.Struct({
  publicKey: Schema.String,
  /** The signature of the API's auth message. */
  signedMessage: Credential
})
/** @category models */
export type ApiKeyInput = typeof ApiKeyInput.Type

/**
 * Options of `signIn`: the chain the key nodes record the sign-in for.
 *
 * @category schemas
 */
export const SignInOptions = Schema.Struct({ chain: Schema.optional(Schema.String) })
/** @category models */
export type SignInOptions = typeof SignInOptions.Type

/** Failures of a call to the API host (`HTTP error! status {n}` on a non-2xx answer). */
export type ApiFailure = InvalidPublicKey | HttpStatusError | TransportFailure

/** Failures of signing in to the key nodes. */
export type SignInFailure = InvalidPublicKey | NodeError | InvalidResponse | SignerError | InvalidSignature

/**
 * `Auth.checkToken`: an address and the token that is to prove it to the key nodes (a JWT
 * `jwt:…`, or a raw signature of the node message).
 *
 * @category schemas
 */
export const TokenCheckInput = AddressOwner
/** @category models */
export type TokenCheckInput = typeof TokenCheckInput.Type

/**
 * Why a token was refused before it was relied on: not a token for this address (`Invalid
 * Signature`), or the node's own refusal or failure (`NodeError`: `jwt expired` for an expired
 * JWT with no signer to renew it, or a node that could not be asked).
 */
export type TokenCheckFailure = InvalidPublicKey | InvalidSignature | NodeError

/** Options of `Auth.layer`. */
export interface Options {
  /** A cached JWT is refreshed when less than this is left of it. @default 60 seconds */
  readonly refreshMargin?: Duration.Input | undefined
}
