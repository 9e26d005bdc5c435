// The EIP-3009 test USDC with viem: an authorisation signed with `signTypedData` (as an x402 client
// signs it) settles on the local chain once, from any submitter.
import assert from "node:assert/strict"
import { after, before, describe, it } from "node:test"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { BaseError, ContractFunctionRevertedError, erc20Abi, type Hex, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { deployLocal, type LocalDeployment, testUsdcAbi } from "../abi/index.ts"

describe("TestUsdc with viem", () => {
  let chain: LocalChain
  let deployment: LocalDeployment

  before(async () => {
    chain = await startLocalChain()
    deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
  })
  after(() => chain.stop())

  /** The revert's custom error name, or the message when it is not one. */
  const revertName = (error: unknown): string => {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null
    return reverted instanceof ContractFunctionRevertedError
      ? (reverted.data?.errorName ?? reverted.shortMessage)
      : String(error)
  }

  it("deployLocal deploys it; a viem-signed transferWithAuthorization settles once", async () => {
    const usdc = deployment.x402Usdc
    const payer = privateKeyToAccount(chain.privateKeys[5]!)
    const payee = chain.accounts[6]!
    const relayer = chain.walletClients[7]!
    const read = (address: Hex) =>
      chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] })
    assert.equal(await chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "decimals" }), 6)
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.walletClients[0]!.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [payer.address, 50_000n]
      })
    })

    const now = (await chain.publicClient.getBlock()).timestamp
    const message = {
      from: payer.address,
      to: payee,
      value: 20_000n,
      validAfter: 0n,
      validBefore: now + 600n,
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32)))
    }
    const signature = await payer.signTypedData({
      domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: usdc },
      types: {
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" }
        ]
      },
      primaryType: "TransferWithAuthorization",
      message
    })
    const args = [
      message.from,
      message.to,
      message.value,
      message.validAfter,
      message.validBefore,
      message.nonce,
      signature
    ] as const
    const receipt = await chain.publicClient.waitForTransactionReceipt({
      hash: await relayer.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args
      })
    })
    assert.equal(receipt.status, "success")
    assert.equal(await read(payee), 20_000n)
    assert.equal(await read(payer.address), 30_000n)
    assert.equal(
      await chain.publicClient.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [payer.address, message.nonce]
      }),
      true
    )

    const replay = await chain.publicClient
      .simulateContract({
        account: relayer.account,
        address: usdc,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args
      })
      .then(() => "settled", revertName)
    assert.equal(replay, "AuthorizationAlreadyUsed")
  })
})
