/**
 * Every service of the library in one layer, for a browser, a worker or any runtime with `fetch`.
 * Node takes the same from `lighthouse-effect/node` (Node's file system, `node:http`).
 * `LighthouseStorage` is the same without `Payment` (and so without viem), for an app that only
 * stores files.
 *
 * `layer(options)` takes its configuration from `options`; `layerConfig(options)` reads it from the
 * `Config`s the caller gives, over the `LIGHTHOUSE_*` variables. Path inputs fail with a typed error
 * (there is no file system here): `File`, `Blob`, bytes and streams work.
 *
 * HTTP goes through `fetch`, looked up on every request rather than once, so a `fetch` patched
 * after start-up (msw in tests and Storybook) is honoured: `startMockNetwork` may start before or
 * after the layer is built or used, and after its `close()` requests go to the real hosts again.
 * Requests carry the protocol's headers only (`tracePropagation` adds the tracing ones).
 *
 * A `LighthouseConfig.layer` / `layerConfig` built with one of these layers (provided to it, around
 * it or beside it) would be ignored, so the build fails with `ConfigConflict`. Every call builds its
 * own services, so a layer provided inside a program that already has another talks to its own hosts.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import { type ConfigOptions, fromConfig, httpLayer, type Options } from "./AllInOne.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import { everyService, type Services } from "./LighthouseServices.ts"

export { type ConfigOptions, httpLayer, type Options } from "./AllInOne.ts"
export type { Services } from "./LighthouseServices.ts"

/**
 * All services over `fetch`, without a file system.
 *
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Services, ConfigConflict> =>
  everyService(options).pipe(Layer.provide([httpLayer, FileSystem.layerNoop({})]))

/**
 * `layer`, its options read from the `Config`s given, over the `LIGHTHOUSE_*` variables (or another
 * `ConfigProvider`). These are functions rather than `fromConfig(…)` values: a call at module level
 * is kept by a bundler (it cannot tell it is pure), and with it every service.
 *
 * @category layers
 */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<Services, Config.ConfigError | ConfigConflict> =>
  fromConfig(layer)(options)
