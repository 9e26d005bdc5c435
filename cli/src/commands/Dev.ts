/**
 * `dev`: the library's local network (the one `npm run serve` starts) on the loopback interface
 * until Ctrl-C, with the same flags for its hosts. When ready it prints where each host listens
 * and the `LIGHTHOUSE_*` variables that point this command line at it (`--json`: one JSON line).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Command, Flag } from "effect/cli"
import { UsageError } from "../Errors.ts"
import * as Output from "../Output.ts"

const port = (host: string) =>
  Flag.Int(`${host}-port`).pipe(Flag.withDescription(`Port of the ${host} host (0: a free one)`), Flag.optional)

const flags = {
  bind: Flag.String("bind").pipe(Flag.withDescription("Interface to listen on"), Flag.withDefault("127.0.0.1")),
  apiPort: port("api"),
  nodePort: port("node"),
  gatewayPort: port("gateway"),
  encryptionPort: port("encryption"),
  freePorts: Flag.Boolean("free-ports").pipe(
    Flag.withDescription("Free ports for every host not given one"),
    Flag.withDefault(false)
  ),
  stateDir: Flag.String("state-dir").pipe(
    Flag.withDescription("Keep blocks and state here across restarts (default: in memory)"),
    Flag.optional
  ),
  gc: Flag.Boolean("gc").pipe(
    Flag.withDescription("Delete unreferenced blocks before serving"),
    Flag.withDefault(false)
  ),
  pageSize: Flag.Int("page-size").pipe(Flag.withDescription("Uploads per page of the uploads list"), Flag.optional),
  dataLimit: Flag.Int("data-limit").pipe(Flag.withDescription("Data limit of new accounts, in bytes"), Flag.optional),
  seed: Flag.String("seed").pipe(
    Flag.withDescription("ADDRESS[:APIKEY]: an account created at start (repeatable)"),
    Flag.atLeast(0)
  )
}

type Flags = Command.Command.Config.Infer<typeof flags>

const optional = <K extends string, A>(key: K, value: Option.Option<A>) =>
  Option.match(value, { onNone: () => ({}), onSome: (v) => ({ [key]: v }) as Record<K, A> })

/** The network is loaded only by `dev`: no other command pays for loading it. */
const serve = (f: Flags) =>
  Effect.tryPromise({
    try: async () => {
      const { DefaultPorts, serveMockNetwork } = await import("lighthouse-effect/mocks/server")
      const ports = {
        api: Option.getOrElse(f.apiPort, () => (f.freePorts ? 0 : DefaultPorts.api)),
        node: Option.getOrElse(f.nodePort, () => (f.freePorts ? 0 : DefaultPorts.node)),
        gateway: Option.getOrElse(f.gatewayPort, () => (f.freePorts ? 0 : DefaultPorts.gateway)),
        encryption: Option.getOrElse(f.encryptionPort, () => (f.freePorts ? 0 : DefaultPorts.encryption))
      }
      return serveMockNetwork({
        bind: f.bind,
        ports,
        collectGarbage: f.gc,
        ...optional("stateDir", f.stateDir),
        ...optional("pageSize", f.pageSize),
        ...optional("defaultDataLimit", f.dataLimit)
      })
    },
    catch: (cause) => new UsageError({ detail: cause instanceof Error ? cause.message : String(cause) })
  })

export const dev = Command.make("dev", flags, (f) =>
  Effect.scoped(
    Effect.gen(function* () {
      const served = yield* Effect.acquireRelease(serve(f), (served) => Effect.promise(() => served.close()))
      const accounts = f.seed.map((entry) => {
        const [address = "", apiKey] = entry.split(":")
        return served.network.seedAccount(address, apiKey === undefined ? {} : { apiKey })
      })
      const env = {
        LIGHTHOUSE_API_URL: served.urls.api,
        LIGHTHOUSE_NODE_URL: served.urls.node,
        LIGHTHOUSE_GATEWAY_URL: served.urls.gateway,
        LIGHTHOUSE_ENCRYPTION_URL: served.urls.encryption
      }
      yield* Output.result({ urls: served.urls, env, accounts }, [
        "lighthouse-effect local network (no chain: payments need `npm run serve` in the library's repository, with Hardhat)",
        ...Object.entries(served.urls).map(([host, url]) => `  ${host.padEnd(11)} ${url}`),
        ...accounts.map((a) => `  account     ${a.address}  API key ${a.apiKey}`),
        "Point the command line at it:",
        `  export ${Object.entries(env)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ")}`,
        "Ctrl-C to stop."
      ])
      return yield* Effect.never
    })
  )
).pipe(Command.withDescription("Serves the local network (the library's mock of every Lighthouse host) until Ctrl-C"))
