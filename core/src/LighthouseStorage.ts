/**
 * The storage services in one layer, without `Payment`: what an app that uploads, downloads,
 * encrypts, shares and names files needs. `Lighthouse.layerBrowser` also brings `Payment`, and
 * with it viem (wallets, chains, contracts), about half of its bundle; this module reaches none
 * of it, even through the package's entry, where a bundler such as esbuild keeps every export of a
 * module that a program uses (BENCHMARKS.md, "Browser bundle").
 *
 * The layers behave as `Lighthouse`'s: the same options (`Lighthouse.Options`), each call its
 * own services, a standalone `LighthouseConfig` beside them refused with `ConfigConflict`.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as AccessControl from "./AccessControl.ts"
import type * as Auth from "./Auth.ts"
import * as Download from "./Download.ts"
import * as Files from "./Files.ts"
import { assemble, fromConfig, httpLayer, type Options, own } from "./AllInOne.ts"
import * as Ipns from "./Ipns.ts"
import type * as KeyNodes from "./KeyNodes.ts"
import type * as KeyShards from "./KeyShards.ts"
import type * as LighthouseConfig from "./LighthouseConfig.ts"
import * as Upload from "./Upload.ts"

/**
 * Everything `layerBrowser` provides: `Lighthouse.Services` but `Payment`.
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
 * The storage services over what they all need, for `Lighthouse`'s layers to add `Payment` to.
 *
 * @internal
 */
export const storageServices = Layer.mergeAll(
  AccessControl.layer,
  Upload.layer,
  Download.layer,
  Files.layer,
  Ipns.layer
)

/**
 * The storage services for a browser or a worker, over `fetch`: path inputs fail with a typed
 * error instead of reaching a file system, as in `Lighthouse.layerBrowser`.
 *
 * @category layers
 */
export const layerBrowser = (options: Options = {}): Layer.Layer<Services> =>
  own(assemble(options, storageServices)).pipe(Layer.provide(httpLayer), Layer.provide(FileSystem.layerNoop({})))

/**
 * `layerBrowser`, configured from `LIGHTHOUSE_*` variables (or another `ConfigProvider`); `options` win over them.
 *
 * @category layers
 */
export const layerBrowserConfig = (options: Options = {}): Layer.Layer<Services, Config.ConfigError> =>
  fromConfig(layerBrowser)(options)
