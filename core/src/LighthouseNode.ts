/**
 * Every service of the library for Node: Node's file system, so uploads take paths
 * and downloads write files, and `node:http` for HTTP: undici's `fetch` holds a
 * streamed request body in memory until the request ends (a 1 GiB upload grew the
 * heap by 1 GiB), `node:http` streams it with back-pressure. Kept apart from
 * `Lighthouse.ts` so browser bundles never reach `node:fs` or `node:http`.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Layer from "effect/Layer"
import { type ConfigOptions, fromConfig } from "./AllInOne.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import { type NodeOptions, nodePlatform } from "./LighthouseNodeStorage.ts"
import { everyService, type Services } from "./LighthouseServices.ts"

export type { NodeOptions } from "./LighthouseNodeStorage.ts"

/**
 * All services for Node.
 *
 * @category layers
 */
export const layer = (options: NodeOptions = {}): Layer.Layer<Services, ConfigConflict> =>
  everyService(options).pipe(Layer.provide(nodePlatform(options)))

/**
 * `layer`, its options read from the `Config`s given (`Config.succeed(value)` for a fixed one),
 * over the `LIGHTHOUSE_*` environment variables (or the `ConfigProvider` in context), the defaults
 * filling the rest. A variable set to a wrong value fails the layer with a `ConfigError` naming it.
 *
 * @category layers
 */
export const layerConfig = (
  options: ConfigOptions<NodeOptions> = {}
): Layer.Layer<Services, Config.ConfigError | ConfigConflict> => fromConfig(layer)(options)
