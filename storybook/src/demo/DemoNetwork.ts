/**
 * A fresh offline network for each story: the mock API, upload nodes, gateways and 5 key nodes
 * (msw handlers of `createMockNetwork`), Alice's and Bob's accounts with fixed API keys, and a
 * new library runtime pointed at it. Stories arrange faults and files through `demo()`.
 *
 * ```ts
 * const meta = preview.meta({ component: UploadFiles, beforeEach: startDemo(), decorators: [withDemoRuntime] })
 * export const NodeDown = meta.story({ beforeEach: () => { demo().network.faults.down({ host: "encryption", node: 3 }) } })
 * ```
 */
import type { Effect } from "effect"
import type { LocalDeployment } from "lighthouse-effect/contracts"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import { type HttpHandler, http } from "msw"
import { type LighthouseRuntime, type LighthouseServices, makeRuntime } from "../runtime/LighthouseLayer.ts"
import { mockOptionsFor, networksFor, publicClient, x402OptionsFor } from "./chain.ts"
import { alice, bob } from "./wallets.ts"

export interface Demo {
  readonly network: MockNetwork
  readonly runtime: LighthouseRuntime
  /** Runs a library call on the demo's runtime (to arrange files before the user acts). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, LighthouseServices>) => Promise<A>
}

export interface DemoOptions {
  /** Records per uploads page. @default 2000, as the provider */
  readonly pageSize?: number
  /** Pay with the contracts of this deployment on the local chain (`localhost` network). */
  readonly deployment?: () => Promise<LocalDeployment>
  /**
   * Accept x402 uploads paid in the deployment's EIP-3009 USDC: the test accounts that submit
   * settlements (one per story file, so their nonces never race) and that are paid.
   */
  readonly x402?: { readonly settler: number; readonly payTo: number }
  /** More gateways serving the same content, each with faults of its own (`network.gateways`). */
  readonly gateways?: ReadonlyArray<string>
}

/** What the msw addon puts in the story context. */
interface Msw {
  readonly use: (...handlers: Array<HttpHandler>) => void
}

let current: Demo | undefined

/** The demo of the story being shown. */
export const demo = (): Demo => {
  if (current === undefined) throw new Error("no demo network: add `beforeEach: startDemo()` to the story's meta")
  return current
}

/** A `beforeEach` that starts a demo network for the story and disposes of it afterwards. */
export const startDemo =
  (options: DemoOptions = {}) =>
  async ({ msw }: { readonly msw: Msw }) => {
    const deployed = await options.deployment?.()
    const nextBlock = deployed === undefined ? 0n : (await publicClient.getBlockNumber()) + 1n
    const network = createMockNetwork({
      // EVM access conditions are evaluated on the local chain.
      chain: publicClient,
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      ...(options.gateways === undefined ? {} : { gateways: options.gateways }),
      ...(deployed === undefined ? {} : mockOptionsFor(deployed, nextBlock)),
      ...(deployed === undefined || options.x402 === undefined ? {} : { x402: x402OptionsFor(deployed, options.x402) })
    })
    network.seedAccount(alice.address, { apiKey: alice.apiKey })
    network.seedAccount(bob.address, { apiKey: bob.apiKey })
    const handlers = [...network.handlers]
    if (deployed !== undefined) {
      // The provider's API watches the chain for payments; the mock reads it when usage is asked for.
      // The handler answers nothing, so the request goes on to the real usage route.
      handlers.unshift(
        http.get(`${network.hosts.api}/api/user/user_data_usage`, async () => {
          await network.syncPayments()
        })
      )
    }
    msw.use(...handlers)
    const runtime = makeRuntime({
      // Quick flows: the 5 nodes at once, a short wait before a retry.
      nodes: { mode: "concurrent", retryDelay: "100 millis" },
      ...(deployed === undefined ? {} : { defaultNetwork: "localhost", networks: networksFor(deployed) })
    })
    current = { network, runtime, run: (effect) => runtime.runPromise(effect) }
    return async () => {
      current = undefined
      await runtime.dispose()
    }
  }
