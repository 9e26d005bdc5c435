/**
 * The mock network's options for a local chain with the payment contract deployed: its API
 * credits `ReceivedPayment` events of the contract (USDC and DAI at 1 USD a token, ETH at the
 * ticker's price) and its key nodes evaluate EVM access conditions on the chain. Shared by the
 * simulation (msw in process) and `npm run serve` (the chain over HTTP).
 *
 * @since 0.1.0
 */
import type { Chain, PublicClient, Transport } from "viem"
import { type LocalDeployment, localTokens } from "lighthouse-effect/contracts"
import type { MockNetworkOptions } from "../MockNetwork.ts"

export const chainOptions = (
  publicClient: PublicClient<Transport, Chain>,
  deployment: LocalDeployment
): Pick<MockNetworkOptions, "payments" | "chain"> => ({
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
  chain: publicClient
})
