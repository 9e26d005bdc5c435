/**
 * The test harness of the transfer services: the whole mock network on msw in this process, a
 * log of every request it sees (method, URL, headers and, for small bodies, the text), and the
 * library's layers wired to it. Key-node calls run without pauses (`pause: 0`) so no test waits
 * on the clock; everything else is the production configuration.
 */
import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import { createMockNetwork, type MockNetworkOptions } from "lighthouse-effect/mocks"
import { http } from "msw"
import { setupServer } from "msw/node"
import { afterAll, beforeAll, beforeEach } from "vitest"
import * as Auth from "../../src/Auth.ts"
import * as Download from "../../src/Download.ts"
import * as Files from "../../src/Files.ts"
import * as Ipns from "../../src/Ipns.ts"
import * as Nodes from "../../src/KeyNodes.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as Config from "../../src/LighthouseConfig.ts"
import * as Signer from "../../src/Signer.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, bob } from "../support/accounts.ts"

export interface Logged {
  readonly method: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  /** The body's bytes (`undefined` without a body, or with `captureBodies: false`). */
  readonly body: Uint8Array | undefined
}

/** Well-known test wallets (Hardhat's). */
export { alice, bob }
export const aliceSigner = Signer.makeFromAccount(alice)
export const bobSigner = Signer.makeFromAccount(bob)

/** A logged body as UTF-8 text. */
export const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes)

/** Starts the mock network for the current test file; resets it before each test. */
export const makeHarness = (options: MockNetworkOptions & { readonly captureBodies?: boolean } = {}) => {
  const network = createMockNetwork(options)
  const log: Array<Logged> = []
  // First in line: reads the whole body (tests send small ones), logs, and lets the mock answer.
  const spy = http.all("*", async ({ request }) => {
    let body: Uint8Array | undefined
    if ((options.captureBodies ?? true) && request.body !== null) {
      body = await request
        .clone()
        .arrayBuffer()
        .then(
          (buffer) => new Uint8Array(buffer),
          () => undefined
        )
    }
    log.push({ method: request.method, url: new URL(request.url), headers: Object.fromEntries(request.headers), body })
    return undefined
  })
  const server = setupServer(spy, ...network.handlers)
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
  afterAll(() => server.close())
  beforeEach(() => {
    network.reset()
    log.length = 0
  })

  /**
   * The library's layers over this network, with key-node policy overrides, over `fetch` (the
   * default) or `node:http` (what Node applications should give uploads).
   */
  const layerWith = (nodes: Config.PartialOptions["nodes"] = {}, transport: "fetch" | "node:http" = "fetch") => {
    const base = Layer.mergeAll(
      Config.layer({ nodes: { pause: 0, retryDelay: 0, ...nodes } }),
      // Lighthouse.httpLayer looks `fetch` up per call: msw replaces it when it starts.
      transport === "fetch" ? Lighthouse.httpLayer : NodeHttpClient.layerNodeHttp,
      NodeFileSystem.layer
    )
    const keys = KeyShards.layer.pipe(Layer.provideMerge(Auth.layer())).pipe(Layer.provideMerge(Nodes.layer))
    return Layer.mergeAll(Upload.layer, Download.layer, Files.layer, Ipns.layer).pipe(
      Layer.provideMerge(keys),
      Layer.provideMerge(base)
    )
  }
  const layer = layerWith()
  return { network, server, log, layer, layerWith }
}
