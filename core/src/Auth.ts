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
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { Base64Url } from "effect/encoding"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import {
  type HttpStatusError,
  type InvalidPublicKey,
  InvalidResponse,
  InvalidSignature,
  type NetworkError,
  type NodeError,
  type RequestTimedOut,
  type SignerError
} from "./Errors.ts"
import { executeJson, reveal, type Token, url } from "./internal/http.ts"
import { KeyNodes } from "./KeyNodes.ts"
import { parsePublicKey } from "./schema/Address.ts"
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
export type SignInFailure = InvalidPublicKey | NodeError | InvalidResponse | SignerError | InvalidSignature

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** The key nodes' message to sign for `address` (`GET /api/message/{address}`, first item's `message`). */
  readonly nodeMessage: (address: string) => Effect.Effect<string, InvalidPublicKey | NodeError | InvalidResponse>
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

// =============================================================================
// Implementation
// =============================================================================

/** Options of {@link layer}. */
export interface Options {
  /** A cached JWT is refreshed when less than this is left of it. @default 60 seconds */
  readonly refreshMargin?: Duration.Input | undefined
}

/** `GET /api/message/{address}` answers `[{ message }]`. */
const NodeMessageResponse = Schema.NonEmptyArray(Schema.Struct({ message: Schema.String }))

/** `get-jwt` answers `{ token, refreshToken }`. */
const JwtResponse = Schema.Struct({ token: Schema.String, refreshToken: Schema.String })

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

interface CachedToken {
  readonly pair: JwtPair
  /** Milliseconds; `undefined` when the JWT carries no `exp`. */
  readonly expiresAt: number | undefined
}

const toPair = (answer: typeof JwtResponse.Type): JwtPair => ({
  token: Redacted.make(answer.token, { label: "JWT" }),
  refreshToken: Redacted.make(answer.refreshToken, { label: "RefreshToken" })
})

/**
 * Builds the service over the key nodes (encryption host) and an `HttpClient` (API host).
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function* (
  options: Options = {}
): Effect.fn.Return<Service, never, LighthouseConfig | HttpClient.HttpClient | KeyNodes> {
  const config = yield* LighthouseConfig
  const client = yield* HttpClient.HttpClient
  const nodes = yield* KeyNodes
  const margin = Duration.toMillis(Duration.fromInputUnsafe(options.refreshMargin ?? Duration.seconds(60)))
  const cache = new Map<string, CachedToken>()
  // One sign-in at a time: two fibres asking for the same signer's token share one JWT.
  const lock = yield* Semaphore.make(1)

  // Host-level routes of the encryption host are reported as node 0.
  const hostNode = 0

  const nodeMessage = Effect.fn("Auth.nodeMessage")(function* (address: string) {
    const publicKey = yield* parsePublicKey(address)
    const answer = yield* nodes.call(hostNode, { method: "GET", path: `/api/message/${publicKey}` })
    const decoded = yield* Schema.decodeUnknownEffect(NodeMessageResponse)(answer).pipe(
      Effect.mapError(
        (e) =>
          new InvalidResponse({ url: url(config.hosts.encryption, `/api/message/${publicKey}`), detail: e.message })
      )
    )
    return decoded[0].message
  })

  const getJwt = (request: { readonly method: "POST" | "PUT"; readonly body: unknown }) =>
    nodes.call(hostNode, { method: request.method, path: "/api/message/get-jwt", body: request.body }).pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(JwtResponse)),
      Effect.map(toPair),
      // The provider reports every failure of this call as `Invalid Signature`; the cause keeps the why.
      Effect.mapError((cause) => new InvalidSignature({ cause }))
    )

  const jwt = Effect.fn("Auth.jwt")(function* (input: JwtInput) {
    const address = yield* parsePublicKey(input.address)
    return yield* getJwt({
      method: "POST",
      body: { address, signature: reveal(input.signature), chain: input.chain ?? "ALL" }
    })
  })

  const refresh = Effect.fn("Auth.refresh")(function* (input: RefreshInput) {
    const address = yield* parsePublicKey(input.address)
    return yield* getJwt({ method: "PUT", body: { address, refreshToken: reveal(input.refreshToken) } })
  })

  const signIn = Effect.fn("Auth.signIn")(function* (
    signer: Signer["Service"],
    signInOptions?: { readonly chain?: string | undefined }
  ) {
    const message = yield* nodeMessage(signer.address)
    const signature = yield* signer.signMessage(message)
    return yield* jwt({ address: signer.address, signature, chain: signInOptions?.chain })
  })

  const remember = (address: string, pair: JwtPair): CachedToken => {
    const exp = jwtExpiry(Redacted.value(pair.token))
    const entry = { pair, expiresAt: exp === undefined ? undefined : exp * 1000 }
    cache.set(address, entry)
    return entry
  }

  const token = Effect.fn("Auth.token")(function* (signer: Signer["Service"]) {
    const address = yield* parsePublicKey(signer.address)
    return yield* lock.withPermit(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const cached = cache.get(address)
        if (cached !== undefined && (cached.expiresAt === undefined || cached.expiresAt - margin > now)) {
          return cached.pair.token
        }
        if (cached !== undefined) {
          const refreshed = yield* refresh({ address, refreshToken: cached.pair.refreshToken }).pipe(Effect.result)
          if (Result.isSuccess(refreshed)) return remember(address, refreshed.success).pair.token
          yield* Effect.logDebug("Auth.token: refresh failed, signing in again")
          cache.delete(address)
        }
        return remember(address, yield* signIn(signer)).pair.token
      })
    )
  })

  const forget = Effect.fn("Auth.forget")(function* (address: string) {
    // Keys are the normalized form: EVM addresses lower-cased, base58 keys as given.
    yield* Effect.sync(() => cache.delete(/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address))
  })

  const apiGetMessage = (path: string) => (publicKey: string) =>
    Effect.gen(function* () {
      const key = yield* parsePublicKey(publicKey)
      const request = HttpClientRequest.get(url(config.hosts.api, path, { publicKey: key })).pipe(
        HttpClientRequest.acceptJson
      )
      return yield* executeJson(client, request, Schema.String, {
        style: "http-error",
        timeout: config.requestTimeout
      })
    })

  const apiAuthMessage = Effect.fn("Auth.apiAuthMessage")(function* (publicKey: string) {
    return yield* apiGetMessage("/api/auth/get_auth_message")(publicKey)
  })

  const apiMessage = Effect.fn("Auth.apiMessage")(function* (publicKey: string) {
    return yield* apiGetMessage("/api/auth/get_message")(publicKey)
  })

  const apiKey = Effect.fn("Auth.apiKey")(function* (input: ApiKeyInput) {
    const publicKey = yield* parsePublicKey(input.publicKey)
    const request = HttpClientRequest.post(url(config.hosts.api, "/api/auth/create_api_key")).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyJsonUnsafe({ publicKey, signedMessage: reveal(input.signedMessage) })
    )
    const key = yield* executeJson(client, request, Schema.String, {
      style: "http-error",
      timeout: config.requestTimeout
    })
    return Redacted.make(key, { label: "ApiKey" })
  })

  const createApiKey = Effect.fn("Auth.createApiKey")(function* (signer: Signer["Service"]) {
    const message = yield* apiAuthMessage(signer.address)
    const signedMessage = yield* signer.signMessage(message)
    return yield* apiKey({ publicKey: signer.address, signedMessage })
  })

  const oneTimeToken = Effect.fn("Auth.oneTimeToken")(function* (signer: Signer["Service"]) {
    const message = yield* apiMessage(signer.address)
    const signature = yield* signer.signMessage(message)
    return Redacted.make(`${signer.address}$${signature}`, { label: "OneTimeToken" })
  })

  return Auth.of({
    nodeMessage,
    jwt,
    refresh,
    signIn,
    token,
    forget,
    apiAuthMessage,
    apiMessage,
    apiKey,
    createApiKey,
    oneTimeToken
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
