/**
 * Every service of the library in one layer.
 *
 * `layer(options)` needs a `FileSystem` (for path inputs and downloads to disk):
 * `layerBrowser` supplies one that refuses every call, so `File`, `Blob`, bytes and
 * streams work and paths fail with a typed error; Node users take `layerNode` from
 * `lighthouse-effect/node`, which supplies Node's file system.
 *
 * HTTP goes through `fetch`, looked up on every request rather than once, so a
 * `fetch` patched after start-up (msw in tests and Storybook) is honoured:
 * `startMockNetwork` may start before or after the layer is built or used, and after its
 * `close()` requests go to the real hosts again; `layerNode` calls `node:http`, which msw
 * patches in place, with the same effect. Requests carry the protocol's headers only (`tracePropagation` adds the tracing ones).
 *
 * Each layer brings its own configuration, from its options; its `…Config` form
 * (`layerConfig`, `layerBrowserConfig`, `layerNoDepsConfig`) reads `LIGHTHOUSE_*`
 * variables first. A `LighthouseConfig.layer` / `layerConfig` combined with one of
 * these layers would be ignored, so it is refused with a `ConfigConflict` defect.
 * Every call builds its own services, so a layer provided inside a program that
 * already has another talks to its own hosts.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as AccessControl from "./AccessControl.ts"
import * as Auth from "./Auth.ts"
import * as LighthouseConfig from "./LighthouseConfig.ts"
import * as Download from "./Download.ts"
import * as Files from "./Files.ts"
import * as Ipns from "./Ipns.ts"
import * as KeyShards from "./KeyShards.ts"
import * as KeyNodes from "./KeyNodes.ts"
import * as Payment from "./Payment.ts"
import * as Upload from "./Upload.ts"

/**
 * Everything `layer` provides.
 *
 * @category models
 */
export type Services =
  | LighthouseConfig.LighthouseConfig
  | KeyNodes.KeyNodes
  | Auth.Auth
  | KeyShards.KeyShards
  | AccessControl.AccessControl
  | Upload.Upload
  | Download.Download
  | Files.Files
  | Ipns.Ipns
  | Payment.Payment

/** @category models */
export interface Options extends LighthouseConfig.PartialOptions {
  /** Options of the JWT cache (how long before expiry a token is refreshed). */
  readonly auth?: Auth.Options
  /**
   * Send the current span's tracing headers (`traceparent`, `b3`) with every request, so a tracing
   * backend can join the provider's spans to yours. Off by default: requests carry only the
   * protocol's headers, because a browser sends a CORS preflight for these two headers, which the
   * provider's hosts need not allow. Spans are recorded either way.
   * @default false
   */
  readonly tracePropagation?: boolean
}

/** `fetch` resolved at call time: msw (or any test double) may patch it after the layer is built. */
const lateFetch = Layer.succeed(FetchHttpClient.Fetch, (input, init) => globalThis.fetch(input, init))

/**
 * The `HttpClient` over `fetch`, looked up on every request rather than once: a test double (msw)
 * that patches `globalThis.fetch` after this layer was built still sees every call.
 *
 * @category layers
 */
export const httpLayer = FetchHttpClient.layer.pipe(Layer.provide(lateFetch))

/**
 * The defect of an all-in-one layer meeting a `LighthouseConfig` from `LighthouseConfig.layer` / `layerConfig`.
 *
 * @category errors
 */
export class ConfigConflict extends Data.TaggedError("ConfigConflict")<{ readonly message: string }> {}

const conflictMessage =
  "A LighthouseConfig from LighthouseConfig.layer / LighthouseConfig.layerConfig is in the context of an all-in-one " +
  "layer (Lighthouse.layer, layerBrowser, layerNoDeps, layerNode), which brings its own configuration and would ignore " +
  "it. Give the options to the all-in-one layer instead, or use its Config form (Lighthouse.layerConfig, " +
  "layerBrowserConfig, layerNoDepsConfig, layerNodeConfig) to read LIGHTHOUSE_* variables; read the configuration " +
  "back from the all-in-one layer, which provides LighthouseConfig."

/** Dies with `ConfigConflict` where a standalone configuration is in the context. */
const refuseStandaloneConfig = Effect.serviceOption(LighthouseConfig.Standalone).pipe(
  Effect.flatMap((standalone) =>
    Option.isSome(standalone) ? Effect.die(new ConfigConflict({ message: conflictMessage })) : Effect.void
  )
)

/**
 * The caller's HTTP client as the all-in-one services use it: without the tracing headers unless
 * `tracePropagation` is on, and refusing every request made where a standalone configuration is in
 * context (merged beside an all-in-one layer, it is not seen while the layer is built).
 */
const protocolClient = (options: Options): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      yield* refuseStandaloneConfig
      const client = yield* HttpClient.HttpClient
      return client.pipe(
        HttpClient.transform((response) =>
          refuseStandaloneConfig.pipe(
            Effect.andThen(
              options.tracePropagation === true
                ? response
                : Effect.provideService(response, HttpClient.TracerPropagationEnabled, false)
            )
          )
        )
      )
    })
  )

/** The services of one all-in-one layer, all over the same configuration and HTTP client. */
const services = (options: Options): Layer.Layer<Services, never, FileSystem.FileSystem | HttpClient.HttpClient> => {
  // Provided as is, not through `LighthouseConfig.layer`: it is the layer's own configuration.
  const base = Layer.succeed(LighthouseConfig.LighthouseConfig, LighthouseConfig.make(options))
  const nodes = KeyNodes.layer.pipe(Layer.provideMerge(base))
  const shards = Layer.mergeAll(KeyShards.layer, Auth.layer(options.auth)).pipe(Layer.provideMerge(nodes))
  return Layer.mergeAll(AccessControl.layer, Upload.layer, Download.layer, Files.layer, Ipns.layer, Payment.layer).pipe(
    Layer.provideMerge(shards),
    Layer.provide(protocolClient(options))
  )
}

/**
 * All services over the caller's HTTP client and file system: the layer without its
 * dependencies, for a program that brings its own `HttpClient` and `FileSystem`.
 *
 * Each call builds its own services: layers are shared by reference, so a `layerNoDeps(other)`
 * provided inside a program that already has one would otherwise reuse the outer services
 * (`Upload.layer` and the others are the same values in both) and talk to the outer hosts.
 * `Layer.fresh` builds them apart from the layers already built; `Layer.suspend` makes the value
 * this call returns shared by reference again, so it is built once however often it is provided.
 *
 * @category layers
 */
export const layerNoDeps = (
  options: Options = {}
): Layer.Layer<Services, never, FileSystem.FileSystem | HttpClient.HttpClient> => {
  const own = Layer.fresh(services(options))
  return Layer.suspend(() => own)
}

/**
 * @deprecated use `layerNoDeps` (removed in the next release).
 * @category layers
 */
export const layerWith = layerNoDeps

/**
 * All services, over `fetch`; the file system comes from the caller.
 *
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Services, never, FileSystem.FileSystem> =>
  layerNoDeps(options).pipe(Layer.provide(httpLayer))

/**
 * All services for a browser: path inputs fail with a typed error instead of reaching a file system.
 *
 * @category layers
 */
export const layerBrowser = (options: Options = {}): Layer.Layer<Services> =>
  layer(options).pipe(Layer.provide(FileSystem.layerNoop({})))

/**
 * `make` over the options read from the environment (`LighthouseConfig.fromEnv`, the current
 * `ConfigProvider`), with `options` winning over them and the defaults filling the rest.
 *
 * @category layers
 */
export const fromConfig =
  <A, R>(make: (options: Options) => Layer.Layer<A, never, R>) =>
  (options: Options = {}): Layer.Layer<A, Config.ConfigError, R> =>
    Layer.unwrap(
      Effect.map(LighthouseConfig.fromEnv, (env) => make({ ...options, ...LighthouseConfig.merge(env, options) }))
    )

/**
 * `layerNoDeps`, configured from `LIGHTHOUSE_*` variables; `options` win over them.
 *
 * These `…Config` layers are functions rather than `fromConfig(…)` values: a call at module level
 * is kept by a bundler (it cannot tell it is pure), and with it every service, so a program that
 * imports this module only for `httpLayer` would bundle `Payment` and viem.
 *
 * @category layers
 */
export const layerNoDepsConfig = (
  options: Options = {}
): Layer.Layer<Services, Config.ConfigError, FileSystem.FileSystem | HttpClient.HttpClient> =>
  fromConfig(layerNoDeps)(options)

/**
 * @deprecated use `layerNoDepsConfig` (removed in the next release).
 * @category layers
 */
export const layerWithConfig = layerNoDepsConfig

/**
 * `layer`, configured from `LIGHTHOUSE_*` variables; `options` win over them.
 *
 * @category layers
 */
export const layerConfig = (options: Options = {}): Layer.Layer<Services, Config.ConfigError, FileSystem.FileSystem> =>
  fromConfig(layer)(options)

/**
 * `layerBrowser`, configured from `LIGHTHOUSE_*` variables (or another `ConfigProvider`); `options` win over them.
 *
 * @category layers
 */
export const layerBrowserConfig = (options: Options = {}): Layer.Layer<Services, Config.ConfigError> =>
  fromConfig(layerBrowser)(options)
