/**
 * Every service of the library for Node: Node's file system, so uploads take paths
 * and downloads write files, and `node:http` for HTTP: undici's `fetch` holds a
 * streamed request body in memory until the request ends (a 1 GiB upload grew the
 * heap by 1 GiB), `node:http` streams it with back-pressure. Kept apart from
 * `Lighthouse.ts` so browser bundles never reach `node:fs` or `node:http`.
 *
 * @since 0.1.0
 */
// Modules, not the package's index: the index loads all of `@effect/platform-node` (≈ 9 MB more
// heap, which every full collection of a transfer marks again).
import { homedir } from "node:os"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodePath from "@effect/platform-node/NodePath"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ConfigOptions, fromConfig, type Options } from "./AllInOne.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import { layerReleasingAgent } from "./internal/ReleasingAgent.ts"
import { isNodeItself } from "./internal/runtime.ts"
import { everyService, type Services } from "./LighthouseServices.ts"
import * as PendingKeys from "./PendingKeys.ts"
import { FileReads } from "./upload/Options.ts"

/** Options of the Node layers: the all-in-one options, and how uploads read files and keep keys. */
export interface NodeOptions extends Options {
  /**
   * How uploads read files on disk (`Upload.FileReads`): into two reused buffers, or a fresh one per
   * read. `fresh` where an interceptor keeps written chunks (msw passing requests through to a real
   * host). @default "reused" on Node, "fresh" on Bun and Deno (their `node:http` runs on `fetch`)
   */
  readonly fileReads?: FileReads | undefined
  /**
   * What becomes of Node's buffers for a response once they are dead: `released`, freed at once
   * (each socket read once Node's HTTP parser copied it, each body piece once the download wrote
   * it), which halves a download's CPU; `kept`, left to V8's collector. `kept` where an interceptor
   * reads a real socket beside Node's parser (msw passing requests through to a real host). Freeing
   * needs `ArrayBuffer.prototype.transfer` (Node ≥ 21); on Node 20 both are the same.
   * @default "released" on Node, "kept" on Bun and Deno (their `node:http` runs on `fetch`)
   */
  readonly socketReads?: "released" | "kept" | undefined
  /**
   * The key journal of encrypted uploads (`PendingKeys`): files under the user's state directory
   * (`$XDG_STATE_HOME/lighthouse-effect/pending-keys`, else `~/.local/state/…`), files in another
   * directory, or this process's memory. @default "state"
   */
  readonly journal?: "state" | "memory" | { readonly directory: string } | undefined
}

/** The user's home, when the runtime may tell it (Deno asks `--allow-sys` for it; `HOME` is read first). */
const userHome = (): string | undefined => {
  try {
    return homedir()
  } catch {
    return undefined
  }
}

const journalLayer = (journal: NodeOptions["journal"]) =>
  journal === "memory"
    ? PendingKeys.layerMemory
    : (journal === undefined || journal === "state"
        ? Layer.unwrap(Effect.sync(() => PendingKeys.layerState(userHome())))
        : PendingKeys.layerFile(journal.directory)
      ).pipe(Layer.provide([NodeFileSystem.layer, NodePath.layer]))

/**
 * All services for Node.
 *
 * @category layers
 */
export const layer = (options: NodeOptions = {}): Layer.Layer<Services, ConfigConflict> =>
  everyService(options).pipe(
    Layer.provide([
      NodeFileSystem.layer,
      (options.socketReads ?? (isNodeItself ? "released" : "kept")) === "released"
        ? NodeHttpClient.layerNodeHttpNoAgent.pipe(Layer.provide(layerReleasingAgent))
        : NodeHttpClient.layerNodeHttp,
      Layer.succeed(FileReads, options.fileReads ?? (isNodeItself ? "reused" : "fresh")),
      journalLayer(options.journal)
    ])
  )

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
