// The local chain helper used by the mocks, the simulate script and the Payment service tests.
import assert from "node:assert/strict"
import { after, before, describe, it } from "node:test"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { createPublicClient, createWalletClient, custom, erc20Abi, http, parseEther } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import {
  deployLocal,
  type LocalDeployment,
  lighthousePaymentAbi,
  localTokens,
  mockStablecoinAbi
} from "../abi/index.ts"

describe("startLocalChain (in process)", () => {
  let chain: LocalChain
  let deployment: LocalDeployment

  before(async () => {
    chain = await startLocalChain()
    deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
  })
  after(() => chain.stop())

  it("has 20 funded accounts whose private keys it knows", async () => {
    assert.equal(chain.accounts.length, 20)
    assert.equal(chain.walletClients.length, 20)
    assert.equal(await chain.publicClient.getChainId(), 31337)
    for (const [i, address] of chain.accounts.entries()) {
      assert.equal(privateKeyToAccount(chain.privateKeys[i]!).address, address)
      assert.equal(chain.walletClients[i]!.account.address, address)
    }
    assert.equal(await chain.publicClient.getBalance({ address: chain.accounts[19]! }), parseEther("10000"))
  })

  it("deployLocal deploys the payment contract and allow-lists both stablecoins", async () => {
    assert.equal(deployment.owner, chain.accounts[0])
    for (const [token, meta] of [
      [deployment.usdc, localTokens.usdc],
      [deployment.dai, localTokens.dai]
    ] as const) {
      const read = <F extends "decimals" | "symbol">(functionName: F) =>
        chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName })
      assert.equal(await read("decimals"), meta.decimals)
      assert.equal(await read("symbol"), meta.symbol)
    }
    const logs = await chain.publicClient.getContractEvents({
      address: deployment.payment,
      abi: lighthousePaymentAbi,
      eventName: "TokenStatusUpdated",
      fromBlock: deployment.blockNumber
    })
    assert.deepEqual(
      logs.map((l) => [l.args.tokenAddress, l.args.status]),
      [
        [deployment.usdc, true],
        [deployment.dai, true]
      ]
    )
  })

  it("serves eth_calls to clients other code builds on its provider (e.g. a mock checking ERC20 balances)", async () => {
    const holder = chain.accounts[7]!
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.walletClients[0]!.writeContract({
        address: deployment.usdc,
        abi: mockStablecoinAbi,
        functionName: "mint",
        args: [holder, 1234n]
      })
    })
    const foreign = createPublicClient({ chain: hardhat, transport: custom(chain.provider) })
    assert.equal(
      await foreign.readContract({
        address: deployment.usdc,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [holder]
      }),
      1234n
    )
  })

  it("accepts transactions signed locally with a private key, as the provider's SDK sends them", async () => {
    const signer = privateKeyToAccount(chain.privateKeys[8]!)
    const wallet = createWalletClient({ chain: hardhat, account: signer, transport: custom(chain.provider) })
    const hash = await wallet.sendTransaction({ to: chain.accounts[9]!, value: 1n })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, "success")
    assert.equal(receipt.from.toLowerCase(), signer.address.toLowerCase())
  })

  it("gives every call its own chain", async () => {
    const other = await startLocalChain()
    try {
      assert.equal(await other.publicClient.getCode({ address: deployment.payment }), undefined)
      assert.notEqual(await chain.publicClient.getCode({ address: deployment.payment }), undefined)
    } finally {
      await other.stop()
    }
  })
})

describe("startLocalChain({ serve })", () => {
  it("serves one chain over HTTP on 127.0.0.1 to its own clients and to outside ones, until stopped", async () => {
    const chain = await startLocalChain({ serve: { port: 0 } })
    const url = chain.url ?? assert.fail("no url")
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/)
    try {
      const deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
      const outside = createPublicClient({ chain: hardhat, transport: http(url) })
      assert.equal(
        await outside.readContract({ address: deployment.dai, abi: erc20Abi, functionName: "symbol" }),
        localTokens.dai.symbol
      )
    } finally {
      await chain.stop()
    }
    await assert.rejects(fetch(url, { method: "POST", body: "{}" }))
  })
})
