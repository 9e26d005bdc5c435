/**
 * What tests of every area share about the local network's content (`lighthouse-effect/mocks/testing`):
 * the fixed test wallets and CIDs, reproducible bytes, and the blocks and CARs a trustless gateway answers, worked out from the
 * UnixFS layout alone (apart from both the gateway and the client's walk).
 *
 * @since 0.1.0
 */
export { lcgMegabyte, pseudoRandomBytes } from "./Bytes.ts"
export { type ContractCase, type ContractCaseContext, contractCases } from "./ContractCases.ts"
export { type ContractCheck, canonical } from "./ContractChecks.ts"
export { type Block, carHeader, carSection, type GetBlock, trustlessBlocks } from "./Trustless.ts"
export { testCids, testKeys, testWallets } from "./Wallets.ts"
export { x402FacilitatorNowhere } from "./X402.ts"
