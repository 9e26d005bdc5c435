/**
 * `LighthouseConfig`: where the services talk to and how patiently.
 *
 * Hosts default to the provider's production hosts, timeouts to the provider's
 * 8 000 ms (requests) and 7 200 000 ms (uploads and downloads), and the key-node
 * policy to the provider's sequential walk with a 1 000 ms pause and 3 tries.
 * Build it from an object (`layer`) or from environment variables (`layerConfig`, `fromEnv`).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { claim, mark } from "./ConfigClaims.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import { defaultNetwork, type NetworkName, type NetworkTable, networks } from "./Networks.ts"

/**
 * The provider's production hosts.
 *
 * @category constants
 */
export const DefaultHosts = {
  api: "https://api.lighthouse.storage",
  node: "https://upload.lighthouse.storage",
  gateway: "https://gateway.lighthouse.storage",
  encryption: "https://encryption.lighthouse.storage",
  walrusNode: "https://upload-walrus.lighthouse.storage",
  walrusGateway: "https://gateway-walrus.lighthouse.storage"
} as const

/** @category models */
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

/**
 * How a call to the 5 key nodes is made (the provider walks them one by one, retrying each).
 *
 * @category models
 */
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

/**
 * Where downloads come from when a call names no `sources`, and how they share it.
 *
 * @category models
 */
export interface DownloadSources {
  /**
   * Trustless gateways (base URLs) every download reads from, verified block by block, or the
   * names `"gateway"` (the configured gateway) and `"public"` (the public trustless gateways,
   * `Download.publicGateways`); none by default: each download reads from its one gateway. @default undefined
   */
  readonly sources: ReadonlyArray<string> | undefined
  /** @default "fallback" */
  readonly strategy: "fallback" | "race" | "split"
  /** How long a source may keep a download waiting for bytes before it is dropped. @default 30 seconds */
  readonly stallTimeout: Duration.Duration
}

/**
 * Which of the provider's x402 routes an upload goes to: `documented`, its documentation's
 * `POST /api/x402/upload` (multipart, x402 version 1); `current`, its x402 server's
 * `POST /api/upload` (raw body, x402 version 2). Either way the version spoken is the `402`'s.
 *
 * @category models
 */
export type X402Routes = "documented" | "current"

/** @category models */
export interface Options {
  readonly hosts: Hosts
  /** Time-out of metadata requests. @default 8000 millis */
  readonly requestTimeout: Duration.Duration
  /** Time-out of uploads and downloads. @default 7 200 000 millis (2 h) */
  readonly transferTimeout: Duration.Duration
  readonly nodes: NodePolicy
  /** Downloads from several gateways at once. */
  readonly downloads: DownloadSources
  /** Network used by payments when none is given. @default "polygon" */
  readonly defaultNetwork: NetworkName
  readonly networks: NetworkTable
  /**
   * The provider's x402 routes an x402 upload goes to when the call names none: `documented`
   * (`POST /api/x402/upload`, x402 version 1) or `current` (`POST /api/upload`, version 2).
   * @default "documented"
   */
  readonly x402Routes: X402Routes
}

/** @category constants */
export const defaults: Options = {
  hosts: DefaultHosts,
  requestTimeout: Duration.millis(8000),
  transferTimeout: Duration.millis(7_200_000),
  nodes: { mode: "sequential", pause: Duration.millis(1000), tries: 3, retryDelay: Duration.millis(1000) },
  downloads: { sources: undefined, strategy: "fallback", stallTimeout: Duration.seconds(30) },
  defaultNetwork,
  networks,
  x402Routes: "documented"
}

/**
 * The hosts, time-outs and key-node policy every service reads.
 *
 * @category services
 */
export class LighthouseConfig extends Context.Service<LighthouseConfig, Options>()(
  "lighthouse-effect/LighthouseConfig"
) {}

/**
 * Anything a caller may override; nested objects merge with the defaults.
 *
 * @category models
 */
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
  readonly downloads?: {
    readonly sources?: ReadonlyArray<string> | undefined
    readonly strategy?: DownloadSources["strategy"] | undefined
    readonly stallTimeout?: Duration.Input | undefined
  }
  readonly defaultNetwork?: NetworkName
  readonly networks?: NetworkTable
  readonly x402Routes?: X402Routes
}

/**
 * Merges overrides into the defaults.
 *
 * @category constructors
 */
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
  downloads: {
    sources: options.downloads?.sources ?? defaults.downloads.sources,
    strategy: options.downloads?.strategy ?? defaults.downloads.strategy,
    stallTimeout: Duration.fromInputUnsafe(options.downloads?.stallTimeout ?? defaults.downloads.stallTimeout)
  },
  defaultNetwork: options.defaultNetwork ?? defaults.defaultNetwork,
  networks: options.networks ?? defaults.networks,
  x402Routes: options.x402Routes ?? defaults.x402Routes
})

/** Why `text` is not a host's base URL, or `undefined` when it is one (absolute, `http:` or `https:`). */
const notHostUrl = (text: string): string | undefined => {
  const problem = `Expected an http:// or https:// URL, got ${JSON.stringify(text)}`
  if (!URL.canParse(text)) return problem
  const { protocol } = new URL(text)
  return protocol === "http:" || protocol === "https:" ? undefined : problem
}

/**
 * A host's base URL: absolute, `http:` or `https:` (what `fetch` can send to).
 *
 * @category schemas
 */
export const HostUrl = Schema.String.check(Schema.makeFilter(notHostUrl))

/** A download source: a trustless gateway's base URL, or one of the names `"gateway"` and `"public"`. */
const DownloadSource = Schema.Union([Schema.Literals(["gateway", "public"]), HostUrl])

/** What `check` holds a configuration to: every address one a request can go to. */
const Addresses = Schema.Struct({
  hosts: Schema.Struct({
    api: HostUrl,
    node: HostUrl,
    gateway: HostUrl,
    encryption: HostUrl,
    walrusNode: HostUrl,
    walrusGateway: HostUrl
  }),
  downloads: Schema.Struct({ sources: Schema.UndefinedOr(Schema.Array(DownloadSource)) })
})

/**
 * `config`, if every host (and download source) is a URL a request can go to; else a
 * `ConfigError` naming the field (`at ["hosts"]["api"]`), when the layer is built rather than as a
 * `Network error` at the first call.
 *
 * @category constructors
 */
export const check = (config: Options): Effect.Effect<Options, Config.ConfigError> =>
  Schema.decodeUnknownEffect(Addresses)(config).pipe(
    Effect.mapError((error) => new Config.ConfigError(error)),
    Effect.as(config)
  )

/**
 * The configuration from an object, for services composed one by one (`Upload.layer`, …). A host
 * that is not an http(s) URL fails the layer with a `ConfigError` naming it. The all-in-one layers
 * take the same object as their options; this layer fails with `ConfigConflict` when it is built
 * with one of them (provided to it, around it or beside it), which would ignore it.
 *
 * @category layers
 */
export const layer = (
  options: PartialOptions = {}
): Layer.Layer<LighthouseConfig, Config.ConfigError | ConfigConflict> =>
  Layer.effect(
    LighthouseConfig,
    Effect.map(check(make(options)), (config) => mark(config, "standalone"))
  ).pipe(Layer.provide(claim("standalone", LighthouseConfig)))

/** `record` without its `undefined` values, so they do not hide what they are merged over. */
const present = <T extends object>(record: T): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>
  }

/**
 * `base` with `over` on top; `hosts`, `nodes` and `downloads` merge key by key, and an `undefined` in `over` keeps `base`'s.
 *
 * @category constructors
 */
export const merge = (base: PartialOptions, over: PartialOptions): PartialOptions => ({
  ...base,
  ...present(over),
  hosts: { ...base.hosts, ...present(over.hosts ?? {}) },
  nodes: { ...base.nodes, ...present(over.nodes ?? {}) },
  ...(base.downloads === undefined && over.downloads === undefined
    ? {}
    : { downloads: { ...base.downloads, ...present(over.downloads ?? {}) } })
})

/** A time-out in milliseconds: a zero or negative one would fail every request at once. */
const PositiveMillis = Schema.Int.check(Schema.isGreaterThan(0))

/** A variable that may be unset: `undefined` then, a `ConfigError` if it is set to a wrong value. */
const optional = <A>(config: Config.Config<A>): Config.Config<A | undefined> =>
  Config.option(config).pipe(Config.map(Option.getOrUndefined))

/**
 * The environment's settings, as overrides: `LIGHTHOUSE_API_URL`, `LIGHTHOUSE_NODE_URL`,
 * `LIGHTHOUSE_GATEWAY_URL`, `LIGHTHOUSE_ENCRYPTION_URL`, `LIGHTHOUSE_WALRUS_NODE_URL`,
 * `LIGHTHOUSE_WALRUS_GATEWAY_URL`, `LIGHTHOUSE_REQUEST_TIMEOUT_MS`, `LIGHTHOUSE_TRANSFER_TIMEOUT_MS`,
 * `LIGHTHOUSE_NODE_POLICY` (`sequential` | `concurrent`), `LIGHTHOUSE_NETWORK` and
 * `LIGHTHOUSE_X402_ROUTES` (`documented` | `current`), read from the
 * current `ConfigProvider` (the process environment unless another is provided). Unset variables
 * are absent; a variable set to a wrong value (a host that is not an http(s) URL, a time-out that
 * is not a positive integer…) fails with a `ConfigError` naming it.
 *
 * @category constants
 */
export const fromEnv: Config.Config<PartialOptions> = Config.all({
  api: optional(Config.schema(HostUrl, "LIGHTHOUSE_API_URL")),
  node: optional(Config.schema(HostUrl, "LIGHTHOUSE_NODE_URL")),
  gateway: optional(Config.schema(HostUrl, "LIGHTHOUSE_GATEWAY_URL")),
  encryption: optional(Config.schema(HostUrl, "LIGHTHOUSE_ENCRYPTION_URL")),
  walrusNode: optional(Config.schema(HostUrl, "LIGHTHOUSE_WALRUS_NODE_URL")),
  walrusGateway: optional(Config.schema(HostUrl, "LIGHTHOUSE_WALRUS_GATEWAY_URL")),
  requestTimeout: optional(Config.schema(PositiveMillis, "LIGHTHOUSE_REQUEST_TIMEOUT_MS")),
  transferTimeout: optional(Config.schema(PositiveMillis, "LIGHTHOUSE_TRANSFER_TIMEOUT_MS")),
  mode: optional(Config.Literals(["sequential", "concurrent"], "LIGHTHOUSE_NODE_POLICY")),
  network: optional(Config.Literals(Object.keys(networks) as Array<NetworkName>, "LIGHTHOUSE_NETWORK")),
  x402Routes: optional(Config.Literals(["documented", "current"], "LIGHTHOUSE_X402_ROUTES"))
}).pipe(
  Config.map(
    (env): PartialOptions =>
      present({
        hosts: present({
          api: env.api,
          node: env.node,
          gateway: env.gateway,
          encryption: env.encryption,
          walrusNode: env.walrusNode,
          walrusGateway: env.walrusGateway
        }),
        requestTimeout: env.requestTimeout,
        transferTimeout: env.transferTimeout,
        nodes: present({ mode: env.mode }),
        defaultNetwork: env.network,
        x402Routes: env.x402Routes
      })
  )
)

/**
 * The configuration from the environment (`fromEnv`), for services composed one by one. With an
 * all-in-one layer use its `layerConfig` instead: it brings its own configuration, and this layer
 * fails with `ConfigConflict` when it is built with one.
 *
 * @category layers
 */
export const layerConfig: Layer.Layer<LighthouseConfig, Config.ConfigError | ConfigConflict> = Layer.unwrap(
  Effect.map(fromEnv, layer)
)
