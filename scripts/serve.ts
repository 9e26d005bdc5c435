/**
 * `npm run serve`: the local network on 127.0.0.1 until Ctrl-C, for clients in any language. The
 * mock network (one port per host), and beside it a local chain served over HTTP JSON-RPC with the
 * payment contract and two stablecoins deployed. Prints where each host listens, which production
 * host it stands for, the deployment's addresses, and how to point a client at all of it.
 *
 * Options (all optional): `--bind 127.0.0.1`, `--api-port N` (default 8731), `--node-port N`
 * (8732), `--gateway-port N` (8733), `--encryption-port N` (8734) — 0 picks a free port, and
 * `--free-ports` does so for all four —, `--chain-port N` (default 8545, the `localhost` network's
 * RPC; 0: a free port), `--no-chain`, `--state-dir DIR` (blocks and state kept there across
 * restarts; without it everything is in memory and gone at exit), `--gc` (before serving, delete the
 * blocks no upload record or IPNS value reaches: what an upload killed half-way left, deleted
 * files' blocks), `--page-size N`,
 * `--data-limit BYTES`, `--seed ADDRESS[:APIKEY]` (repeatable) to create accounts at start, and
 * `--json` to print the addresses as one JSON line instead of the banner. A port already taken
 * ends the command with one line naming it.
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
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { deployLocal, localTokens } from "lighthouse-effect/contracts"
import { HostNames, type HostName, type MockNetwork, type MockNetworkOptions } from "lighthouse-effect/mocks"
import { DefaultPorts, devClockPath, serveMockNetwork } from "lighthouse-effect/mocks/server"
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
    /** Lines added to the `Lighthouse.layer({ … })` options the banner suggests. */
    readonly layerOptions?: ReadonlyArray<string>
    /** Called once the network is up. */
    readonly attach?: (network: MockNetwork) => void
    readonly stop: () => Promise<void>
  }>
}

const { values } = parseArgs({
  options: {
    bind: { type: "string", default: "127.0.0.1" },
    "api-port": { type: "string" },
    "node-port": { type: "string" },
    "gateway-port": { type: "string" },
    "encryption-port": { type: "string" },
    "chain-port": { type: "string", default: "8545" },
    "no-chain": { type: "boolean", default: false },
    "free-ports": { type: "boolean", default: false },
    "state-dir": { type: "string" },
    gc: { type: "boolean", default: false },
    "page-size": { type: "string" },
    "data-limit": { type: "string" },
    seed: { type: "string", multiple: true },
    json: { type: "boolean", default: false }
  },
  strict: true
})

/** The port of each served URL. */
const portsOf = (urls: Readonly<Record<HostName, string>>) =>
  Object.fromEntries(HostNames.map((host) => [host, Number(new URL(urls[host]).port)]))

const integer = (name: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`--${name} must be a non-negative integer, got ${text}`)
  return value
}

// =============================================================================
// The local chain
// =============================================================================

/** How often the API reads new `ReceivedPayment` events (the provider's back office does it on its own). */
const syncEveryMs = 500

/**
 * The in-process Hardhat chain served over HTTP, with `LighthousePayment`, a 6-decimal USDC and an
 * 18-decimal DAI deployed; the mock's key nodes evaluate EVM conditions on it and its API credits
 * payments to the contract as they are mined.
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

      let timer: ReturnType<typeof setInterval> | undefined
      let syncing: Promise<unknown> = Promise.resolve()
      return {
        options: chainOptions(chain.publicClient, deployment),
        lines: [
          `rpc         ${url}  chain id ${chainId} (Hardhat EDR, every transaction mined at once)`,
          `payment     ${deployment.payment}  LighthousePayment, owner ${deployment.owner}`,
          `usdc        ${deployment.usdc}  ${localTokens.usdc.decimals} decimals, open mint(to, amount)`,
          `dai         ${deployment.dai}  ${localTokens.dai.decimals} decimals, open mint(to, amount)`,
          `accounts    ${chain.accounts.length} with 10000 ETH each (Hardhat's public test mnemonic), e.g.`,
          ...users.map((user) => `            ${user.address}  key ${user.privateKey}`),
          `payments    ReceivedPayment events raise the payer's data limit within ${syncEveryMs} ms`
        ],
        layerOptions: [
          `defaultNetwork: "localhost",`,
          `networks: withLocalDeployment({ rpc: "${url}", paymentContract: "${deployment.payment}",`,
          `  usdc: { address: "${deployment.usdc}", decimals: ${localTokens.usdc.decimals} },`,
          `  dai: { address: "${deployment.dai}", decimals: ${localTokens.dai.decimals} } })`
        ],
        json: {
          url,
          chainId,
          payment: deployment.payment,
          usdc: { address: deployment.usdc, decimals: localTokens.usdc.decimals },
          dai: { address: deployment.dai, decimals: localTokens.dai.decimals },
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

const stateDir = values["state-dir"] === undefined ? undefined : resolve(values["state-dir"])

/** The mock network over HTTP with the command line's ports and limits. */
const serveNetwork = (options: MockNetworkOptions) => {
  const ports: Record<HostName, number> = { ...DefaultPorts }
  for (const host of HostNames) {
    const port = integer(`${host}-port`, values[`${host}-port`])
    ports[host] = port ?? (values["free-ports"] ? 0 : DefaultPorts[host])
  }
  const pageSize = integer("page-size", values["page-size"])
  const dataLimit = integer("data-limit", values["data-limit"])
  return serveMockNetwork({
    ...options,
    bind: values.bind,
    ports,
    ...(stateDir === undefined ? {} : { stateDir }),
    collectGarbage: values.gc,
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(dataLimit === undefined ? {} : { defaultDataLimit: dataLimit })
  })
}

type Served = Awaited<ReturnType<typeof serveNetwork>>

/** What `--gc` did, in a line. */
const garbageLine = (garbage: NonNullable<Served["garbage"]>) =>
  "refused" in garbage
    ? `nothing removed: ${garbage.refused}`
    : `${garbage.removed} unreferenced blocks removed, ${garbage.kept} kept`

/** What is served, as one JSON line (`--json`) or as text for a person. */
const printReady = (
  served: Served,
  seeded: ReadonlyArray<{ readonly address: string; readonly apiKey: string }>,
  started: ReadonlyArray<StartedExtension>
) => {
  if (values.json) {
    console.log(
      JSON.stringify({
        urls: served.urls,
        ports: portsOf(served.urls),
        hosts: served.network.hosts,
        storage: served.network.storage,
        ...(served.garbage === undefined ? {} : { garbage: served.garbage }),
        clock: `${served.urls.api}${devClockPath}`,
        accounts: seeded,
        ...Object.fromEntries(started.map((service) => [service.id, service.json]))
      })
    )
    return
  }
  const { urls } = served
  const lines = [
    "lighthouse-effect local network",
    ...HostNames.map((host) => `  ${host.padEnd(11)} ${urls[host]}  (answers as ${served.network.hosts[host]})`),
    stateDir === undefined
      ? "  state       in memory: every block in this process's heap, all gone at exit (--state-dir DIR keeps it)"
      : `  state       ${stateDir} (blocks/ and state.sqlite, kept across restarts)`,
    ...(served.garbage === undefined ? [] : [`  gc          ${garbageLine(served.garbage)}`]),
    ...seeded.map((account) => `  account     ${account.address}  API key ${account.apiKey}`),
    `  clock       ${urls.api}${devClockPath}  (GET it; POST {"advanceMs": 3600000} or {"freeze": true} to move it)`,
    ...started.flatMap((service) => [`  ${service.name}`, ...service.lines.map((line) => `    ${line}`)]),
    "Point a client at it:",
    "  Lighthouse.layer({",
    `    hosts: { api: "${urls.api}", node: "${urls.node}",`,
    `      gateway: "${urls.gateway}", encryption: "${urls.encryption}" },`,
    ...started.flatMap((service) => service.layerOptions.map((line) => `    ${line}`)),
    "  })",
    `  or LIGHTHOUSE_API_URL=${urls.api} LIGHTHOUSE_NODE_URL=${urls.node}`,
    `     LIGHTHOUSE_GATEWAY_URL=${urls.gateway} LIGHTHOUSE_ENCRYPTION_URL=${urls.encryption}`,
    "Ctrl-C to stop."
  ]
  console.log(lines.join("\n"))
}

const main = async () => {
  /** Services started beside the mock network, in order; stopped in reverse order. */
  const extensions: Array<ServeExtension> = []
  if (!values["no-chain"]) extensions.push(localChain(values.bind, integer("chain-port", values["chain-port"]) ?? 8545))
  const { started, options } = await startExtensions(extensions)
  const served = await serveNetwork(options).catch(async (error: unknown) => {
    await stopAll(started)
    throw error
  })
  for (const service of started) service.attach?.(served.network)

  const seeded = (values.seed ?? []).map((entry) => {
    const [address = "", apiKey] = entry.split(":")
    return served.network.seedAccount(address, apiKey === undefined ? {} : { apiKey })
  })
  printReady(served, seeded, started)

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
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
