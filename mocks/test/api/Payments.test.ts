/**
 * Storage credits from `ReceivedPayment` events. The chain here is a scripted EIP-1193 provider
 * behind a real viem `PublicClient`, so logs are ABI-encoded and decoded exactly as from a node
 * (indexed sender and token in the topics). The credit formula is checked against the clients'
 * pricing rule by property.
 */
import fc from "fast-check"
import {
  type Address,
  createPublicClient,
  custom,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  numberToHex,
  zeroAddress
} from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { BytesPerUsd, bytesForPayment, receivedPaymentAbi } from "../../src/api/Payments.ts"
import { createMockNetwork } from "../../src/MockNetwork.ts"
import { startMockNetwork } from "../../src/node.ts"
import { addFile } from "../support/upload.ts"

const MiB = 1024 * 1024
const contract: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
const usdc: Address = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
const dai: Address = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"

interface Payment {
  readonly block: bigint
  readonly sender: Address
  readonly token: Address
  readonly amount: bigint
  readonly txId: bigint
}

/** A chain of `head` blocks whose payment contract emitted `payments`. */
const scriptedChain = () => {
  const state = { head: 0n, payments: [] as Array<Payment>, getLogsCalls: [] as Array<{ from: bigint; to: bigint }> }
  const request = async ({ method, params }: { method: string; params?: unknown }) => {
    if (method === "eth_chainId") return numberToHex(31337)
    if (method === "eth_blockNumber") return numberToHex(state.head)
    if (method === "eth_getLogs") {
      const [filter] = params as [{ address: Address; fromBlock: Hex; toBlock: Hex }]
      const from = BigInt(filter.fromBlock)
      const to = BigInt(filter.toBlock)
      state.getLogsCalls.push({ from, to })
      return state.payments
        .map((payment, i) => ({ payment, i }))
        .filter(({ payment }) => payment.block >= from && payment.block <= to)
        .map(({ payment, i }) => ({
          address: filter.address,
          topics: encodeEventTopics({
            abi: receivedPaymentAbi,
            eventName: "ReceivedPayment",
            args: { sender: payment.sender, tokenAddress: payment.token }
          }),
          data: encodeAbiParameters(
            [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }],
            [payment.txId, payment.amount, 1_700_000_000n, "0x"]
          ),
          blockNumber: numberToHex(payment.block),
          blockHash: `0x${"ab".repeat(32)}`,
          transactionHash: numberToHex(BigInt(i + 1), { size: 32 }),
          transactionIndex: "0x0",
          logIndex: "0x0",
          removed: false
        }))
    }
    throw new Error(`unexpected RPC ${method}`)
  }
  const publicClient = createPublicClient({ transport: custom({ request }) })
  return { state, publicClient }
}

const setup = () => {
  const chain = scriptedChain()
  const network = createMockNetwork({
    payments: {
      publicClient: chain.publicClient,
      contract,
      tokens: { [usdc]: { decimals: 6, symbol: "USDC" }, [dai]: { decimals: 18, symbol: "DAI" } },
      nativeSymbol: "FIL"
    },
    defaultDataLimit: 0
  })
  return { chain, network }
}

describe("payments", () => {
  it("credits stablecoin and native payments to the payer, once each, block range by block range", async () => {
    const { chain, network } = setup()
    const alice = privateKeyToAccount(generatePrivateKey()).address
    const bob = privateKeyToAccount(generatePrivateKey()).address
    chain.state.head = 10n
    // What clients pay for 1 MiB: 0.00390625 USD at 6 decimals, rounded: 3906.
    chain.state.payments.push({ block: 3n, sender: alice, token: usdc, amount: 3906n, txId: 1n })
    chain.state.payments.push({ block: 7n, sender: bob, token: dai, amount: 10n ** 18n, txId: 2n })

    const first = await network.syncPayments()
    expect(first.fromBlock).toBe(0n)
    expect(first.toBlock).toBe(10n)
    expect(first.credited.map((credit) => [credit.address, credit.symbol, credit.txId])).toEqual([
      [alice.toLowerCase(), "USDC", 1n],
      [bob.toLowerCase(), "DAI", 2n]
    ])
    expect(network.state.accounts.get(alice)!.dataLimit).toBeGreaterThanOrEqual(MiB)
    expect(network.state.accounts.get(alice)!.dataLimit).toBeLessThan(MiB + 1024)
    expect(network.state.accounts.get(bob)!.dataLimit).toBe(256 * MiB)

    // Nothing new: no credit, and the next read starts after the head.
    expect((await network.syncPayments()).credited).toEqual([])
    // FIL at $4: 0.25 FIL is 1 USD, 256 MiB.
    network.setTickerPrice("FIL", 4)
    chain.state.head = 15n
    chain.state.payments.push({ block: 12n, sender: alice, token: zeroAddress, amount: 25n * 10n ** 16n, txId: 3n })
    const third = await network.syncPayments()
    expect(third.fromBlock).toBe(11n)
    expect(third.credited).toHaveLength(1)
    expect(third.credited[0]!.bytes).toBe(256 * MiB)
    expect(chain.state.getLogsCalls.at(-1)).toEqual({ from: 11n, to: 15n })
    expect(network.state.payments!.credits).toHaveLength(3)
  })

  it("ignores unknown tokens and unpriced native coins", async () => {
    const { chain, network } = setup()
    const payer = privateKeyToAccount(generatePrivateKey()).address
    chain.state.head = 2n
    chain.state.payments.push({
      block: 1n,
      sender: payer,
      token: "0x1111111111111111111111111111111111111111",
      amount: 5n,
      txId: 1n
    })
    network.state.tickers.remove("FIL")
    chain.state.payments.push({ block: 2n, sender: payer, token: zeroAddress, amount: 10n ** 18n, txId: 2n })
    const result = await network.syncPayments()
    expect(result.credited).toEqual([])
    expect(result.ignored.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(/is not accepted$/),
      "no ticker price for FIL"
    ])
    expect(network.state.accounts.get(payer)).toBeUndefined()
  })

  it("an upload refused for quota goes through once the payment for it is synced", async () => {
    const { chain, network } = setup()
    const running = startMockNetwork({ network, onUnhandledFrame: "error" })
    try {
      const payer = privateKeyToAccount(generatePrivateKey()).address
      const { apiKey } = network.seedAccount(payer)
      const upload = () => addFile(apiKey, "one-mib.bin", new Blob([new Uint8Array(MiB)]))
      expect((await upload()).status).toBe(402)
      chain.state.head = 1n
      chain.state.payments.push({ block: 1n, sender: payer, token: usdc, amount: 3906n, txId: 1n })
      await network.syncPayments()
      expect((await upload()).status).toBe(200)
    } finally {
      running.close()
    }
  })

  it("syncPayments rejects when no payment contract was configured", async () => {
    await expect(createMockNetwork().syncPayments()).rejects.toThrow("payments were not configured")
  })

  it("paying the clients' price for N bytes buys at least N bytes, and not a whole price step more", () => {
    // Clients price max(size, 1 MiB) at 0.00390625 USD per MiB and round half up to the token's decimals.
    const priceOf = (size: bigint, decimals: number) => {
      const scaled = (BigInt(Math.max(Number(size), MiB)) * 10n ** BigInt(decimals)) / 256n // exact × 2^20
      const numerator = scaled * 2n + BigInt(MiB)
      return numerator / (2n * BigInt(MiB))
    }
    fc.assert(
      fc.property(fc.integer({ min: MiB, max: 2 ** 40 }), fc.constantFrom(6, 18), (size, decimals) => {
        const amount = priceOf(BigInt(size), decimals)
        const bought = bytesForPayment(amount, decimals)
        expect(bought).toBeGreaterThanOrEqual(size)
        expect(priceOf(BigInt(bought) + 1n, decimals)).toBeGreaterThan(amount)
      })
    )
    expect(bytesForPayment(1_000_000n, 6)).toBe(Number(BytesPerUsd) + 134) // 1 USD, up to half a micro-dollar more
    expect(bytesForPayment(0n, 6)).toBe(0)
  })
})
