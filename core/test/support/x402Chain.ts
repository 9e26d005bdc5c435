/**
 * The x402 tests' setting: the local chain with its EIP-3009 test USDC, and the simulated network
 * whose x402 routes verify and settle on it (account 9 settles, account 8 is paid). A test file
 * calls `x402Fixture()` (or `withX402Chain()`) once at its top; the fields are set before its tests run.
 */
import { Effect, Layer } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { type LocalDeployment, testUsdcAbi } from "lighthouse-effect/contracts"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import type { LocalChain } from "lighthouse-effect/mocks/chain"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { type Address, erc20Abi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll } from "vitest"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as Config from "../../src/LighthouseConfig.ts"
import * as Payment from "../../src/Payment.ts"
import { chainTransport, localNetworks, withDeployedChain } from "./chain.ts"

export interface X402Chain {
  readonly chain: LocalChain
  readonly deployment: LocalDeployment
  readonly network: MockNetwork
  /** The account the network's x402 routes are paid to. */
  readonly payTo: Address
}

/** Starts the chain and the network before the file's tests, and closes the network after them. */
export const withX402Chain = (): X402Chain => {
  const fixture: { -readonly [K in keyof X402Chain]?: X402Chain[K] } = {}
  let running: RunningMockNetwork | undefined
  withDeployedChain((chain, deployment) => {
    const payTo = chain.accounts[8]!
    const network = createMockNetwork({
      x402: { publicClient: chain.publicClient, settler: chain.walletClients[9]!, asset: deployment.x402Usdc, payTo }
    })
    Object.assign(fixture, { chain, deployment, network, payTo })
    running = startMockNetwork({ network, onUnhandledFrame: "error" })
  })
  afterAll(() => running?.close())
  return fixture as X402Chain
}

/** `Payment` over the local chain, its deployment the `localhost` network's. */
export const paymentLayer = ({ chain, deployment }: X402Chain) =>
  Payment.layer.pipe(
    Layer.provide(Config.layer({ defaultNetwork: "localhost", networks: localNetworks(deployment) })),
    Layer.provide(chainTransport(chain)),
    Layer.provide(Lighthouse.httpLayer)
  )

/** `address`'s balance of the test USDC. */
export const usdcBalance = ({ chain, deployment }: X402Chain, address: Address) =>
  Effect.promise(() =>
    chain.publicClient.readContract({
      address: deployment.x402Usdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [address]
    })
  )

/** Account `index`, given `amount` more of the test USDC (nothing minted for 0). */
export const fundedPayer = ({ chain, deployment }: X402Chain, index: number, amount: bigint) =>
  Effect.gen(function* () {
    const account = privateKeyToAccount(chain.privateKeys[index]!)
    if (amount > 0n)
      yield* Effect.promise(async () => {
        const hash = await chain.walletClients[0]!.writeContract({
          address: deployment.x402Usdc,
          abi: testUsdcAbi,
          functionName: "mint",
          args: [account.address, amount]
        })
        await chain.publicClient.waitForTransactionReceipt({ hash })
      })
    return account
  })

/** The caller's clock set to the chain's, minus `behindSeconds`: an authorisation's window starts there. */
export const clockAtChain = (setting: X402Chain, behindSeconds = 0) =>
  Effect.gen(function* () {
    // Read when it runs: a file may make this effect before the chain has started.
    const block = yield* Effect.promise(() => setting.chain.publicClient.getBlock())
    yield* TestClock.setTime((Number(block.timestamp) - behindSeconds) * 1000)
  })

/** The local chain and its EIP-3009 USDC: what these payments are allowed to be (no USDC is known there). */
export const localTerms = ({ deployment }: X402Chain) => ({ network: "localhost", asset: deployment.x402Usdc })

/**
 * `withX402Chain()` with this file's helpers bound to its chain: what each x402 test file starts
 * with. `clockAtChain` and `local` are read when used, so they may be made before the chain starts.
 */
export const x402Fixture = () => {
  const x402 = withX402Chain()
  return {
    x402,
    layer: () => paymentLayer(x402),
    balanceOf: (address: Address) => usdcBalance(x402, address),
    payer: (index: number, amount: bigint) => fundedPayer(x402, index, amount),
    clockAtChain: (behindSeconds = 0) => clockAtChain(x402, behindSeconds),
    local: () => localTerms(x402)
  }
}
