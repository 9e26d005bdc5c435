/**
 * Internal, not exported by the package: what the all-in-one layers (`Lighthouse.ts`,
 * `LighthouseStorage.ts`, `LighthouseNode.ts`) share: their options, the HTTP client over `fetch`,
 * the storage services, how they are put together over one configuration, and how a `layerConfig`
 * reads its options. Apart from `Payment`, so that `LighthouseStorage` reaches none of it (and of
 * viem) even where a bundler keeps every export of a module it uses.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as AccessControl from "./AccessControl.ts"
import * as Auth from "./Auth.ts"
import { claim, mark } from "./ConfigClaims.ts"
import * as Download from "./Download.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import * as Files from "./Files.ts"
import * as Ipns from "./Ipns.ts"
import * as KeyNodes from "./KeyNodes.ts"
import * as KeyShards from "./KeyShards.ts"
import * as LighthouseConfig from "./LighthouseConfig.ts"
import * as Upload from "./Upload.ts"

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

/**
 * `layerConfig`'s options: each option of `layer` as a `Config` the caller chooses
 * (`Config.String("MY_API_URL")`, `Config.succeed(value)` for a fixed one), read when the layer is
 * built. Under them the `LIGHTHOUSE_*` variables (`LighthouseConfig.fromEnv`), then the defaults.
 *
 * @category models
 */
export type ConfigOptions<O extends Options = Options> = {
  readonly [K in keyof O]?: Config.Config<O[K]> | undefined
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
 * The storage services over what they all need: every service but `Payment`. A function, not a
 * value: a call at module level is kept by a bundler (it cannot tell it is pure), and with it every
 * service, in a program that imports this module only for `httpLayer`.
 */
export const storageServices = () =>
  Layer.mergeAll(AccessControl.layer, Upload.layer, Download.layer, Files.layer, Ipns.layer)

/** The caller's HTTP client without the tracing headers, unless `tracePropagation` is on. */
const protocolClient = (options: Options): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      return options.tracePropagation === true
        ? client
        : HttpClient.transform(client, (response) =>
            Effect.provideService(response, HttpClient.TracerPropagationEnabled, false)
          )
    })
  )

/**
 * `top` over the services every other one needs (configuration, key nodes, auth, key shards), all
 * over the same configuration and HTTP client; one `Auth` (one JWT cache) for all of them.
 */
const assemble = <A, R>(options: Options, top: Layer.Layer<A, never, R>) => {
  // Provided as is, not through `LighthouseConfig.layer`: it is the layer's own configuration. A host
  // given in code that is no URL is a defect when the layer is built (`layerConfig` fails with it).
  const base = Layer.effect(
    LighthouseConfig.LighthouseConfig,
    Effect.orDie(LighthouseConfig.check(LighthouseConfig.make(options))).pipe(
      Effect.map((config) => mark(config, "all-in-one"))
    )
  )
  const auth = Auth.layer(options.auth).pipe(Layer.provideMerge(KeyNodes.layer), Layer.provideMerge(base))
  const shards = KeyShards.layer.pipe(Layer.provideMerge(auth))
  return top.pipe(Layer.provideMerge(shards), Layer.provide(protocolClient(options)))
}

/**
 * Each call's own services: layers are shared by reference, so the same layer provided inside a
 * program that already has one would otherwise reuse the outer services (`Upload.layer` and the
 * others are the same values in both) and talk to the outer hosts. `Layer.fresh` builds them apart
 * from the layers already built; `Layer.suspend` makes the value returned shared by reference
 * again, so it is built once however often it is provided.
 */
const own = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> => {
  const fresh = Layer.fresh(layer)
  return Layer.suspend(() => fresh)
}

/**
 * An all-in-one layer: `top` over its own configuration, key nodes, auth and key shards, built
 * apart from any other (`own`), and failing with `ConfigConflict` when it is built with a
 * standalone `LighthouseConfig` (`LighthouseConfig.layer`), which it would ignore.
 */
export const allInOne = <A, R>(options: Options, top: Layer.Layer<A, never, R>) =>
  own(assemble(options, top)).pipe(Layer.provide(claim("all-in-one", LighthouseConfig.LighthouseConfig)))

/** The options the caller's `Config`s give (those left out or `undefined` absent). */
const read = <O extends Options>(options: ConfigOptions<O>): Config.Config<Partial<O>> =>
  // Typed by hand: `Config.all` cannot map a generic record's keys to their values' types.
  Config.all(
    Object.fromEntries(Object.entries(options).filter(([, config]) => config !== undefined)) as Record<
      string,
      Config.Config<unknown>
    >
  ) as Config.Config<Partial<O>>

/**
 * `make`'s `layerConfig`: its options from the caller's `Config`s over the `LIGHTHOUSE_*` variables
 * (the current `ConfigProvider`), the defaults filling the rest. A host that is not an http(s) URL
 * fails it with a `ConfigError`.
 */
export const fromConfig =
  <O extends Options, A, R>(make: (options: O) => Layer.Layer<A, ConfigConflict, R>) =>
  (options: ConfigOptions<O> = {}): Layer.Layer<A, Config.ConfigError | ConfigConflict, R> =>
    Layer.unwrap(
      Effect.gen(function* () {
        const given = yield* read(options)
        const merged = {
          ...given,
          ...LighthouseConfig.merge(yield* LighthouseConfig.fromEnv, given as LighthouseConfig.PartialOptions)
        } as O
        yield* LighthouseConfig.check(LighthouseConfig.make(merged))
        return make(merged)
      })
    )
