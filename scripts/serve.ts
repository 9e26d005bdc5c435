/**
 * `npm run serve`: the mock network on 127.0.0.1 until Ctrl-C, one port per host, for clients in
 * any language. Prints where each host listens and which production host it stands for.
 *
 * Options (all optional): `--bind 127.0.0.1`, `--api-port N`, `--node-port N`, `--gateway-port N`,
 * `--encryption-port N` (0 or absent: a free port), `--page-size N`, `--data-limit BYTES`, and
 * `--seed ADDRESS[:APIKEY]` (repeatable) to create accounts at start.
 *
 * Services started beside the network (the local chain) plug in through `extensions` below: each
 * contributes network options (e.g. `chain`, `payments`), lines for the banner, and a stop.
 */
import { parseArgs } from "node:util"
import type { HostName } from "../mocks/src/faults/index.ts"
import { HostNames } from "../mocks/src/faults/index.ts"
import type { MockNetworkOptions } from "../mocks/src/MockNetwork.ts"
import { serveMockNetwork } from "../mocks/src/server/serve.ts"

/** Something started with the mock network and stopped with it. */
interface ServeExtension {
  readonly name: string
  readonly start: () => Promise<{
    /** Merged into the mock network's options. */
    readonly options?: Partial<MockNetworkOptions>
    /** Printed under the hosts. */
    readonly lines?: ReadonlyArray<string>
    readonly stop: () => Promise<void>
  }>
}

/** Services started beside the mock network, in order; stopped in reverse order. */
const extensions: Array<ServeExtension> = []

const { values } = parseArgs({
  options: {
    bind: { type: "string", default: "127.0.0.1" },
    "api-port": { type: "string" },
    "node-port": { type: "string" },
    "gateway-port": { type: "string" },
    "encryption-port": { type: "string" },
    "page-size": { type: "string" },
    "data-limit": { type: "string" },
    seed: { type: "string", multiple: true }
  },
  strict: true
})

const integer = (name: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`--${name} must be a non-negative integer, got ${text}`)
  return value
}

const main = async () => {
  const started: Array<{ name: string; stop: () => Promise<void>; lines: ReadonlyArray<string> }> = []
  let options: MockNetworkOptions = {}
  for (const extension of extensions) {
    const running = await extension.start()
    options = { ...options, ...running.options }
    started.push({ name: extension.name, stop: running.stop, lines: running.lines ?? [] })
  }

  const ports: Partial<Record<HostName, number>> = {}
  for (const host of HostNames) {
    const port = integer(`${host}-port`, values[`${host}-port`])
    if (port !== undefined) ports[host] = port
  }
  const pageSize = integer("page-size", values["page-size"])
  const dataLimit = integer("data-limit", values["data-limit"])
  const served = await serveMockNetwork({
    ...options,
    bind: values.bind,
    ports,
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(dataLimit === undefined ? {} : { defaultDataLimit: dataLimit })
  })

  const seeded = (values.seed ?? []).map((entry) => {
    const [address = "", apiKey] = entry.split(":")
    return served.network.seedAccount(address, apiKey === undefined ? {} : { apiKey })
  })

  const lines = [
    "lighthouse-effect mock network",
    ...HostNames.map((host) => `  ${host.padEnd(11)} ${served.urls[host]}  (answers as ${served.network.hosts[host]})`),
    ...seeded.map((account) => `  account     ${account.address}  API key ${account.apiKey}`),
    ...started.flatMap((service) => [`  ${service.name}`, ...service.lines.map((line) => `    ${line}`)]),
    "Ctrl-C to stop."
  ]
  console.log(lines.join("\n"))

  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await served.close()
    for (const service of started.reverse()) await service.stop()
    process.exit(0)
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
