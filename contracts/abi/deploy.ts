/**
 * Deploys the payment contract and the two local stablecoins with plain viem, so any local chain
 * works: the in-process chain of `mocks/src/chain/LocalChain.ts`, Hardhat's `network.create()`,
 * `npx hardhat node`, anvil. Hardhat is not needed at run time.
 *
 * @since 0.1.0
 */
import {
  type Account,
  type Address,
  type Chain,
  getAddress,
  type Hash,
  type PublicClient,
  type Transport,
  type WalletClient
} from "viem"
import { lighthousePaymentAbi, lighthousePaymentBytecode } from "./LighthousePayment.ts"
import { mockStablecoinAbi, mockStablecoinBytecode } from "./MockStablecoin.ts"
import { testUsdcAbi, testUsdcBytecode } from "./TestUsdc.ts"

/** The local stablecoins, like the provider's: 6-decimal USDC (Filecoin, Polygon) and 18-decimal DAI. */
export const localTokens = {
  usdc: { name: "USD Coin", symbol: "USDC", decimals: 6 },
  dai: { name: "Dai Stablecoin", symbol: "DAI", decimals: 18 }
} as const

/** Where `deployLocal` put everything. */
export interface LocalDeployment {
  /** The `LighthousePayment` contract. */
  readonly payment: Address
  /** The 6-decimal stablecoin (anyone may `mint`), allow-listed on `payment`. */
  readonly usdc: Address
  /** The 18-decimal stablecoin (anyone may `mint`), allow-listed on `payment`. */
  readonly dai: Address
  /**
   * The 6-decimal `TestUsdc` (anyone may `mint`) with EIP-3009 `transferWithAuthorization`: the
   * asset x402 uploads are paid in. Not allow-listed on `payment`.
   */
  readonly x402Usdc: Address
  /** Owner of `payment`: the wallet client's account. */
  readonly owner: Address
  /** Block of the payment contract's deployment: scan `ReceivedPayment` logs from here. */
  readonly blockNumber: bigint
}

/**
 * Deploys `LighthousePayment` (owned by `walletClient`'s account), a 6-decimal "USDC" and an
 * 18-decimal "DAI" `MockStablecoin`, and allow-lists both tokens; then the EIP-3009 `TestUsdc`. Waits for every receipt and
 * throws if any transaction fails. The endowment and FilForwarder are left unset, as on the
 * provider's deployments.
 */
export const deployLocal = async (
  walletClient: WalletClient<Transport, Chain, Account>,
  publicClient: PublicClient<Transport, Chain>
): Promise<LocalDeployment> => {
  const confirm = async (hash: Hash, what: string) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== "success") throw new Error(`deployLocal: ${what} failed in transaction ${hash}`)
    return receipt
  }
  const owner = walletClient.account.address

  const paymentReceipt = await confirm(
    await walletClient.deployContract({
      abi: lighthousePaymentAbi,
      bytecode: lighthousePaymentBytecode,
      args: [owner]
    }),
    "deploying LighthousePayment"
  )
  const deployToken = async (token: (typeof localTokens)[keyof typeof localTokens]) => {
    const receipt = await confirm(
      await walletClient.deployContract({
        abi: mockStablecoinAbi,
        bytecode: mockStablecoinBytecode,
        args: [token.name, token.symbol, token.decimals]
      }),
      `deploying ${token.symbol}`
    )
    return getAddress(receipt.contractAddress!)
  }
  // Receipts carry lower-case addresses: checksum them like every other address viem returns.
  const payment = getAddress(paymentReceipt.contractAddress!)
  const usdc = await deployToken(localTokens.usdc)
  const dai = await deployToken(localTokens.dai)

  for (const [token, symbol] of [
    [usdc, "USDC"],
    [dai, "DAI"]
  ] as const) {
    await confirm(
      await walletClient.writeContract({
        address: payment,
        abi: lighthousePaymentAbi,
        functionName: "updateERC20Token",
        args: [token, true]
      }),
      `allow-listing ${symbol}`
    )
  }

  const x402Usdc = getAddress(
    (
      await confirm(
        await walletClient.deployContract({ abi: testUsdcAbi, bytecode: testUsdcBytecode }),
        "deploying TestUsdc"
      )
    ).contractAddress!
  )

  return { payment, usdc, dai, x402Usdc, owner, blockNumber: paymentReceipt.blockNumber }
}
