/**
 * The library's services for a command: the all-in-one Node layers, configured from the library's
 * `LIGHTHOUSE_*` variables (hosts, time-outs, key-node policy, network). A variable that does not
 * parse (a host that is no http(s) URL, a time-out that is no number) is the library's
 * `ConfigError` naming it, before any request: exit 1, one line. Payments may add rows to the network table (a local chain's
 * deployment) with `--networks FILE`.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Networks } from "lighthouse-effect"
import { layerStorageConfig } from "lighthouse-effect/node"

/**
 * The services of every command that does not pay, provided once to the command tree's root:
 * without `Payment`, whose viem (chains, contracts, accounts: about 400 KB) a command would
 * otherwise load and parse on every start (BENCHMARKS.md, "Command-line start-up").
 */
export const layer = layerStorageConfig()

/**
 * Every service, `Payment` included, with `networks` added to (or replacing rows of) the network
 * table: what the commands that pay provide to themselves. The Node entry is imported here, when
 * the layer is built, so that this module (loaded by every command) does not reach `Payment`.
 */
export const layerWith = (networks: Networks.NetworkTable) =>
  Layer.unwrap(
    Effect.promise(() => import("lighthouse-effect/node")).pipe(
      Effect.map((node) => node.layerConfig({ networks: Config.succeed({ ...Networks.networks, ...networks }) }))
    )
  )
