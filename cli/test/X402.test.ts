/**
 * `x402-upload <file>` in process, against the simulated network (msw) taking x402 payments in the
 * EIP-3009 `TestUsdc` of Hardhat's in-process chain. The payer's key comes from
 * `LIGHTHOUSE_PRIVATE_KEY` or from the stored wallet opened with its password, never from argv.
 * A paid upload is settled and stored; an underpayment and another asset are the library's typed
 * errors (exit 1, nothing stored, nothing paid); bad flags and a missing key are usage errors.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type Address, erc20Abi } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deployLocal, type LocalDeployment, testUsdcAbi } from "lighthouse-effect/contracts"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { freshConfigHome, json, run } from "./support.ts"

let chain: LocalChain
let deployment: LocalDeployment
let network: MockNetwork
let running: RunningMockNetwork | undefined
let payTo: Address

beforeAll(async () => {
  chain = await startLocalChain()
  deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
  payTo = chain.accounts[8]!
  network = createMockNetwork({
    x402: { publicClient: chain.publicClient, settler: chain.walletClients[9]!, asset: deployment.x402Usdc, payTo }
  })
  running = startMockNetwork({ network, onUnhandledFrame: "error" })
}, 120_000)
afterAll(async () => {
  running?.close()
  await chain?.stop()
})

/** 1 MiB (the least billed) at 0.00390625 USD per MiB, in USDC's 6 decimals, rounded up. */
const ONE_MIB_PRICE = 3907n

const balanceOf = (address: Address) =>
  chain.publicClient.readContract({
    address: deployment.x402Usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address]
  })

/** The test USDC's faucet is open. */
const mint = async (to: Address, amount: bigint) => {
  const hash = await chain.walletClients[0]!.writeContract({
    address: deployment.x402Usdc,
    abi: testUsdcAbi,
    functionName: "mint",
    args: [to, amount]
  })
  await chain.publicClient.waitForTransactionReceipt({ hash })
}

/** A file in a fresh directory. */
const fileWith = async (name: string, text: string) => {
  const path = join(await freshConfigHome(), name)
  await writeFile(path, text)
  return path
}

describe("x402-upload", () => {
  it("pays the price asked with LIGHTHOUSE_PRIVATE_KEY: settled on chain, stored, listed for the payer", async () => {
    const payer = chain.accounts[1]!
    await mint(payer, 10_000n)
    const before = await balanceOf(payTo)
    const path = await fileWith("note.txt", "paid from the command line")

    const ran = await run(["x402-upload", path, "--json"], { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[1]! })
    expect(ran).toMatchObject({ code: 0, stderr: "" })
    const result = json(ran) as {
      entry: { Name: string; Hash: string; Size: string }
      settlement: { success: boolean; transaction: `0x${string}`; network: string; payer: string }
      paid: { amount: string; asset: string }
    }
    expect(result.entry).toMatchObject({ Name: "note.txt", Size: "26" })
    expect(result.settlement).toMatchObject({ success: true, network: "localhost", payer: payer.toLowerCase() })
    expect(result.paid).toMatchObject({ amount: String(ONE_MIB_PRICE), asset: deployment.x402Usdc })
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: result.settlement.transaction })
    expect(receipt.status).toBe("success")
    expect(await balanceOf(payTo)).toBe(before + ONE_MIB_PRICE)
    expect(
      network.state.files.of(payer.toLowerCase()).map((r) => [r.cid, r.fileName, r.mimeType, r.fileSizeInBytes])
    ).toEqual([[result.entry.Hash, "note.txt", "text/plain", "26"]])
  })

  it("pays with the stored wallet opened by its password, under --name; the text output", async () => {
    const home = await freshConfigHome()
    const env = { XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: "correct horse battery staple" }
    const created = await run(["wallet", "create", "--json"], env)
    expect(created.code, created.stderr).toBe(0)
    const payer = (json(created) as { address: Address }).address
    await mint(payer, 10_000n)

    const ran = await run(["x402-upload", await fileWith("a.bin", "wallet-paid"), "--name", "renamed.txt"], env)
    expect(ran.code, ran.stderr).toBe(0)
    const [stored, paid, rest] = ran.stdout.split("\n")
    expect(stored).toMatch(/^stored renamed\.txt baf[a-z2-7]+ \(11 bytes\)$/)
    expect(paid).toMatch(
      new RegExp(`^paid 0\\.003907 \\(3907 base units of ${deployment.x402Usdc}\\) in 0x[0-9a-f]{64} on localhost$`)
    )
    expect(rest).toBe("")
    expect(network.state.files.of(payer.toLowerCase()).map((r) => r.fileName)).toEqual(["renamed.txt"])
    expect(await balanceOf(payer)).toBe(10_000n - ONE_MIB_PRICE)
  })

  it("an underpayment and another asset exit 1 with the typed error; nothing stored, nothing paid", async () => {
    const payer = chain.accounts[2]!
    await mint(payer, 10_000n)
    const before = await balanceOf(payTo)
    const path = await fileWith("refused.txt", "never stored")
    const env = { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[2]! }

    const underpaid = await run(["x402-upload", path, "--amount", "3906", "--json"], env)
    expect(underpaid.code).toBe(1)
    expect(json(underpaid)).toEqual({
      error: { _tag: "X402Underpaid", message: "x402 payment of 3906 is below the 3907 required" }
    })
    const wrongAsset = await run(["x402-upload", path, "--asset", deployment.usdc.toLowerCase(), "--json"], env)
    expect(wrongAsset.code).toBe(1)
    expect(json(wrongAsset)).toEqual({
      error: {
        _tag: "X402WrongAsset",
        message: `x402 payment asked in ${deployment.x402Usdc}, offered ${deployment.usdc}`
      }
    })
    expect(network.state.files.of(payer.toLowerCase())).toEqual([])
    expect(await balanceOf(payTo)).toBe(before)
    expect(await balanceOf(payer)).toBe(10_000n)
  })

  it("bad flags and a missing key exit 2 before any request", async () => {
    const path = await fileWith("unsent.txt", "unsent")
    const env = { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[3]! }
    expect(await run(["x402-upload", path, "--amount", "1.5"], env)).toMatchObject({
      code: 2,
      stderr: "--amount is a whole number of the asset's base units, not 1.5\n"
    })
    expect(await run(["x402-upload", path, "--asset", "usdc"], env)).toMatchObject({
      code: 2,
      stderr: "--asset must be a token address (0x and 40 hex digits), not usdc\n"
    })
    const noKey = await run(["x402-upload", path, "--json"], { XDG_CONFIG_HOME: await freshConfigHome() })
    expect(noKey.code).toBe(2)
    expect(json(noKey)).toEqual({
      error: {
        _tag: "UsageError",
        message: "No wallet: run `lighthouse-effect wallet create` or `wallet import`, or set LIGHTHOUSE_PRIVATE_KEY"
      }
    })
    const onArgv = await run(["x402-upload", path, "--private-key", chain.privateKeys[3]!], {})
    expect(onArgv.code).toBe(2)
    expect(network.state.files.of(chain.accounts[3]!.toLowerCase())).toEqual([])
  })
})
