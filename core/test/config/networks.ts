/**
 * Mock networks on several sets of hosts at once, in this process (msw), with every request logged
 * by origin, and one program that reaches all six hosts: the tests ask where requests went.
 */
import { Effect } from "effect"
import { createMockNetwork, type MockHosts, type MockNetwork } from "lighthouse-effect/mocks"
import { setupServer } from "msw/node"
import { afterAll, beforeAll, beforeEach } from "vitest"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import * as Files from "../../src/Files.ts"
import { DefaultHosts } from "../../src/LighthouseConfig.ts"
import * as Upload from "../../src/Upload.ts"

/** Six hosts under `name`: `http://api.{name}.test`, `http://node.{name}.test`, … */
export const hostsNamed = (name: string): MockHosts => ({
  api: `http://api.${name}.test`,
  node: `http://node.${name}.test`,
  gateway: `http://gateway.${name}.test`,
  encryption: `http://encryption.${name}.test`,
  walrusNode: `http://walrus-node.${name}.test`,
  walrusGateway: `http://walrus-gateway.${name}.test`
})

export const production: MockHosts = { ...DefaultHosts }

export interface Sent {
  readonly origin: string
  readonly method: string
  readonly path: string
  /** The request's header names as they reached the host, lower case and sorted. */
  readonly headers: ReadonlyArray<string>
  readonly values: Readonly<Record<string, string>>
}

/** The API key seeded on every network, and the address it belongs to. */
export const apiKey = "config-test-key"
export const address = "0x00000000000000000000000000000000000000aa"

/**
 * Serves a mock network on each set of `hosts` for the current test file (anything else is an
 * error), each with the same account, and logs every request; the log is emptied before each test.
 */
export const serveNetworks = (hosts: ReadonlyArray<MockHosts>) => {
  const networks: Array<MockNetwork> = hosts.map((h) => createMockNetwork({ hosts: h }))
  const server = setupServer(...networks.flatMap((network) => network.handlers))
  const sent: Array<Sent> = []
  server.events.on("request:start", ({ request }) => {
    const url = new URL(request.url)
    sent.push({
      origin: url.origin,
      method: request.method,
      path: url.pathname,
      headers: [...request.headers.keys()].sort(),
      values: Object.fromEntries(request.headers)
    })
  })
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
  afterAll(() => {
    server.close()
    for (const network of networks) network.close()
  })
  beforeEach(() => {
    sent.length = 0
    for (const network of networks) {
      network.reset()
      network.seedAccount(address, { apiKey, dataLimit: 1024 * 1024, walrusDataLimit: 1024 * 1024 })
    }
  })
  /** The origins reached, each once, sorted. */
  const origins = () => [...new Set(sent.map((request) => request.origin))].sort()
  return { sent, origins }
}

/** The origins of `hosts`, sorted, as `origins()` lists them. */
export const originsOf = (hosts: MockHosts) =>
  Object.values(hosts)
    .map((host) => new URL(host).origin)
    .sort()

/**
 * One request (at least) to each of the six hosts: an upload (upload node), the usage (API), a
 * download (gateway), the key nodes' sign-in message (encryption host), and a Walrus upload and
 * download (the Walrus upload node and gateway). Returns the first CID and the two texts read back.
 */
export const reachEveryHost = Effect.gen(function* () {
  const [upload, files, download, auth] = [
    yield* Upload.Upload,
    yield* Files.Files,
    yield* Download.Download,
    yield* Auth.Auth
  ]
  const entry = yield* upload.text("hello hosts\n", { apiKey, name: "hello.txt" })
  yield* files.usage(apiKey)
  const bytes = yield* download.bytes(entry.Hash)
  yield* auth.nodeMessage(address)
  const walrus = yield* upload.text("hello walrus\n", { apiKey, storageType: "walrus" })
  const walrusBytes = yield* download.bytes(walrus.Hash, { storageType: "walrus" })
  const text = new TextDecoder()
  return { cid: entry.Hash, text: text.decode(bytes), walrus: text.decode(walrusBytes) }
})
