/**
 * The library's services for a command: the all-in-one Node layer, configured from the library's
 * `LIGHTHOUSE_*` variables (hosts, time-outs, key-node policy, network). A variable that does not
 * parse (a host that is no http(s) URL, a time-out that is no number) is the library's
 * `ConfigError` naming it, before any request: exit 1, one line. Payments may add rows to the network table (a local chain's
 * deployment) with `--networks FILE`.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import { Networks } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"

/** The services, with `networks` added to (or replacing rows of) the network table. */
export const layerWith = (networks: Networks.NetworkTable) =>
  LighthouseNode.layerConfig({ networks: Config.succeed({ ...Networks.networks, ...networks }) })

/** The services over the library's own network table: provided once, to the command tree's root. */
export const layer = layerWith({})
