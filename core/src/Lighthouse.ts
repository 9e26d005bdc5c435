/**
 * Every service of the library in one layer.
 *
 * `layer(options)` needs a `FileSystem` (for path inputs and downloads to disk):
 * `layerBrowser` supplies one that refuses every call, so `File`, `Blob`, bytes and
 * streams work and paths fail with a typed error; Node users take `layerNode` from
 * `lighthouse-effect/node`, which supplies Node's file system.
 *
 * HTTP goes through `fetch`, looked up on every request rather than once, so a
 * `fetch` patched after start-up (msw in tests and Storybook) is honoured.
 *
 * @since 0.1.0
 */
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
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

/** Everything `layer` provides. */
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

export interface Options extends LighthouseConfig.PartialOptions {
  /** Options of the JWT cache (how long before expiry a token is refreshed). */
  readonly auth?: Auth.Options
}

/** `fetch` resolved at call time: msw (or any test double) may patch it after the layer is built. */
const lateFetch = Layer.succeed(FetchHttpClient.Fetch, (input, init) => globalThis.fetch(input, init))

/**
 * No `traceparent` / `b3` headers on the requests: a browser would preflight every cross-origin
 * call for them, and the provider's hosts (like the local network) do not allow them.
 */
const noTracePropagation = Layer.succeed(HttpClient.TracerPropagationEnabled, false)

export const httpLayer = FetchHttpClient.layer.pipe(Layer.provide([lateFetch, noTracePropagation]))

/** All services over the caller's HTTP client and file system. */
export const layerWith = (
  options: Options = {}
): Layer.Layer<Services, never, FileSystem.FileSystem | HttpClient.HttpClient> => {
  const base = LighthouseConfig.layer(options)
  const nodes = KeyNodes.layer.pipe(Layer.provideMerge(base))
  const shards = Layer.mergeAll(KeyShards.layer, Auth.layer(options.auth)).pipe(Layer.provideMerge(nodes))
  const services = Layer.mergeAll(
    AccessControl.layer,
    Upload.layer,
    Download.layer,
    Files.layer,
    Ipns.layer,
    Payment.layer
  ).pipe(Layer.provideMerge(shards))
  return services
}

/** All services, over `fetch`; the file system comes from the caller. */
export const layer = (options: Options = {}): Layer.Layer<Services, never, FileSystem.FileSystem> =>
  layerWith(options).pipe(Layer.provide(httpLayer))

/** All services for a browser: path inputs fail with a typed error instead of reaching a file system. */
export const layerBrowser = (options: Options = {}): Layer.Layer<Services> =>
  layer(options).pipe(Layer.provide(FileSystem.layerNoop({})))
