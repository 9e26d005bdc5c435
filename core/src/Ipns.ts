/**
 * `Ipns`: the account's IPNS keys and records on the API host: generate a key, publish a CID under it, list the keys with their records, remove a key.
 *
 * Every call is `Authorization: Bearer <apiKey>`; a non-2xx answer is `Request failed with status
 * code {n}` (an unknown or already removed key is a 500 on the provider); bodies are decoded with
 * schemas; query values are URL-encoded (the provider concatenated them raw); the time-out is the
 * request time-out.
 *
 * The work lives in `ipns/`: `Records.ts` (the API calls), `Models.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type { InvalidCid } from "./Errors.ts"
import * as Hosts from "./internal/Hosts.ts"
import type {
  IpnsFailure,
  IpnsKey,
  IpnsRecord,
  PublishedRecord,
  PublishRecordInput,
  RemovedKey
} from "./ipns/Models.ts"
import * as Records from "./ipns/Records.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import type { Credential } from "./schema/Credential.ts"

export * from "./ipns/Models.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `Ipns` service offers.
 *
 * @category models
 * @since 0.1.0
 */
export interface Service {
  /** Creates a key. */
  readonly generateKey: (apiKey: Credential) => Effect.Effect<IpnsKey, IpnsFailure>
  /** Points the key named `keyName` (an `ipnsName`) at `cid`. */
  readonly publishRecord: (
    apiKey: Credential,
    input: PublishRecordInput
  ) => Effect.Effect<PublishedRecord, IpnsFailure | InvalidCid>
  /** Every key of the account with its record. */
  readonly records: (apiKey: Credential) => Effect.Effect<ReadonlyArray<IpnsRecord>, IpnsFailure>
  /** Removes the key named `keyName`. */
  readonly removeKey: (apiKey: Credential, keyName: string) => Effect.Effect<RemovedKey, IpnsFailure>
}

/**
 * IPNS keys and records on the API host.
 *
 * @category services
 * @since 0.1.0
 */
export class Ipns extends Context.Service<Ipns, Service>()("lighthouse-effect/Ipns") {}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the service from the HTTP client and the configuration.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<Service, never, HttpClient.HttpClient | LighthouseConfig> = Effect.gen(function* () {
  const hosts = Hosts.make(yield* LighthouseConfig, yield* HttpClient.HttpClient)
  return Ipns.of({
    generateKey: (apiKey) => Records.generateKey(hosts, apiKey),
    publishRecord: (apiKey, input) => Records.publishRecord(hosts, apiKey, input),
    records: (apiKey) => Records.records(hosts, apiKey),
    removeKey: (apiKey, keyName) => Records.removeKey(hosts, apiKey, keyName)
  })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient` and `LighthouseConfig`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Ipns, never, HttpClient.HttpClient | LighthouseConfig> = Layer.effect(Ipns, make)
