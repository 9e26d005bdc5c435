/**
 * Every service of the library in one layer, wired for a browser app: `fetch` for HTTP, no file
 * system (uploads take `File`s and `Blob`s), the chain through `http(rpc)` of the network table.
 *
 * Built here until the library ships its own composed layer; an app makes one `ManagedRuntime`
 * of it and hands it to `LighthouseProvider`.
 */
import { FileSystem, Layer, ManagedRuntime } from "effect"
import { FetchHttpClient } from "effect/http"
import * as AccessControl from "../../../core/src/AccessControl.ts"
import * as Auth from "../../../core/src/Auth.ts"
import * as Config from "../../../core/src/Config.ts"
import * as Download from "../../../core/src/Download.ts"
import * as Files from "../../../core/src/Files.ts"
import * as Ipns from "../../../core/src/Ipns.ts"
import * as KeyShards from "../../../core/src/KeyShards.ts"
import * as Nodes from "../../../core/src/Nodes.ts"
import * as Payment from "../../../core/src/Payment.ts"
import * as Upload from "../../../core/src/Upload.ts"

/** What components can ask the runtime for. */
export type LighthouseServices =
  | Auth.Auth
  | KeyShards.KeyShards
  | AccessControl.AccessControl
  | Upload.Upload
  | Download.Download
  | Files.Files
  | Ipns.Ipns
  | Payment.Payment

export type LighthouseRuntime = ManagedRuntime.ManagedRuntime<LighthouseServices, never>

/** The services over the configuration `options` (hosts, node policy, networks). */
export const layer = (options: Config.PartialOptions = {}): Layer.Layer<LighthouseServices> => {
  const keys = Layer.mergeAll(Auth.layer(), KeyShards.layer)
  const services = Layer.mergeAll(
    AccessControl.layer,
    Upload.layer,
    Download.layer,
    Files.layer,
    Ipns.layer,
    Payment.layer
  ).pipe(Layer.provideMerge(keys), Layer.provide(Nodes.layer))
  const platform = Layer.mergeAll(
    Config.layer(options),
    FetchHttpClient.layer,
    // Only Node paths need a file system; in the browser every input is in memory or a `File`.
    FileSystem.layerNoop({}),
    // Looked up on every request: msw (or any other interceptor) may patch `fetch` after this loads.
    Layer.succeed(FetchHttpClient.Fetch, (input, init) => globalThis.fetch(input, init))
  )
  return services.pipe(Layer.provide(platform))
}

/** One runtime for the whole app: services are built once and shared by every component. */
export const makeRuntime = (options: Config.PartialOptions = {}): LighthouseRuntime =>
  ManagedRuntime.make(layer(options))
