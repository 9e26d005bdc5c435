/**
 * Hardhat's in-process chain (through `mocks/src/chain/LocalChain.ts`) with the payment contract and the
 * two local stablecoins deployed: one chain for a test file, and the arrangements tests make on it.
 */
import { Effect, Layer } from "effect"
import { deployLocal, type LocalDeployment, mockStablecoinAbi } from "lighthouse-effect/contracts"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { type Address, custom } from "viem"
import { afterAll, beforeAll } from "vitest"
import { withLocalDeployment } from "../../src/Networks.ts"
import { ChainTransport } from "../../src/payment/Chain.ts"

/**
 * Starts the chain and deploys on it before the file's tests, then hands both to `ready`; stops
 * the chain after the tests.
 */
export const withDeployedChain = (
  ready: (chain: LocalChain, deployment: LocalDeployment) => void | Promise<void>
): void => {
  let started: LocalChain | undefined
  beforeAll(async () => {
    const chain = await startLocalChain()
    started = chain
    await ready(chain, await deployLocal(chain.walletClients[0]!, chain.publicClient))
  }, 120_000)
  afterAll(async () => {
    await started?.stop()
  })
}

/** Mints `amount` of a local stablecoin (they have an open faucet) and waits for the receipt. */
export const mint = (chain: LocalChain, token: Address, to: Address, amount: bigint) =>
  Effect.promise(async () => {
    const hash = await chain.walletClients[0]!.writeContract({
      address: token,
      abi: mockStablecoinAbi,
      functionName: "mint",
      args: [to, amount]
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
  })

/** The network table with `localhost` pointing at the deployment. */
export const localNetworks = (deployment: LocalDeployment) =>
  withLocalDeployment({
    paymentContract: deployment.payment,
    usdc: { address: deployment.usdc, decimals: 6 },
    dai: { address: deployment.dai, decimals: 18 }
  } as Parameters<typeof withLocalDeployment>[0])

/** Payment's chain calls go to the in-process chain, without retries. */
export const chainTransport = (chain: LocalChain) =>
  Layer.succeed(ChainTransport, () => custom(chain.provider, { retryCount: 0 }))
