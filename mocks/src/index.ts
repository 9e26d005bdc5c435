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
export { chainOptions, type X402Parties } from "./chain/ChainOptions.ts"
export * from "./faults/index.ts"
export { type PathGatewayContext, pathGatewayResponse } from "./gateway/PathGateway.ts"
export { logRouteErrorsToConsole, type RouteErrorLog, type RouteFailure } from "./http/Guard.ts"
export { currentRecord, routingRecordResponse, type SignedRecord, signRecord } from "./ipns/IpnsRecords.ts"
export { type KeyNodes, type KeyNodesOptions, makeKeyNodes } from "./keyNodes/index.ts"
export {
  createMockNetwork,
  type ExtraGateway,
  type MockHosts,
  type MockNetwork,
  type MockNetworkOptions,
  type MockNetworkState,
  type NetworkStorage,
  type SeedAccountOptions
} from "./MockNetwork.ts"
export { type BlockStorage, type Blockstore, memoryBlocks } from "./storage/Blocks.ts"
export { ContentStore } from "./storage/ContentStore.ts"
export { memoryState, type StateStore, type StateTable, StateTables } from "./storage/State.ts"
export { type AddSettings, addAll, importerOptions } from "./storage/Unixfs.ts"
export type { PartialCars } from "./upload/CarLinks.ts"
