/**
 * The mock network in a browser: msw's `setupWorker` over the network's handlers (Storybook,
 * demos, browser tests). The page must serve msw's `mockServiceWorker.js` (`npx msw init <dir>`).
 *
 * ```ts
 * import { startMockWorker } from "lighthouse-effect/mocks/browser"
 *
 * const { network, stop } = await startMockWorker({ start: { onUnhandledFrame: "bypass" } })
 * ```
 */
import { type SetupWorker, type StartOptions, setupWorker } from "msw/browser"
import { createMockNetwork, type MockNetwork, type MockNetworkOptions } from "./MockNetwork.ts"

export interface StartMockWorkerOptions extends MockNetworkOptions {
  /** Serve this network instead of creating one from the other options. */
  readonly network?: MockNetwork
  /** Passed to `worker.start` (service worker URL, `quiet`, …). Default `onUnhandledFrame: "bypass"`. */
  readonly start?: StartOptions
}

export interface RunningMockWorker {
  readonly network: MockNetwork
  readonly worker: SetupWorker
  readonly stop: () => void
}

export const startMockWorker = async (options: StartMockWorkerOptions = {}): Promise<RunningMockWorker> => {
  const network = options.network ?? createMockNetwork(options)
  const worker = setupWorker(...network.handlers)
  await worker.start({ onUnhandledFrame: "bypass", ...options.start })
  return { network, worker, stop: () => worker.stop() }
}
