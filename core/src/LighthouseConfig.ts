/**
 * `LighthouseConfig`: where the services talk to and how patiently.
 *
 * Hosts default to the provider's production hosts, timeouts to the provider's
 * 8 000 ms (requests) and 7 200 000 ms (uploads and downloads), and the key-node
 * policy to the provider's sequential walk with a 1 000 ms pause and 3 tries.
 * Build it from an object (`layer`) or from environment variables (`layerConfig`).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { defaultNetwork, type NetworkName, type NetworkTable, networks } from "./Networks.ts"

/** The provider's production hosts. */
export const DefaultHosts = {
  api: "https://api.lighthouse.storage",
  node: "https://upload.lighthouse.storage",
  gateway: "https://gateway.lighthouse.storage",
  encryption: "https://encryption.lighthouse.storage",
  walrusNode: "https://upload-walrus.lighthouse.storage",
  walrusGateway: "https://gateway-walrus.lighthouse.storage"
} as const

export interface Hosts {
  /** API host: auth messages, API keys, usage, uploads list, file info, deals, proofs, IPNS. */
  readonly api: string
  /** Upload node: `POST /api/v0/add`. */
  readonly node: string
  /** Gateway: `POST /api/v0/cat/{cid}`. */
  readonly gateway: string
  /** Encryption (auth) host of the 5 key nodes, addressed as `/api/…/{1..5}`. */
  readonly encryption: string
  /** Walrus upload node: the upload node's routes, storing on Walrus (`storageType: "walrus"`). */
  readonly walrusNode: string
  /** Walrus gateway: `GET /ipfs/{cid}` of content stored on Walrus. */
  readonly walrusGateway: string
}

/** How a call to the 5 key nodes is made (the provider walks them one by one, retrying each). */
export interface NodePolicy {
  /** `sequential` walks nodes 1→5 with `pause` between them (the provider's way); `concurrent` calls all at once. */
  readonly mode: "sequential" | "concurrent"
  /** Pause between two nodes in sequential mode. @default 1000 millis */
  readonly pause: Duration.Duration
  /** Tries per node, counting the first. @default 3 */
  readonly tries: number
  /** Wait between two tries. @default 1000 millis */
  readonly retryDelay: Duration.Duration
}

export interface Options {
  readonly hosts: Hosts
  /** Time-out of metadata requests. @default 8000 millis */
  readonly requestTimeout: Duration.Duration
  /** Time-out of uploads and downloads. @default 7 200 000 millis (2 h) */
  readonly transferTimeout: Duration.Duration
  readonly nodes: NodePolicy
  /** Network used by payments when none is given. @default "polygon" */
  readonly defaultNetwork: NetworkName
  readonly networks: NetworkTable
}

export const defaults: Options = {
  hosts: DefaultHosts,
  requestTimeout: Duration.millis(8000),
  transferTimeout: Duration.millis(7_200_000),
  nodes: { mode: "sequential", pause: Duration.millis(1000), tries: 3, retryDelay: Duration.millis(1000) },
  defaultNetwork,
  networks
}

export class LighthouseConfig extends Context.Service<LighthouseConfig, Options>()("lighthouse-effect/Config") {}

/** Anything a caller may override; nested objects merge with the defaults. */
export interface PartialOptions {
  readonly hosts?: Partial<Hosts>
  readonly requestTimeout?: Duration.Input
  readonly transferTimeout?: Duration.Input
  readonly nodes?: Partial<{
    readonly mode: NodePolicy["mode"]
    readonly pause: Duration.Input
    readonly tries: number
    readonly retryDelay: Duration.Input
  }>
  readonly defaultNetwork?: NetworkName
  readonly networks?: NetworkTable
}

/** Merges overrides into the defaults. */
export const make = (options: PartialOptions = {}): Options => ({
  hosts: { ...defaults.hosts, ...options.hosts },
  requestTimeout: Duration.fromInputUnsafe(options.requestTimeout ?? defaults.requestTimeout),
  transferTimeout: Duration.fromInputUnsafe(options.transferTimeout ?? defaults.transferTimeout),
  nodes: {
    mode: options.nodes?.mode ?? defaults.nodes.mode,
    pause: Duration.fromInputUnsafe(options.nodes?.pause ?? defaults.nodes.pause),
    tries: options.nodes?.tries ?? defaults.nodes.tries,
    retryDelay: Duration.fromInputUnsafe(options.nodes?.retryDelay ?? defaults.nodes.retryDelay)
  },
  defaultNetwork: options.defaultNetwork ?? defaults.defaultNetwork,
  networks: options.networks ?? defaults.networks
})

/** The configuration from an object. */
export const layer = (options: PartialOptions = {}): Layer.Layer<LighthouseConfig> =>
  Layer.succeed(LighthouseConfig, make(options))

/** A time-out in milliseconds: a zero or negative one would fail every request at once. */
const PositiveMillis = Schema.Int.check(Schema.isGreaterThan(0))

/**
 * The configuration from environment variables: `LIGHTHOUSE_API_URL`, `LIGHTHOUSE_NODE_URL`,
 * `LIGHTHOUSE_GATEWAY_URL`, `LIGHTHOUSE_ENCRYPTION_URL`, `LIGHTHOUSE_REQUEST_TIMEOUT_MS`,
 * `LIGHTHOUSE_TRANSFER_TIMEOUT_MS`, `LIGHTHOUSE_NODE_POLICY` (`sequential` | `concurrent`),
 * `LIGHTHOUSE_NETWORK`. Unset variables keep the defaults.
 */
export const layerConfig: Layer.Layer<LighthouseConfig, Config.ConfigError> = Layer.effect(
  LighthouseConfig,
  Effect.gen(function* () {
    const env = yield* Config.all({
      api: Config.String("LIGHTHOUSE_API_URL").pipe(Config.withDefault(DefaultHosts.api)),
      node: Config.String("LIGHTHOUSE_NODE_URL").pipe(Config.withDefault(DefaultHosts.node)),
      gateway: Config.String("LIGHTHOUSE_GATEWAY_URL").pipe(Config.withDefault(DefaultHosts.gateway)),
      encryption: Config.String("LIGHTHOUSE_ENCRYPTION_URL").pipe(Config.withDefault(DefaultHosts.encryption)),
      walrusNode: Config.String("LIGHTHOUSE_WALRUS_NODE_URL").pipe(Config.withDefault(DefaultHosts.walrusNode)),
      walrusGateway: Config.String("LIGHTHOUSE_WALRUS_GATEWAY_URL").pipe(
        Config.withDefault(DefaultHosts.walrusGateway)
      ),
      requestTimeout: Config.schema(PositiveMillis, "LIGHTHOUSE_REQUEST_TIMEOUT_MS").pipe(
        Config.withDefault(Duration.toMillis(defaults.requestTimeout))
      ),
      transferTimeout: Config.schema(PositiveMillis, "LIGHTHOUSE_TRANSFER_TIMEOUT_MS").pipe(
        Config.withDefault(Duration.toMillis(defaults.transferTimeout))
      ),
      mode: Config.Literals(["sequential", "concurrent"], "LIGHTHOUSE_NODE_POLICY").pipe(
        Config.withDefault("sequential" as const)
      ),
      network: Config.Literals(Object.keys(networks) as Array<NetworkName>, "LIGHTHOUSE_NETWORK").pipe(
        Config.withDefault(defaultNetwork)
      )
    })
    return make({
      hosts: {
        api: env.api,
        node: env.node,
        gateway: env.gateway,
        encryption: env.encryption,
        walrusNode: env.walrusNode,
        walrusGateway: env.walrusGateway
      },
      requestTimeout: Duration.millis(env.requestTimeout),
      transferTimeout: Duration.millis(env.transferTimeout),
      nodes: { mode: env.mode },
      defaultNetwork: env.network
    })
  })
)
