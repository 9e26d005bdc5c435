/**
 * The local network's command line, one for `lighthouse-effect dev` and `npm run serve`: its flags
 * (Effect's CLI module, each value checked by its schema before anything starts), and the network
 * started for the life of a scope. Light on purpose: the network, its blocks and the chain are
 * loaded (`DevNetwork.ts`) only when it starts, so the command line that registers `dev` pays
 * nothing for it on its other commands.
 */

import { type Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { DevNetwork, DevNetworkOptions } from "./DevNetwork.ts"
import { Drifts } from "./Drift.ts"

/** Why the network did not start: a value it cannot serve, ports taken (a line each), or a failure. */
export class DevNetworkError extends Schema.TaggedError<DevNetworkError>()("DevNetworkError", {
  reason: Schema.Literals(["usage", "unavailable", "failed"]),
  lines: Schema.Array(Schema.String)
}) {
  override get message() {
    return this.lines.join("; ")
  }
}

const Port = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65_535 }))
const Bytes = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Positive = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

const hostPort = (host: string, what: string) =>
  Flag.Int(`${host}-port`).pipe(
    Flag.withSchema(Port),
    Flag.withDescription(`Port of ${what} (default: its own fixed port, named in the banner; 0: a free one)`),
    Flag.optional
  )

const gatewayFaults =
  "One more gateway, on a free port, serving the same content with faults of its own, comma-separated: " +
  "rate=SIZE (its answers together at most SIZE a second, e.g. 10MiB), slow=MS, stall-after=SIZE, " +
  "lie[=flip-byte|drop-block|extra-block|other-file|truncate], status=CODE (e.g. 429), down, or honest; repeatable"

/** The flags; `chain` says whether the chain starts unless `--no-chain` (or `--chain`) is given. */
export const devFlags = (defaults: { readonly chain: boolean }) => ({
  bind: Flag.String("bind").pipe(
    Flag.withDescription("Interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface)"),
    Flag.withDefault("127.0.0.1")
  ),
  apiPort: hostPort("api", "the API host"),
  nodePort: hostPort("node", "the upload node"),
  gatewayPort: hostPort("gateway", "the gateway"),
  encryptionPort: hostPort("encryption", "the key nodes"),
  freePorts: Flag.Boolean("free-ports").pipe(
    Flag.withDescription("A free port for each of the four hosts not given one"),
    Flag.withDefault(false)
  ),
  gateway: Flag.String("gateway").pipe(Flag.withDescription(gatewayFaults), Flag.atLeast(0)),
  chain: Flag.Boolean("chain").pipe(
    Flag.withDescription(
      `A local chain (Hardhat) with the payment contract and stablecoins (default ${defaults.chain ? "on" : "off"}); --no-chain: none, so no payments, no x402 uploads, and EVM access conditions are never met`
    ),
    Flag.withDefault(defaults.chain)
  ),
  chainPort: Flag.Int("chain-port").pipe(
    Flag.withSchema(Port),
    Flag.withDescription("The chain's JSON-RPC port (default 8545; 0: a free one)"),
    Flag.withDefault(8545)
  ),
  stateDir: Flag.String("state-dir").pipe(
    Flag.withDescription(
      "Keep blocks and state in DIR across restarts (default: in memory); the chain is not kept: every start deploys a fresh one"
    ),
    Flag.optional
  ),
  gc: Flag.Boolean("gc").pipe(
    Flag.withDescription("Before serving, delete the blocks no upload record or IPNS value reaches"),
    Flag.withDefault(false)
  ),
  seed: Flag.String("seed").pipe(
    Flag.withDescription("ADDRESS[:KEY]: an account created at start with API key KEY (a new key if none); repeatable"),
    Flag.atLeast(0)
  ),
  dataLimit: Flag.Int("data-limit").pipe(
    Flag.withSchema(Bytes),
    Flag.withDescription("The data limit of a new account, in bytes (default 1 GiB)"),
    Flag.optional
  ),
  drift: Flag.Literals("drift", Drifts).pipe(
    Flag.withDescription(
      "Answer unlike the contract on purpose, for `lighthouse-effect doctor` to find: rename-field (usage's dataUsed), status (get_proof 404), x402-v2 (a 402 of x402 version 2); repeatable"
    ),
    Flag.atLeast(0)
  ),
  pageSize: Flag.Int("page-size").pipe(
    Flag.withSchema(Positive),
    Flag.withDescription("Uploads listed per page by /api/user/files_uploaded (default 2000)"),
    Flag.optional
  )
})

export type DevFlags = Command.Command.Config.Infer<ReturnType<typeof devFlags>>

/** The flags as the network takes them. */
const optionsOf = (flags: DevFlags): DevNetworkOptions => ({
  bind: flags.bind,
  ports: {
    api: Option.getOrUndefined(flags.apiPort),
    node: Option.getOrUndefined(flags.nodePort),
    gateway: Option.getOrUndefined(flags.gatewayPort),
    encryption: Option.getOrUndefined(flags.encryptionPort)
  },
  freePorts: flags.freePorts,
  chainPort: flags.chain ? flags.chainPort : undefined,
  stateDir: Option.getOrUndefined(flags.stateDir),
  gc: flags.gc,
  pageSize: Option.getOrUndefined(flags.pageSize),
  dataLimit: Option.getOrUndefined(flags.dataLimit),
  seeds: flags.seed.map((entry) => {
    const [address = "", ...key] = entry.split(":")
    return { address, apiKey: key.length === 0 ? undefined : key.join(":") }
  }),
  gateways: flags.gateway,
  drift: flags.drift
})

const startFailed = (cause: unknown) =>
  cause instanceof DevNetworkError
    ? cause
    : new DevNetworkError({ reason: "failed", lines: [cause instanceof Error ? cause.message : String(cause)] })

/** The network (and its chain) started with `flags`, stopped when the scope closes. */
export const serveDev = (flags: DevFlags) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async (): Promise<DevNetwork> => (await import("./DevNetwork.ts")).startDevNetwork(optionsOf(flags)),
      catch: startFailed
    }),
    (network) => Effect.promise(network.close)
  )
