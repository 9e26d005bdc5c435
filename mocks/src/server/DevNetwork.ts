/**
 * The local network for development, as `lighthouse-effect dev` and `npm run serve` start it: the
 * mock network on one port per host, extra gateways with faults of their own, and beside it (unless
 * left out) a local chain served over HTTP JSON-RPC with the payment contract and two stablecoins
 * deployed. What it prints: where each host listens, which production host it stands for, the
 * deployment's addresses, and how to point a client at all of it (a banner, or one JSON value).
 *
 * Every fixed port is tried before anything starts (each one taken: one line naming it and the flag
 * that moves it). Loaded only when the network is started (`DevCommand.ts` imports it lazily): the
 * chain itself only when asked for.
 *
 * Services started beside the network (the local chain) plug in through `extensions`: each
 * contributes network options (e.g. `chain`, `payments`), lines for the banner, fields for the
 * JSON, a hook on the running network, and a stop.
 */
import { createServer } from "node:net"
import { resolve } from "node:path"
import { deployLocal, localTokens } from "lighthouse-effect/contracts"
import { chainOptions } from "../chain/ChainOptions.ts"
import { type FaultKind, type HostName, HostNames } from "../faults/Faults.ts"
import { logRouteErrorsToConsole } from "../http/Guard.ts"
import type { MockNetwork, MockNetworkOptions } from "../MockNetwork.ts"
import { devClockPath } from "./DevClock.ts"
import { DevNetworkError } from "./DevCommand.ts"
import { docsPath } from "./Docs.ts"
import type { Drift } from "./Drift.ts"
import { armGatewayFaults, gatewayFaultText, parseGatewayFaults } from "./GatewayFaults.ts"
import { DefaultPorts, PortInUse, serveMockNetwork } from "./serve.ts"

/** What the network is started with, every value checked. */
export interface DevNetworkOptions {
  readonly bind: string
  /** A host not given one listens on its default port, or on a free one with `freePorts`. */
  readonly ports: Readonly<Record<HostName, number | undefined>>
  readonly freePorts: boolean
  /** `undefined`: no chain. */
  readonly chainPort: number | undefined
  readonly stateDir: string | undefined
  readonly gc: boolean
  readonly pageSize: number | undefined
  readonly dataLimit: number | undefined
  readonly seeds: ReadonlyArray<{ readonly address: string; readonly apiKey: string | undefined }>
  /** The text of each `--gateway`, in order. */
  readonly gateways: ReadonlyArray<string>
  /** `--drift`: answers that depart from the contract on purpose (`Drift.ts`). */
  readonly drift?: ReadonlyArray<Drift>
}

/** The network started: what it prints (a banner, or one JSON value), and its stop. */
export interface DevNetwork {
  readonly banner: string
  readonly json: Record<string, unknown>
  readonly close: () => Promise<void>
}

/** The checked command line, with each host's port and each `--gateway`'s faults. */
interface ServeCommand extends Omit<DevNetworkOptions, "ports"> {
  readonly ports: Readonly<Record<HostName, number>>
  readonly faults: ReadonlyArray<ReadonlyArray<FaultKind>>
}

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
     * Lines added to the `LighthouseNode.layer({ … })` options the banner suggests; they may use
     * `Networks` and `Address` from `lighthouse-effect`.
     */
    readonly layerOptions?: ReadonlyArray<string>
    /** Called once the network is up. */
    readonly attach?: (network: MockNetwork) => void
    readonly stop: () => Promise<void>
  }>
}

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
    // Hardhat is loaded only for a chain: `--no-chain` needs none installed.
    const { startLocalChain } = await import("../chain/LocalChain.ts")
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
    gateways: command.gateways.map((_, i) => extraGatewayHost(i)),
    ...(command.drift === undefined ? {} : { drift: command.drift })
  })

/** The host the `i`th `--gateway` answers as (a reserved name: it stands for no real host). */
const extraGatewayHost = (i: number) => `https://gateway-${i + 1}.invalid`

/** Arms each `--gateway`'s faults on its gateway. */
const armGateways = (command: ServeCommand, served: Served) => {
  for (const [i, faults] of command.faults.entries()) armGatewayFaults(served.network.gateways[i]!.faults, faults)
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
) => ({
  urls: served.urls,
  ports: portsOf(served.urls),
  gateways: served.gatewayUrls.map((url, i) => ({ url, faults: command.faults[i]!.map(gatewayFaultText) })),
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
    ...(networkLines.length === 0 ? [] : ['import { Address, Networks } from "lighthouse-effect"']),
    'import * as LighthouseNode from "lighthouse-effect/node"',
    "const layer = LighthouseNode.layer({",
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
      (url, i) => `  ${(i === 0 ? "gateways" : "").padEnd(11)} ${url}  ${faultsText(command.faults[i]!)}, same content`
    ),
    command.stateDir === undefined
      ? "  state       in memory: every block in this process's heap, all gone at exit (--state-dir DIR keeps it)"
      : `  state       ${command.stateDir} (blocks/ and state.sqlite, kept across restarts; the chain is not)`,
    ...(served.garbage === undefined ? [] : [`  gc          ${garbageLine(served.garbage)}`]),
    ...seeded.map((account) => `  account     ${account.address}  API key ${account.apiKey}`),
    `  clock       ${urls.api}${devClockPath}  (GET it; POST {"advanceMs": 3600000} or {"freeze": true} to move it)`,
    `  reference   ${urls.api}${docsPath}  (the API as the contract declares it; lighthouse-effect doctor checks a network against it)`,
    ...(command.drift === undefined || command.drift.length === 0
      ? []
      : [`  drift       ${command.drift.join(", ")}: answers unlike the contract on purpose`]),
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

/** One `--gateway`'s faults; refused with a line naming the flag's text when they cannot be served. */
const gatewayFaults = (text: string): ReadonlyArray<FaultKind> => {
  try {
    return parseGatewayFaults(text)
  } catch (error) {
    throw new DevNetworkError({
      reason: "usage",
      lines: [`--gateway ${text}: ${error instanceof Error ? error.message : String(error)}`]
    })
  }
}

/** The variables that point the command line (and the library's `layerConfig`) at `urls`. */
const envOf = (urls: Served["urls"]) => ({
  LIGHTHOUSE_API_URL: urls.api,
  LIGHTHOUSE_NODE_URL: urls.node,
  LIGHTHOUSE_GATEWAY_URL: urls.gateway,
  LIGHTHOUSE_ENCRYPTION_URL: urls.encryption
})

/**
 * Starts the chain (unless `chainPort` is undefined) and the network, seeds the accounts and arms
 * the extra gateways; refused before anything starts when a port is taken or a `--gateway` cannot
 * be served.
 */
export const startDevNetwork = async (options: DevNetworkOptions): Promise<DevNetwork> => {
  const ports = Object.fromEntries(
    HostNames.map((host) => [host, options.ports[host] ?? (options.freePorts ? 0 : DefaultPorts[host])])
  ) as Record<HostName, number>
  const stateDir = options.stateDir === undefined ? undefined : resolve(options.stateDir)
  const command: ServeCommand = { ...options, ports, stateDir, faults: options.gateways.map(gatewayFaults) }
  const unavailable = await unavailablePorts(command)
  if (unavailable.length > 0) throw new DevNetworkError({ reason: "unavailable", lines: unavailable })
  const extensions = command.chainPort === undefined ? [] : [localChain(command.bind, command.chainPort)]
  const { started, options: extended } = await startExtensions(extensions)
  const served = await serveNetwork(command, extended).catch(async (error: unknown) => {
    await stopAll(started)
    throw error
  })
  for (const service of started) service.attach?.(served.network)
  armGateways(command, served)
  const seeded = command.seeds.map(({ address, apiKey }) =>
    served.network.seedAccount(address, apiKey === undefined ? {} : { apiKey })
  )
  return {
    banner: readyBanner(command, served, seeded, started),
    json: { ...readyJson(command, served, seeded, started), env: envOf(served.urls) },
    close: async () => {
      await served.close()
      await stopAll(started)
    }
  }
}
