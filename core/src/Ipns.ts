/**
 * `Ipns`: the account's IPNS keys and records on the API host: generate a key, publish a CID under it, list the keys with their records, remove a key.
 *
 * Every call is `Authorization: Bearer <apiKey>`; a non-2xx answer is `Request failed with status
 * code {n}` (an unknown or already removed key is a 500 on the provider); bodies are decoded with
 * schemas; query values are URL-encoded (the provider concatenated them raw).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import type { InvalidCid, InvalidResponse, NetworkError, RequestFailed, RequestTimedOut } from "./Errors.ts"
import { executeJson, type Token, url, withBearer } from "./internal/http.ts"
import { parseCid } from "./schema/Cid.ts"

// =============================================================================
// Models
// =============================================================================

/** A fresh key: its name (what the other calls take) and its id (the `k51…` name it publishes under). */
export const IpnsKey = Schema.Struct({
  ipnsName: Schema.String,
  ipnsId: Schema.String
}).annotate({ identifier: "IpnsKey" })
export type IpnsKey = typeof IpnsKey.Type

/** A published record: `Name` is the key's id, `Value` is `/ipfs/<cid>`. */
export const PublishedRecord = Schema.Struct({
  Name: Schema.String,
  Value: Schema.String
}).annotate({ identifier: "PublishedRecord" })
export type PublishedRecord = typeof PublishedRecord.Type

/** A key and what it points to (`cid` is `null` before the first publish). */
export const IpnsRecord = Schema.Struct({
  ipnsName: Schema.String,
  ipnsId: Schema.String,
  publicKey: Schema.String,
  cid: Schema.NullOr(Schema.String),
  lastUpdate: Schema.Number
}).annotate({ identifier: "IpnsRecord" })
export type IpnsRecord = typeof IpnsRecord.Type

/** The answer of a removal: the removed key. */
export const RemovedKey = Schema.Struct({
  Keys: Schema.Array(Schema.Struct({ Name: Schema.String, Id: Schema.String }))
}).annotate({ identifier: "RemovedKey" })
export type RemovedKey = typeof RemovedKey.Type

/** Why an IPNS call failed. */
export type IpnsFailure = RequestFailed | NetworkError | RequestTimedOut | InvalidResponse

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** Creates a key. */
  readonly generateKey: (apiKey: Token) => Effect.Effect<IpnsKey, IpnsFailure>
  /** Points the key named `keyName` (an `ipnsName`) at `cid`. */
  readonly publishRecord: (
    apiKey: Token,
    input: { readonly cid: string; readonly keyName: string }
  ) => Effect.Effect<PublishedRecord, IpnsFailure | InvalidCid>
  /** Every key of the account with its record. */
  readonly records: (apiKey: Token) => Effect.Effect<ReadonlyArray<IpnsRecord>, IpnsFailure>
  /** Removes the key named `keyName`. */
  readonly removeKey: (apiKey: Token, keyName: string) => Effect.Effect<RemovedKey, IpnsFailure>
}

/**
 * IPNS keys and records on the API host.
 *
 * @category services
 */
export class Ipns extends Context.Service<Ipns, Service>()("lighthouse-effect/Ipns") {}

// =============================================================================
// Constructor
// =============================================================================

/** Builds the service from the HTTP client and the configuration. */
export const make = Effect.gen(function* () {
  const client = yield* HttpClient.HttpClient
  const config = yield* LighthouseConfig
  const options = { style: "request-failed", timeout: config.requestTimeout } as const
  const api = (path: string, query?: Readonly<Record<string, string>>) => url(config.hosts.api, path, query)
  const json = HttpClientRequest.setHeader("Content-Type", "application/json")

  const generateKey = Effect.fn("Ipns.generateKey")(function* (apiKey: Token) {
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/ipns/generate_key")).pipe(withBearer(apiKey), json),
      IpnsKey,
      options
    )
  })

  const publishRecord = Effect.fn("Ipns.publishRecord")(function* (
    apiKey: Token,
    input: { readonly cid: string; readonly keyName: string }
  ) {
    const cid = yield* parseCid(input.cid)
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/ipns/publish_record", { cid, keyName: input.keyName })).pipe(withBearer(apiKey)),
      PublishedRecord,
      options
    )
  })

  const records = Effect.fn("Ipns.records")(function* (apiKey: Token) {
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/ipns/get_ipns_records")).pipe(withBearer(apiKey), json),
      Schema.Array(IpnsRecord),
      options
    )
  })

  const removeKey = Effect.fn("Ipns.removeKey")(function* (apiKey: Token, keyName: string) {
    return yield* executeJson(
      client,
      HttpClientRequest.delete(api("/api/ipns/remove_key", { keyName })).pipe(withBearer(apiKey)),
      RemovedKey,
      options
    )
  })

  return Ipns.of({ generateKey, publishRecord, records, removeKey })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient` and `LighthouseConfig`.
 *
 * @category layers
 */
export const layer: Layer.Layer<Ipns, never, HttpClient.HttpClient | LighthouseConfig> = Layer.effect(Ipns, make)
