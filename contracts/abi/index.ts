/**
 * The payment contract for TypeScript: ABI and bytecode of `LighthousePayment` (ABI-compatible with
 * the provider's contract), of the local test stablecoin and of the EIP-3009 test USDC (x402), and a viem deploy helper for local
 * chains. Hostile test contracts (fee-on-transfer, false-returning, reverting, reentrant tokens,
 * rejecting endowment, FilForwarder stand-in) are in `./mocks/`.
 *
 * @since 0.1.0
 */
export { deployLocal, type LocalDeployment, localTokens } from "./deploy.ts"
export { lighthousePaymentAbi, lighthousePaymentBytecode } from "./LighthousePayment.ts"
export { mockStablecoinAbi, mockStablecoinBytecode } from "./MockStablecoin.ts"
export { testUsdcAbi, testUsdcBytecode } from "./TestUsdc.ts"
