/**
 * The storage services for Node, without `Payment` (exported by `lighthouse-effect/node` as
 * `layerStorage` and `layerStorageConfig`), and the Node platform every Node layer stands on.
 * Apart from `LighthouseNode.ts`, whose layer brings `Payment` and with it viem: a bundle split at
 * dynamic imports (esbuild's) loads every module reachable from a module it loads, so a program
 * that reaches only this one loads no viem.
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
import { allInOne, type ConfigOptions, fromConfig, type Options, storageServices } from "./AllInOne.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import { layerReleasingAgent } from "./internal/ReleasingAgent.ts"
import { isNodeItself } from "./internal/runtime.ts"
import type { Services } from "./LighthouseStorage.ts"
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
 * Internal: what the Node layers stand on: Node's file system, `node:http`, how files are read, the
 * journal (here, so `LighthouseNode.ts` builds its layer over the same).
 */
export const nodePlatform = (options: NodeOptions) =>
  Layer.mergeAll(
    NodeFileSystem.layer,
    (options.socketReads ?? (isNodeItself ? "released" : "kept")) === "released"
      ? NodeHttpClient.layerNodeHttpNoAgent.pipe(Layer.provide(layerReleasingAgent))
      : NodeHttpClient.layerNodeHttp,
    Layer.succeed(FileReads, options.fileReads ?? (isNodeItself ? "reused" : "fresh")),
    journalLayer(options.journal)
  )

/**
 * The storage services for Node, without `Payment` (`LighthouseStorage.layer`'s services, over
 * Node's file system and `node:http`): a program that never pays does not load viem's chains and
 * contracts, nor build them, which a short-lived one (a command line) pays on every start.
 *
 * @category layers
 */
export const layerStorage = (options: NodeOptions = {}): Layer.Layer<Services, ConfigConflict> =>
  allInOne(options, storageServices()).pipe(Layer.provide(nodePlatform(options)))

/**
 * `layerStorage`, its options read from the `Config`s given, over the `LIGHTHOUSE_*` variables.
 *
 * @category layers
 */
export const layerStorageConfig = (
  options: ConfigOptions<NodeOptions> = {}
): Layer.Layer<Services, Config.ConfigError | ConfigConflict> => fromConfig(layerStorage)(options)
