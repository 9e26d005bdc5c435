/**
 * `quote` and `pay` in process. A quote prices files on disk (folders walked) and sizes as one
 * upload; `pay` pays the payment contract deployed on Hardhat's local chain, served over HTTP on a
 * free port, in the native coin and in the 6-decimal stablecoin, with the private key from
 * `LIGHTHOUSE_PRIVATE_KEY` and the `localhost` row of the network table from `--networks FILE`.
 */
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Networks } from "lighthouse-effect"
import { deployLocal, type LocalDeployment, localTokens, mockStablecoinAbi } from "lighthouse-effect/contracts"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { type Address, zeroAddress } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, lastLine, run } from "./support/commands.ts"

const MiB = 1_048_576

describe("quote", () => {
  it("prices files, a folder and a size as one upload, with each file's size and type", async () => {
    const dir = await freshConfigHome()
    await mkdir(join(dir, "photos"))
    await writeFile(join(dir, "a.txt"), "abc")
    await writeFile(join(dir, "photos", "b.json"), "{}")
    const ran = await run(
      ["quote", join(dir, "a.txt"), join(dir, "photos"), String(10 * MiB - 5), "--token", "usdc", "--json"],
      {}
    )
    expect(ran).toMatchObject({ code: 0, stderr: "" })
    expect(json(ran)).toMatchObject({
      metaData: [
        { fileSize: 3, mimeType: "text/plain", fileName: "a.txt" },
        { fileSize: 2, mimeType: "application/json", fileName: "b.json" },
        { fileSize: 10 * MiB - 5, mimeType: null, fileName: "" }
      ],
      totalSize: 10 * MiB,
      // 10 MiB in USDC: 0.0390625 USD, rounded up to 6 decimals (the README's figure).
      price: { network: "polygon", token: "usdc", amount: "39063", decimals: 6, formatted: "0.039063" }
    })
    const text = await run(["quote", String(10 * MiB), "--token", "usdc"], {})
    expect(text).toMatchObject({
      code: 0,
      stdout: `${10 * MiB}  -  -\ntotal ${10 * MiB} bytes: 0.039063 usdc on polygon (39063 in the smallest unit, 0.0390625 USD)\n`
    })
  })

  it("a token the network does not list exits 1; an unknown token flag exits 2", async () => {
    const unlisted = await run(["quote", "1", "--network", "localhost", "--token", "usdc", "--json"], {})
    expect(unlisted.code).toBe(1)
    expect(json(unlisted)).toEqual({
      error: { _tag: "UnsupportedToken", message: "Unsupported Token: usdc on localhost" }
    })
    const bad = await run(["quote", "1", "--token", "gold"], {})
    expect(bad).toMatchObject({ code: 2, stdout: "" })
  })
})

describe("pay, on the local chain", () => {
  let chain: LocalChain
  let deployment: LocalDeployment
  let networksFile: string
  beforeAll(async () => {
    chain = await startLocalChain({ serve: { port: 0 } })
    deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
    const localhost = Networks.withLocalDeployment({
      rpc: chain.url!,
      paymentContract: deployment.payment,
      usdc: { address: deployment.usdc, decimals: localTokens.usdc.decimals }
    } as Networks.LocalDeployment).localhost
    networksFile = join(await freshConfigHome(), "networks.json")
    await writeFile(networksFile, JSON.stringify({ localhost }))
  }, 120_000)
  afterAll(() => chain?.stop())

  const payer = () => ({ LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[1]!, LIGHTHOUSE_NETWORK: "localhost" })

  it("pays in the native coin, then in the stablecoin (approve, then receiveToken)", async () => {
    const sender = chain.accounts[1]! as Address
    const native = await run(["pay", "1000", "--networks", networksFile, "--json"], payer())
    expect(native).toMatchObject({ code: 0, stderr: "" })
    expect(json(native)).toMatchObject({
      explorerUrl: null,
      approval: null,
      payment: { sender, tokenAddress: zeroAddress, amount: "1000" }
    })
    expect(await chain.publicClient.getBalance({ address: deployment.payment })).toBe(1000n)

    const minted = await chain.walletClients[0]!.writeContract({
      address: deployment.usdc,
      abi: mockStablecoinAbi,
      functionName: "mint",
      args: [sender, 5_000_000n]
    })
    await chain.publicClient.waitForTransactionReceipt({ hash: minted })
    const usdc = await run(["pay", "39063", "--token", "usdc", "--networks", networksFile], payer())
    expect(usdc.code, usdc.stderr).toBe(0)
    expect(usdc.stdout).toMatch(/^paid 39063 \(usdc\) in 0x[0-9a-f]{64}\n$/)
    const balance = await chain.publicClient.readContract({
      address: deployment.usdc,
      abi: mockStablecoinAbi,
      functionName: "balanceOf",
      args: [deployment.payment]
    })
    expect(balance).toBe(39063n)
  })

  it("a short balance exits 1 before anything is spent; no key and no wallet exits 2; an amount that is not whole exits 2", async () => {
    const short = await run(["pay", "1", "--token", "usdc", "--networks", networksFile, "--json"], {
      LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[2]!,
      LIGHTHOUSE_NETWORK: "localhost"
    })
    expect(short.code).toBe(1)
    expect(json(short)).toMatchObject({ error: { _tag: "ContractReverted" } })
    const home = await freshConfigHome()
    const noKey = await run(["pay", "1", "--networks", networksFile, "--json"], { XDG_CONFIG_HOME: home })
    expect(noKey.code).toBe(2)
    expect(json(noKey)).toEqual({
      error: {
        _tag: "UsageError",
        message: "No wallet: run `lighthouse-effect wallet create` or `wallet import`, or set LIGHTHOUSE_PRIVATE_KEY"
      }
    })
    const fraction = await run(["pay", "1.5", "--networks", networksFile], payer())
    expect(fraction).toMatchObject({ code: 2, stdout: "" })
    expect(lastLine(fraction.stderr)).toBe(
      `Invalid value for argument <amount>: "1.5". Expected: Schema validation failed: a whole number of the token's smallest unit (digits only)`
    )
    const badTable = await run(["pay", "1", "--networks", "-", "--json"], payer(), '{"localhost":{"rpc":""}}')
    expect(badTable.code).toBe(2)
    expect((json(badTable) as { error: { message: string } }).error.message).toMatch(/^-: not a network table \(/)
  })
})
