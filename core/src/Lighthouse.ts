/**
 * Every service of the library in one layer.
 *
 * `layer(options)` needs a `FileSystem` (for path inputs and downloads to disk):
 * `layerBrowser` supplies one that refuses every call, so `File`, `Blob`, bytes and
 * streams work and paths fail with a typed error; Node users take `layerNode` from
 * `lighthouse-effect/node`, which supplies Node's file system. `LighthouseStorage`'s
 * layers are these without `Payment` (and so without viem), for an app that only stores files.
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
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as HttpClient from "effect/http/HttpClient"
import { assemble, fromConfig, httpLayer, type Options, own } from "./AllInOne.ts"
import { type Services as StorageServices, storageServices } from "./LighthouseStorage.ts"
import * as Payment from "./Payment.ts"

export { ConfigConflict, fromConfig, httpLayer, type Options } from "./AllInOne.ts"

/**
 * Everything `layer` provides.
 *
 * @category models
 */
export type Services = StorageServices | Payment.Payment

/**
 * All services over the caller's HTTP client and file system: the layer without its
 * dependencies, for a program that brings its own `HttpClient` and `FileSystem`. Each call builds
 * its own services, apart from any other layer of this module already in the program.
 *
 * @category layers
 */
export const layerNoDeps = (
  options: Options = {}
): Layer.Layer<Services, never, FileSystem.FileSystem | HttpClient.HttpClient> =>
  own(assemble(options, Layer.merge(storageServices, Payment.layer)))

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
