/**
 * The storage services in one layer, without `Payment`: what an app that uploads, downloads,
 * encrypts, shares and names files needs. `Lighthouse.layer` also brings `Payment`, and with it
 * viem (wallets, chains, contracts), about half of its bundle; this module reaches none of it, even
 * through the package's entry, where a bundler such as esbuild keeps every export of a module that
 * a program uses (BENCHMARKS.md, "Browser bundle").
 *
 * The layers behave as `Lighthouse`'s: the same options, over `fetch`, path inputs refused with a
 * typed error, each call its own services, a standalone `LighthouseConfig` with them refused with
 * `ConfigConflict` when they are built.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as AccessControl from "./AccessControl.ts"
import { allInOne, type ConfigOptions, fromConfig, httpLayer, type Options, storageServices } from "./AllInOne.ts"
import type * as Auth from "./Auth.ts"
import type * as Download from "./Download.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import type * as Files from "./Files.ts"
import type * as Ipns from "./Ipns.ts"
import type * as KeyNodes from "./KeyNodes.ts"
import type * as KeyShards from "./KeyShards.ts"
import type * as LighthouseConfig from "./LighthouseConfig.ts"
import type * as Upload from "./Upload.ts"

export type { ConfigOptions, Options } from "./AllInOne.ts"

/**
 * Everything `layer` provides: `Lighthouse.Services` but `Payment`.
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

/**
 * The storage services for a browser or a worker, over `fetch`: path inputs fail with a typed
 * error instead of reaching a file system.
 *
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Services, ConfigConflict> =>
  allInOne(options, storageServices()).pipe(Layer.provide([httpLayer, FileSystem.layerNoop({})]))

/**
 * `layer`, its options read from the `Config`s given, over the `LIGHTHOUSE_*` variables.
 *
 * @category layers
 */
export const layerConfig = (options: ConfigOptions = {}): Layer.Layer<Services, Config.ConfigError | ConfigConflict> =>
  fromConfig(layer)(options)
