/**
 * `npm run serve`: the local network on 127.0.0.1 until Ctrl-C, for clients in any language. The
 * mock network (one port per host), and beside it a local chain served over HTTP JSON-RPC with the
 * payment contract and two stablecoins deployed. Prints where each host listens, which production
 * host it stands for, the deployment's addresses, and how to point a client at all of it.
 *
 * Every option is listed by `--help` (`usage` below). Before anything starts, the options are
 * checked (a bad one: one line, exit 2) and every fixed port is tried (each one taken: one line
 * naming it and the flag that moves it, exit 1).
 *
 * The network's clock (JWT, refresh and one-time token expiry, IPNS record validity) runs with the
 * wall clock and is moved over HTTP on any host: `GET /__dev/clock` reads it, `POST /__dev/clock`
 * with `{"advanceMs": N}` moves it forward, `{"freeze": true}` / `{"freeze": false}` stops and
 * restarts it (see `mocks/src/server/DevClock.ts`).
 *
 * Services started beside the network (the local chain) plug in through `extensions` below: each
 * contributes network options (e.g. `chain`, `payments`), lines for the banner, fields for `--json`,
 * a hook on the running network, and a stop.
 */
import "../tooling/requireNode.mjs"
import { createServer } from "node:net"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { deployLocal, localTokens } from "lighthouse-effect/contracts"
import {
  HostNames,
  type HostName,
  type FaultKind,
  logRouteErrorsToConsole,
  type MockNetwork,
  type MockNetworkOptions
} from "lighthouse-effect/mocks"
import {
  armGatewayFaults,
  DefaultPorts,
  devClockPath,
  gatewayFaultText,
  PortInUse,
  parseGatewayFaults,
  serveMockNetwork
} from "lighthouse-effect/mocks/server"
import { startLocalChain } from "lighthouse-effect/mocks/chain"
import { chainOptions } from "lighthouse-effect/mocks"

/** Something started with the mock network and stopped with it. */
interface ServeExtension {
  /** Its key in the `--json` line. */
  readonly id: string
  /** Its heading in the banner. */
  readonly name: string
  readonly start: () => Promise<{
    /** Merged into the mock network's options. */
    readonly options?: Partial<MockNetworkOptions>
    /** Printed under the hosts. */
    readonly lines?: ReadonlyArray<string>
    /** Added to the `--json` line under the extension's id. */
    readonly json?: unknown
    /**
     * Lines added to the `Lighthouse.layer({ … })` options the banner suggests; they may use
     * `Networks` and `Address` from `lighthouse-effect`.
     */
    readonly layerOptions?: ReadonlyArray<string>
    /** Called once the network is up. */
    readonly attach?: (network: MockNetwork) => void
    readonly stop: () => Promise<void>
  }>
}

/** What `--help` prints. */
const usage = `npm run serve -- [options]

The simulated Lighthouse network over HTTP (one port per host) and a local chain with the payment
contract, until Ctrl-C.

  --bind ADDRESS        interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  --api-port N          API host (default ${DefaultPorts.api})
  --node-port N         upload node (default ${DefaultPorts.node})
  --gateway-port N      gateway (default ${DefaultPorts.gateway})
  --encryption-port N   key nodes (default ${DefaultPorts.encryption})
  --free-ports          a free port for each of the four hosts (unless given above)
  --gateway FAULTS      one more gateway, on a free port, serving the same content with faults of its
                        own, comma-separated: rate=SIZE (its answers together at most SIZE a second,
                        e.g. 10MiB), slow=MS, stall-after=SIZE, lie[=flip-byte|drop-block|extra-block|
                        other-file|truncate], status=CODE (e.g. 429), down, or honest; repeatable
  --chain-port N        the chain's JSON-RPC (default 8545)
  --no-chain            no chain: no payments, no x402 uploads, and EVM access conditions are never met
  --state-dir DIR       keep blocks and state in DIR across restarts (default: in memory); the
                        chain is not kept: every start deploys a fresh one
  --gc                  before serving, delete the blocks no upload record or IPNS value reaches
  --seed ADDRESS[:KEY]  create an account with API key KEY (a new key if none); repeatable
  --data-limit BYTES    the data limit of a new account (default 1073741824, 1 GiB)
  --page-size N         uploads listed per page by /api/user/files_uploaded (default 2000)
  --json                print the addresses as one JSON line instead of this banner
  -h, --help            print this and exit

Port 0 picks a free port. A taken port stops the command with a line naming it. Several serve
processes may share one --state-dir to serve the same blocks from gateways of their own (each
reads blocks from the directory as they are asked for; accounts and uploads are read at start).`

/** The command line, checked: every value the network and the chain are started with. */
interface ServeCommand {
  readonly bind: string
  readonly ports: Readonly<Record<HostName, number>>
  /** `undefined` with `--no-chain`. */
  readonly chainPort: number | undefined
  readonly stateDir: string | undefined
  readonly gc: boolean
  readonly pageSize: number | undefined
  readonly dataLimit: number | undefined
  readonly seeds: ReadonlyArray<{ readonly address: string; readonly apiKey: string | undefined }>
  /** The faults of each `--gateway`, in order. */
  readonly gateways: ReadonlyArray<ReadonlyArray<FaultKind>>
  readonly json: boolean
}

/** A command line that cannot be served: its one-line reason. */
class UsageError extends Error {}

const integer = (name: string, text: string | undefined, minimum = 0): number | undefined => {
  if (text === undefined) return undefined
  const value = Number(text)
  if (text.trim() === "" || !Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`--${name} must be ${minimum === 0 ? "a non-negative" : "a positive"} integer, got ${text}`)
  }
  return value
}

const port = (name: string, text: string | undefined): number | undefined => {
  const value = integer(name, text)
  if (value !== undefined && value > 65_535) throw new UsageError(`--${name} must be at most 65535, got ${text}`)
  return value
}

/** The checked command line, `"help"` for `--help`; a `UsageError` for anything else it cannot serve. */
const readCommand = (args: ReadonlyArray<string>): ServeCommand | "help" => {
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(args)
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
  const values = parsed.values
  if (values.help) return "help"
  const ports = Object.fromEntries(
    HostNames.map((host) => [
      host,
      port(`${host}-port`, values[`${host}-port`]) ?? (values["free-ports"] ? 0 : DefaultPorts[host])
    ])
  ) as Record<HostName, number>
  return {
    bind: values.bind,
    ports,
    chainPort: values["no-chain"] ? undefined : (port("chain-port", values["chain-port"]) ?? 8545),
    stateDir: values["state-dir"] === undefined ? undefined : resolve(values["state-dir"]),
    gc: values.gc,
    pageSize: integer("page-size", values["page-size"], 1),
    dataLimit: integer("data-limit", values["data-limit"]),
    seeds: (values.seed ?? []).map((entry) => {
      const [address = "", ...key] = entry.split(":")
      return { address, apiKey: key.length === 0 ? undefined : key.join(":") }
    }),
    gateways: (values.gateway ?? []).map(gatewayFaults),
    json: values.json
  }
}

/** One `--gateway`'s faults; a `UsageError` naming the flag's text when they cannot be served. */
const gatewayFaults = (text: string): ReadonlyArray<FaultKind> => {
  try {
    return parseGatewayFaults(text)
  } catch (error) {
    throw new UsageError(`--gateway ${text}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const parseOptions = (args: ReadonlyArray<string>) =>
  parseArgs({
    args: [...args],
    options: {
      help: { type: "boolean", short: "h", default: false },
      bind: { type: "string", default: "127.0.0.1" },
      "api-port": { type: "string" },
      "node-port": { type: "string" },
      "gateway-port": { type: "string" },
      "encryption-port": { type: "string" },
      "chain-port": { type: "string" },
      "no-chain": { type: "boolean", default: false },
      "free-ports": { type: "boolean", default: false },
      "state-dir": { type: "string" },
      gc: { type: "boolean", default: false },
      "page-size": { type: "string" },
      "data-limit": { type: "string" },
      seed: { type: "string", multiple: true },
      gateway: { type: "string", multiple: true },
      json: { type: "boolean", default: false }
    },
    strict: true,
    allowPositionals: false
  })

/** The port of each served URL. */
const portsOf = (urls: Readonly<Record<HostName, string>>) =>
  Object.fromEntries(HostNames.map((host) => [host, Number(new URL(urls[host]).port)]))

// =============================================================================
// Taken ports
// =============================================================================

/** A port to try before starting, and the line that says it is taken. */
interface WantedPort {
  readonly port: number
  readonly taken: (bind: string) => string
}

const chainPortTaken = (bind: string, port: number) =>
  `port ${port} on ${bind} (the chain) is already in use: stop what holds it, move the chain with --chain-port N (0 picks a free port), or leave it out with --no-chain`

/** The fixed ports of the command (port 0 needs no trying), each with its line. */
const wantedPorts = (command: ServeCommand): ReadonlyArray<WantedPort> => [
  ...HostNames.map((host) => ({
    port: command.ports[host],
    taken: (bind: string) => new PortInUse(host, bind, command.ports[host]).message
  })),
  ...(command.chainPort === undefined
    ? []
    : [{ port: command.chainPort, taken: (bind: string) => chainPortTaken(bind, command.chainPort!) }])
]

/** Why `port` on `bind` cannot be listened on now, or `undefined` when it can. */
const listenError = (bind: string, port: number) =>
  new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const probe = createServer()
    probe.once("error", (error: NodeJS.ErrnoException) => resolve(error))
    probe.listen({ port, host: bind, exclusive: true }, () => probe.close(() => resolve(undefined)))
  })

/**
 * One line per fixed port that cannot be listened on, tried before anything starts (the chain's
 * server would end the process with a stack trace on a taken port instead of failing its start).
 */
const unavailablePorts = async (command: ServeCommand): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = []
  for (const wanted of wantedPorts(command).filter((candidate) => candidate.port !== 0)) {
    const error = await listenError(command.bind, wanted.port)
    if (error === undefined) continue
    lines.push(
      error.code === "EADDRINUSE"
        ? wanted.taken(command.bind)
        : `cannot listen on port ${wanted.port} on ${command.bind}: ${error.message}`
    )
  }
  return lines
}

// =============================================================================
// The local chain
// =============================================================================

/** The accounts that settle x402 payments (and pay their gas) and receive them. */
const x402SettlerIndex = 18
const x402PayeeIndex = 19

/** How often the API reads new `ReceivedPayment` events (the provider's back office does it on its own). */
const syncEveryMs = 500

/**
 * The in-process Hardhat chain served over HTTP, with `LighthousePayment`, a 6-decimal USDC, an
 * 18-decimal DAI and the EIP-3009 `TestUsdc` deployed; the mock's key nodes evaluate EVM conditions
 * on it, its API credits payments to the contract as they are mined and takes x402 uploads paid in
 * `TestUsdc`, settled on it.
 */
const localChain = (bind: string, port: number): ServeExtension => ({
  id: "chain",
  name: "local chain",
  start: async () => {
    const chain = await startLocalChain({ serve: { hostname: bind, port } })
    try {
      const deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
      const chainId = await chain.publicClient.getChainId()
      const url = chain.url!
      const users = chain.accounts.slice(1, 4).map((address, i) => ({ address, privateKey: chain.privateKeys[i + 1]! }))
      // The last two accounts take x402 payments: out of the way of the users printed above.
      const x402 = { settler: chain.walletClients[x402SettlerIndex]!, payTo: chain.accounts[x402PayeeIndex]! }

      let timer: ReturnType<typeof setInterval> | undefined
      let syncing: Promise<unknown> = Promise.resolve()
      return {
        options: chainOptions(chain.publicClient, deployment, x402),
        lines: [
          `rpc         ${url}  chain id ${chainId} (Hardhat EDR, every transaction mined at once)`,
          `payment     ${deployment.payment}  LighthousePayment, owner ${deployment.owner}`,
          `usdc        ${deployment.usdc}  ${localTokens.usdc.decimals} decimals, open mint(to, amount)`,
          `dai         ${deployment.dai}  ${localTokens.dai.decimals} decimals, open mint(to, amount)`,
          `accounts    ${chain.accounts.length} with 10000 ETH each (Hardhat's public test mnemonic), e.g.`,
          ...users.map((user) => `            ${user.address}  key ${user.privateKey}`),
          `payments    ReceivedPayment events raise the payer's data limit within ${syncEveryMs} ms`,
          `x402 usdc   ${deployment.x402Usdc}  EIP-3009 TestUsdc, ${localTokens.usdc.decimals} decimals, open mint(to, amount)`,
          `x402        POST /api/x402/upload on the API host, paid to ${x402.payTo}, settled by ${x402.settler.account.address}`
        ],
        layerOptions: [
          `defaultNetwork: "localhost",`,
          `networks: Networks.withLocalDeployment({ rpc: "${url}", paymentContract: "${deployment.payment}",`,
          `  usdc: { address: Address.EvmAddress.make("${deployment.usdc}"), decimals: ${localTokens.usdc.decimals} },`,
          `  dai: { address: Address.EvmAddress.make("${deployment.dai}"), decimals: ${localTokens.dai.decimals} } })`
        ],
        json: {
          url,
          chainId,
          payment: deployment.payment,
          usdc: { address: deployment.usdc, decimals: localTokens.usdc.decimals },
          dai: { address: deployment.dai, decimals: localTokens.dai.decimals },
          x402: {
            asset: deployment.x402Usdc,
            decimals: localTokens.usdc.decimals,
            payTo: x402.payTo,
            settler: x402.settler.account.address
          },
          owner: deployment.owner,
          accounts: users
        },
        attach: (network) => {
          timer = setInterval(() => {
            // One sync at a time; a failure is reported and the next tick tries again.
            syncing = syncing.then(() =>
              network.syncPayments().catch((error: unknown) => {
                console.error(`syncPayments: ${error instanceof Error ? error.message : error}`)
              })
            )
          }, syncEveryMs)
        },
        stop: async () => {
          clearInterval(timer)
          await syncing
          await chain.stop()
        }
      }
    } catch (error) {
      await chain.stop()
      throw error
    }
  }
})

// =============================================================================
// Main
// =============================================================================

/** A service started beside the mock network, with what it prints and how it stops. */
interface StartedExtension {
  readonly id: string
  readonly name: string
  readonly stop: () => Promise<void>
  readonly lines: ReadonlyArray<string>
  readonly json: unknown
  readonly layerOptions: ReadonlyArray<string>
  readonly attach: ((network: MockNetwork) => void) | undefined
}

/** Stops started services in reverse order. */
const stopAll = async (started: ReadonlyArray<StartedExtension>) => {
  for (const service of [...started].reverse()) await service.stop()
}

/** Starts the extensions in order, merging their mock-network options; on a failure stops those started. */
const startExtensions = async (
  extensions: ReadonlyArray<ServeExtension>
): Promise<{ readonly started: Array<StartedExtension>; readonly options: MockNetworkOptions }> => {
  const started: Array<StartedExtension> = []
  let options: MockNetworkOptions = {}
  try {
    for (const extension of extensions) {
      const running = await extension.start()
      options = { ...options, ...running.options }
      started.push({
        id: extension.id,
        name: extension.name,
        stop: running.stop,
        lines: running.lines ?? [],
        json: running.json,
        layerOptions: running.layerOptions ?? [],
        attach: running.attach
      })
    }
  } catch (error) {
    await stopAll(started)
    throw error
  }
  return { started, options }
}

/** The mock network over HTTP with the command line's ports and limits; a route that throws is logged. */
const serveNetwork = (command: ServeCommand, options: MockNetworkOptions) =>
  serveMockNetwork({
    logRouteErrors: logRouteErrorsToConsole,
    ...options,
    bind: command.bind,
    ports: command.ports,
    ...(command.stateDir === undefined ? {} : { stateDir: command.stateDir }),
    collectGarbage: command.gc,
    ...(command.pageSize === undefined ? {} : { pageSize: command.pageSize }),
    ...(command.dataLimit === undefined ? {} : { defaultDataLimit: command.dataLimit }),
    gateways: command.gateways.map((_, i) => extraGatewayHost(i))
  })

/** The host the `i`th `--gateway` answers as (a reserved name: it stands for no real host). */
const extraGatewayHost = (i: number) => `https://gateway-${i + 1}.invalid`

/** Arms each `--gateway`'s faults on its gateway. */
const armGateways = (command: ServeCommand, served: Served) => {
  for (const [i, faults] of command.gateways.entries()) armGatewayFaults(served.network.gateways[i]!.faults, faults)
}

/** A `--gateway`'s faults, as text. */
const faultsText = (faults: ReadonlyArray<FaultKind>) =>
  faults.length === 0 ? "honest" : faults.map(gatewayFaultText).join(",")

type Served = Awaited<ReturnType<typeof serveNetwork>>

/** What `--gc` did, in a line. */
const garbageLine = (garbage: NonNullable<Served["garbage"]>) =>
  "refused" in garbage
    ? `nothing removed: ${garbage.refused}`
    : `${garbage.removed} unreferenced blocks removed, ${garbage.kept} kept`

/** Everything served, as one JSON line (`--json`). */
const readyJson = (
  command: ServeCommand,
  served: Served,
  seeded: ReadonlyArray<{ readonly address: string; readonly apiKey: string }>,
  started: ReadonlyArray<StartedExtension>
) =>
  JSON.stringify({
    urls: served.urls,
    ports: portsOf(served.urls),
    gateways: served.gatewayUrls.map((url, i) => ({ url, faults: command.gateways[i]!.map(gatewayFaultText) })),
    hosts: served.network.hosts,
    storage: served.network.storage,
    ...(served.garbage === undefined ? {} : { garbage: served.garbage }),
    clock: `${served.urls.api}${devClockPath}`,
    accounts: seeded,
    ...Object.fromEntries(started.map((service) => [service.id, service.json]))
  })

/**
 * A program's lines that build the client's layer for what is served; they compile under `strict`
 * (the deployment's token addresses are made `EvmAddress`es, which `withLocalDeployment` takes).
 */
const layerSnippet = (urls: Served["urls"], started: ReadonlyArray<StartedExtension>) => {
  const networkLines = started.flatMap((service) => service.layerOptions)
  return [
    `import { ${networkLines.length === 0 ? "Lighthouse" : "Address, Lighthouse, Networks"} } from "lighthouse-effect"`,
    "const layer = Lighthouse.layer({",
    `  hosts: { api: "${urls.api}", node: "${urls.node}",`,
    `    gateway: "${urls.gateway}", encryption: "${urls.encryption}" },`,
    ...networkLines.map((line) => `  ${line}`),
    "})"
  ]
}

/** What is served, as text for a person. */
const readyBanner = (
  command: ServeCommand,
  served: Served,
  seeded: ReadonlyArray<{ readonly address: string; readonly apiKey: string }>,
  started: ReadonlyArray<StartedExtension>
) => {
  const { urls } = served
  return [
    "lighthouse-effect local network",
    ...HostNames.map((host) => `  ${host.padEnd(11)} ${urls[host]}  (answers as ${served.network.hosts[host]})`),
    ...served.gatewayUrls.map(
      (url, i) =>
        `  ${(i === 0 ? "gateways" : "").padEnd(11)} ${url}  ${faultsText(command.gateways[i]!)}, same content`
    ),
    command.stateDir === undefined
      ? "  state       in memory: every block in this process's heap, all gone at exit (--state-dir DIR keeps it)"
      : `  state       ${command.stateDir} (blocks/ and state.sqlite, kept across restarts; the chain is not)`,
    ...(served.garbage === undefined ? [] : [`  gc          ${garbageLine(served.garbage)}`]),
    ...seeded.map((account) => `  account     ${account.address}  API key ${account.apiKey}`),
    `  clock       ${urls.api}${devClockPath}  (GET it; POST {"advanceMs": 3600000} or {"freeze": true} to move it)`,
    ...started.flatMap((service) => [`  ${service.name}`, ...service.lines.map((line) => `    ${line}`)]),
    "Point a client at it:",
    ...layerSnippet(urls, started).map((line) => `  ${line}`),
    `  or LIGHTHOUSE_API_URL=${urls.api} LIGHTHOUSE_NODE_URL=${urls.node}`,
    `     LIGHTHOUSE_GATEWAY_URL=${urls.gateway} LIGHTHOUSE_ENCRYPTION_URL=${urls.encryption}`,
    ...(served.gatewayUrls.length === 0
      ? []
      : [
          "Download from every gateway at once (Download options):",
          `  { sources: ${JSON.stringify([urls.gateway, ...served.gatewayUrls])}, strategy: "split" }`
        ]),
    "Ctrl-C to stop."
  ].join("\n")
}

/** Starts the chain (unless `--no-chain`) and the network; prints where they are; stops on SIGINT/SIGTERM. */
const serve = async (command: ServeCommand) => {
  /** Services started beside the mock network, in order; stopped in reverse order. */
  const extensions: Array<ServeExtension> = []
  if (command.chainPort !== undefined) extensions.push(localChain(command.bind, command.chainPort))
  const { started, options } = await startExtensions(extensions)
  const served = await serveNetwork(command, options).catch(async (error: unknown) => {
    await stopAll(started)
    throw error
  })
  for (const service of started) service.attach?.(served.network)
  armGateways(command, served)

  const seeded = command.seeds.map(({ address, apiKey }) =>
    served.network.seedAccount(address, apiKey === undefined ? {} : { apiKey })
  )
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await served.close()
    await stopAll(started)
    process.exit(0)
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
  console.log(
    command.json ? readyJson(command, served, seeded, started) : readyBanner(command, served, seeded, started)
  )
}

const main = async () => {
  const command = readCommand(process.argv.slice(2))
  if (command === "help") {
    console.log(usage)
    return
  }
  const unavailable = await unavailablePorts(command)
  if (unavailable.length > 0) {
    for (const line of unavailable) console.error(line)
    process.exit(1)
  }
  await serve(command)
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message} (npm run serve -- --help lists the options)`)
    process.exit(2)
  }
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
