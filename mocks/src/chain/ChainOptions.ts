/**
 * The mock network's options for a local chain with the payment contract deployed: its API
 * credits `ReceivedPayment` events of the contract (USDC and DAI at 1 USD a token, ETH at the
 * ticker's price) and its key nodes evaluate EVM access conditions on the chain. Given who settles
 * and who is paid, the API also takes x402 pay-per-upload (`POST /api/x402/upload`) in the
 * deployment's EIP-3009 `TestUsdc`. Shared by the simulation (msw in process) and `npm run serve`
 * (the chain over HTTP).
 *
 * @since 0.1.0
 */

import { type LocalDeployment, localTokens } from "lighthouse-effect/contracts"
import type { Account, Address, Chain, PublicClient, Transport, WalletClient } from "viem"
import type { MockNetworkOptions } from "../MockNetwork.ts"

/** Who takes x402 payments on the chain. */
export interface X402Parties {
  /** Submits each authorised transfer (`transferWithAuthorization`) and pays its gas. */
  readonly settler: WalletClient<Transport, Chain, Account>
  /** Receives the payments. */
  readonly payTo: Address
}

export const chainOptions = (
  publicClient: PublicClient<Transport, Chain>,
  deployment: LocalDeployment,
  x402?: X402Parties
): Pick<MockNetworkOptions, "payments" | "chain" | "x402"> => ({
  payments: {
    publicClient,
    contract: deployment.payment,
    tokens: {
      [deployment.usdc]: { decimals: localTokens.usdc.decimals, symbol: localTokens.usdc.symbol },
      [deployment.dai]: { decimals: localTokens.dai.decimals, symbol: localTokens.dai.symbol }
    },
    nativeSymbol: "ETH",
    nativeDecimals: 18,
    fromBlock: deployment.blockNumber
  },
  chain: publicClient,
  ...(x402 === undefined
    ? {}
    : { x402: { publicClient, settler: x402.settler, payTo: x402.payTo, asset: deployment.x402Usdc } })
})
