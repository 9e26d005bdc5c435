/**
 * Internal, not exported by the package: what the all-in-one layers (`Lighthouse.ts`, `LighthouseStorage.ts`) share: their options, the
 * HTTP client over `fetch`, the refusal of a standalone configuration beside them, and how their
 * services are put together. Apart from both, so that `LighthouseStorage` reaches none of
 * `Payment` (and viem) even where a bundler keeps every export of a module it uses.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as Auth from "./Auth.ts"
import * as KeyNodes from "./KeyNodes.ts"
import * as KeyShards from "./KeyShards.ts"
import * as LighthouseConfig from "./LighthouseConfig.ts"

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
  "layer (Lighthouse.layer, layerBrowser, layerNoDeps, layerNode, LighthouseStorage.layerBrowser), which brings its own configuration and would ignore " +
  "it. Give the options to the all-in-one layer instead, or use its Config form (Lighthouse.layerConfig, " +
  "layerBrowserConfig, layerNoDepsConfig, layerNodeConfig, LighthouseStorage.layerBrowserConfig) to read LIGHTHOUSE_* variables; read the configuration " +
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

/**
 * `top` over the services every other one needs (configuration, key nodes, key shards, auth), all
 * over the same configuration and HTTP client.
 */
export const assemble = <A, R>(options: Options, top: Layer.Layer<A, never, R>) => {
  // Provided as is, not through `LighthouseConfig.layer`: it is the layer's own configuration. A host
  // given in code that is no URL is a defect when the layer is built (the `…Config` forms fail with it).
  const base = Layer.effect(
    LighthouseConfig.LighthouseConfig,
    Effect.orDie(LighthouseConfig.check(LighthouseConfig.make(options)))
  )
  const nodes = KeyNodes.layer.pipe(Layer.provideMerge(base))
  const shards = KeyShards.layer.pipe(Layer.provideMerge(Auth.layer(options.auth)), Layer.provideMerge(nodes))
  return top.pipe(Layer.provideMerge(shards), Layer.provide(protocolClient(options)))
}

/**
 * Each call's own services: layers are shared by reference, so the same layer provided inside a
 * program that already has one would otherwise reuse the outer services (`Upload.layer` and the
 * others are the same values in both) and talk to the outer hosts. `Layer.fresh` builds them apart
 * from the layers already built; `Layer.suspend` makes the value returned shared by reference
 * again, so it is built once however often it is provided.
 */
export const own = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> => {
  const fresh = Layer.fresh(layer)
  return Layer.suspend(() => fresh)
}

/**
 * `make` over the options read from the environment (`LighthouseConfig.fromEnv`, the current
 * `ConfigProvider`), with `options` winning over them and the defaults filling the rest; a host
 * that is not an http(s) URL fails it with a `ConfigError`.
 *
 * @category layers
 */
export const fromConfig =
  <A, R>(make: (options: Options) => Layer.Layer<A, never, R>) =>
  (options: Options = {}): Layer.Layer<A, Config.ConfigError, R> =>
    Layer.unwrap(
      Effect.gen(function* () {
        const merged = { ...options, ...LighthouseConfig.merge(yield* LighthouseConfig.fromEnv, options) }
        yield* LighthouseConfig.check(LighthouseConfig.make(merged))
        return make(merged)
      })
    )
