/**
 * The mock network inside a Node process: msw's `setupServer` over the network's handlers, so
 * `fetch`, `http`/`https` (the provider SDK's streaming upload) and every client built on them
 * reach the mock hosts.
 *
 * ```ts
 * import { startMockNetwork } from "lighthouse-effect/mocks/node"
 *
 * const { network, close } = startMockNetwork({ onUnhandledFrame: "error" })
 * // … run clients against the production host names …
 * close()
 * ```
 *
 * It may start before or after the library's clients are built or used: `Lighthouse.layer` and
 * `createLighthouse` look `globalThis.fetch` up on every request, and `LighthouseNode.layer` and
 * `createLighthouseNode` call `node:http`, which msw patches in place; requests made while it runs
 * reach it, and after `close()` they go to the real hosts again. Only an HTTP client of one's own
 * over Effect's `FetchHttpClient.layer`, without a `Fetch` of its own, reads `globalThis.fetch` once,
 * on its first request: start the network before that one.
 */
import type { UnhandledFrameHandle } from "msw"
import { type SetupServer, setupServer } from "msw/node"
import { createMockNetwork, type MockNetwork, type MockNetworkOptions } from "./MockNetwork.ts"
import { UnsupportedNode } from "./NodeSupport.ts"
import { openNetworkStorage } from "./storage/OnDisk.ts"

export { UnsupportedNode } from "./NodeSupport.ts"
export { type DiskStorage, openNetworkStorage } from "./storage/OnDisk.ts"

/** The options, with `storage` on disk under `stateDir` when one is given. */
export const withStateDir = (options: MockNetworkOptions & { readonly stateDir?: string }): MockNetworkOptions =>
  options.stateDir === undefined ? options : { ...options, storage: openNetworkStorage(options.stateDir) }

export interface StartMockNetworkOptions extends MockNetworkOptions {
  /** Serve this network instead of creating one from the other options. */
  readonly network?: MockNetwork
  /**
   * What happens to requests no handler answers (other hosts, a local chain's RPC). Default
   * `"bypass"`: they go to the real network.
   */
  readonly onUnhandledFrame?: UnhandledFrameHandle
  /**
   * Keep blocks and state under this directory (`blocks/`, `state.sqlite`): a network started again
   * with the same directory has every account, API key, upload and key shard it had. It needs
   * `node:sqlite` (Node ≥ 22.13); on an older Node, `UnsupportedNode` says so.
   */
  readonly stateDir?: string
}

export interface RunningMockNetwork {
  readonly network: MockNetwork
  readonly server: SetupServer
  /** Stops intercepting. */
  readonly close: () => void
}

/**
 * msw 3 intercepts `fetch` and `node:http` with Node 22's `Promise.withResolvers`: on Node 20 the
 * server starts, then every request fails as a bare "fetch failed". Said here instead, once.
 */
const requireInterceptingNode = () => {
  if (!("withResolvers" in Promise))
    throw new UnsupportedNode(
      "startMockNetwork",
      "22.12",
      "for msw 3, which intercepts requests with Promise.withResolvers"
    )
}

/** Starts intercepting; `UnsupportedNode` on a Node msw cannot intercept on (Node 20). */
export const startMockNetwork = (options: StartMockNetworkOptions = {}): RunningMockNetwork => {
  requireInterceptingNode()
  const network = options.network ?? createMockNetwork(withStateDir(options))
  const server = setupServer(...network.handlers)
  server.listen({ onUnhandledFrame: options.onUnhandledFrame ?? "bypass" })
  return {
    network,
    server,
    close: () => {
      server.close()
      if (options.network === undefined) network.close()
    }
  }
}
