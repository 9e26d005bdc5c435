/**
 * The local chain from the browser: Hardhat's node on 127.0.0.1:8545 (started by the storybook
 * scripts and by the tests' global setup), the payment contract and test stablecoins deployed on
 * it on demand, and viem clients for the demo wallets.
 */

import { Networks } from "lighthouse-effect"
import { deployLocal, type LocalDeployment, mockStablecoinAbi } from "lighthouse-effect/contracts"
import { chainOptions } from "lighthouse-effect/mocks"
import { type Address, createPublicClient, createWalletClient, http } from "viem"
import { mnemonicToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { testMnemonic } from "./wallets.ts"

export const rpcUrl = "http://127.0.0.1:8545"

// Blocks are mined at once: viem's 4 s polling and caching would only add latency.
const transport = http(rpcUrl, { retryCount: 0 })
const clientParams = { chain: hardhat, transport, pollingInterval: 50, cacheTime: 0 } as const

export const publicClient = createPublicClient(clientParams)

/** A wallet client for a local account on the local chain (a browser wallet in a real app). */
export const walletClientOf = (account: ReturnType<typeof mnemonicToAccount>) =>
  createWalletClient({ ...clientParams, account })

/** Fails with what to do when no local chain answers (a static catalogue opened without one). */
const chainIsUp = (): Promise<void> =>
  publicClient.getChainId().then(
    (id) => (id === hardhat.id ? undefined : Promise.reject(new Error(`the chain on ${rpcUrl} is not Hardhat's`))),
    () => Promise.reject(new Error(`no local chain on ${rpcUrl}: \`npm run storybook\` starts one`))
  )

const deployments = new Map<number, Promise<LocalDeployment>>()

/**
 * The contracts, deployed once per page by the test account `deployer`. Story files that run at
 * the same time use different deployers, so their transactions never race for one nonce.
 */
export const deployment = (deployer: number): Promise<LocalDeployment> => {
  let deployed = deployments.get(deployer)
  if (deployed === undefined) {
    const wallet = walletClientOf(mnemonicToAccount(testMnemonic, { addressIndex: deployer }))
    deployed = chainIsUp().then(() => deployLocal(wallet, publicClient))
    // A failure is not kept: the next story tries again (the chain may have come up).
    deployed.catch(() => deployments.delete(deployer))
    deployments.set(deployer, deployed)
  }
  return deployed
}

/** The network table's `localhost` entry for a deployment (what the `Payment` service reads). */
export const networksFor = (deployed: LocalDeployment) =>
  Networks.withLocalDeployment({
    rpc: rpcUrl,
    paymentContract: deployed.payment,
    usdc: { address: deployed.usdc, decimals: 6 },
    dai: { address: deployed.dai, decimals: 18 }
  } as Networks.LocalDeployment)

/**
 * The mock network's options for the deployment (payments credited from `ReceivedPayment`
 * events, EVM conditions on the chain), reading events from `fromBlock` on: a story's network
 * must not credit the payments of the stories before it.
 */
export const mockOptionsFor = (deployed: LocalDeployment, fromBlock: bigint) =>
  chainOptions(publicClient, { ...deployed, blockNumber: fromBlock })

/** The test stablecoins have an open faucet. */
export const mint = async (token: Address, to: Address, amount: bigint, minter: number): Promise<void> => {
  const wallet = walletClientOf(mnemonicToAccount(testMnemonic, { addressIndex: minter }))
  const hash = await wallet.writeContract({
    address: token,
    abi: mockStablecoinAbi,
    functionName: "mint",
    args: [to, amount]
  })
  await publicClient.waitForTransactionReceipt({ hash })
}

/** The mock network's x402 options: the deployment's EIP-3009 USDC, settled by test account `settler`. */
export const x402OptionsFor = (
  deployed: LocalDeployment,
  accounts: { readonly settler: number; readonly payTo: number }
) => ({
  publicClient,
  settler: walletClientOf(mnemonicToAccount(testMnemonic, { addressIndex: accounts.settler })),
  asset: deployed.x402Usdc,
  payTo: mnemonicToAccount(testMnemonic, { addressIndex: accounts.payTo }).address
})
