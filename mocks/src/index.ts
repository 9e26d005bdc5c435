/**
 * The local network: msw handlers and in-memory state for the provider's API host, upload node,
 * gateway and 5 key nodes, with fault injection and a real HTTP server mode.
 *
 * Environment-specific starters live in their own entry points: `./node.ts` (`startMockNetwork`,
 * msw `setupServer`), `./browser.ts` (`startMockWorker`, msw `setupWorker`) and `./server/serve.ts`
 * (`serveMockNetwork`, a real HTTP server on 127.0.0.1).
 *
 * @since 0.1.0
 */
export {
  createMockNetwork,
  type MockHosts,
  type MockNetwork,
  type MockNetworkOptions,
  type MockNetworkState,
  type SeedAccountOptions
} from "./MockNetwork.ts"
export { type Account, Accounts, DefaultDataLimit, type QuotaUpdate } from "./api/Accounts.ts"
export { type Deal, type DealOptions, Deals, dealStatusEntry, proofResponse } from "./api/Deals.ts"
export { type FileRecord, Files } from "./api/Files.ts"
export { type IpnsKey, IpnsKeys, ipnsIdOf } from "./api/Ipns.ts"
export {
  BytesPerUsd,
  bytesForPayment,
  type Credit,
  Payments,
  type PaymentsOptions,
  receivedPaymentAbi,
  type SyncResult
} from "./api/Payments.ts"
export * as Podsi from "./api/Podsi.ts"
export { DefaultPrices, Tickers } from "./api/Tickers.ts"
export * from "./faults/index.ts"
export { makeKeyNodes, type KeyNodes, type KeyNodesOptions } from "./keyNodes/index.ts"
export { ContentStore } from "./upload/ContentStore.ts"
export { type AddSettings, addAll, importerOptions } from "./upload/Unixfs.ts"
export { chainOptions } from "./chain/ChainOptions.ts"
