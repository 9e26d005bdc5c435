/**
 * `npm run serve` (scripts/serve.ts) as a child process on free ports: real clients in this
 * process reach it over 127.0.0.1. Plain `fetch` signs up for an API key, uploads with
 * `/api/v0/add`, reads the file back from the gateway and asks the chain for its id; the library,
 * pointed at the printed hosts and deployment, encrypts and decrypts through the served key nodes
 * and pays on the served chain, after which the served API raises the data limit on its own; an
 * x402 upload is paid in the served `TestUsdc`, settled on the served chain and stored, and an
 * underpaid one is refused with its typed error.
 * SIGTERM stops everything and the process exits 0.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as nodePath from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { Networks, Signer } from "lighthouse-effect"
import { testUsdcAbi } from "lighthouse-effect/contracts"
import { createLighthouseNode } from "lighthouse-effect/node"
import type { LighthouseClient } from "lighthouse-effect/promise"
import { type Address, createPublicClient, createWalletClient, erc20Abi, type Hex, http, isAddress } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")
const tsx = createRequire(import.meta.url).resolve("tsx/cli")

/** The `--json` line. */
interface Served {
  readonly urls: Record<"api" | "node" | "gateway" | "encryption", string>
  readonly chain: {
    readonly url: string
    readonly chainId: number
    readonly payment: string
    readonly usdc: { readonly address: string; readonly decimals: number }
    readonly dai: { readonly address: string; readonly decimals: number }
    readonly x402: { readonly asset: Address; readonly decimals: number; readonly payTo: Address }
    readonly accounts: ReadonlyArray<{ readonly address: string; readonly privateKey: Hex }>
  }
}

let child: ChildProcess
let served: Served
let stderr = ""

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [tsx, "--conditions=@lighthouse-effect/source", "scripts/serve.ts", "--json", "--chain-port", "0", "--free-ports"],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    }
  )
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  served = await new Promise<Served>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on("line", (line) => {
      if (line.startsWith("{")) resolve(JSON.parse(line) as Served)
    })
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)))
  })
}, 120_000)

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
})

const json = async (response: Response) => {
  expect(response.status, await response.clone().text()).toBe(200)
  return response.json() as Promise<unknown>
}

const user = () => privateKeyToAccount(served.chain.accounts[0]!.privateKey)

/** An API key for `user()`, as any HTTP client gets one: sign the API's message, exchange it. */
const apiKeyOf = async () => {
  const account = user()
  const message = (await json(
    await fetch(`${served.urls.api}/api/auth/get_auth_message?publicKey=${account.address}`)
  )) as string
  const signedMessage = await account.signMessage({ message })
  return (await json(
    await fetch(`${served.urls.api}/api/auth/create_api_key`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ publicKey: account.address, signedMessage })
    })
  )) as string
}

describe("npm run serve", () => {
  it("prints loopback URLs for every host and the chain, and the deployment", () => {
    for (const url of [...Object.values(served.urls), served.chain.url])
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(served.chain.chainId).toBe(31337)
    for (const address of [served.chain.payment, served.chain.usdc.address, served.chain.dai.address])
      expect(isAddress(address)).toBe(true)
    expect(served.chain.usdc.decimals).toBe(6)
  })

  it("answers plain fetch: auth message, API key, /api/v0/add, the gateway, eth_chainId", async () => {
    const apiKey = await apiKeyOf()
    expect(apiKey).toMatch(/\S{8,}/)

    const content = new TextEncoder().encode("over a real socket\n")
    const form = new FormData()
    form.append("file", new Blob([content]), "socket.txt")
    const added = (await json(
      await fetch(`${served.urls.node}/api/v0/add?wrap-with-directory=false&cid-version=1`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}` },
        body: form
      })
    )) as { Name: string; Hash: string; Size: string }
    expect(added.Name).toBe("socket.txt")
    expect(added.Hash).toMatch(/^bafk/)

    const back = await fetch(`${served.urls.gateway}/api/v0/cat/${added.Hash}`, { method: "POST" })
    expect(back.status).toBe(200)
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(content)

    const chainId = (await json(
      await fetch(served.chain.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] })
      })
    )) as { result: string }
    expect(chainId.result).toBe("0x7a69")
  })

  describe("the library pointed at the printed hosts and deployment", () => {
    let lighthouse: LighthouseClient
    beforeAll(() => {
      lighthouse = createLighthouseNode({
        hosts: served.urls,
        nodes: { mode: "concurrent" },
        defaultNetwork: "localhost",
        networks: Networks.withLocalDeployment({
          rpc: served.chain.url,
          paymentContract: served.chain.payment,
          usdc: served.chain.usdc,
          dai: served.chain.dai
        } as Parameters<typeof Networks.withLocalDeployment>[0])
      })
    })
    afterAll(() => lighthouse.dispose())

    it("encrypts through the served key nodes and decrypts what the gateway returns", async () => {
      const signer = Signer.makeFromAccount(user())
      const apiKey = await lighthouse.auth.createApiKey(signer)
      const token = await lighthouse.auth.token(signer)
      const entry = await lighthouse.upload.encryptedText("three of five, over loopback", {
        apiKey,
        address: signer.address,
        token,
        name: "secret.txt"
      })
      const plain = await lighthouse.download.bytes(entry.Hash, { decrypt: { signer } })
      expect(new TextDecoder().decode(plain)).toBe("three of five, over loopback")
    })

    it("pays on the served chain; the served API raises the data limit by itself", async () => {
      const signer = Signer.makeFromAccount(user())
      const apiKey = await lighthouse.auth.createApiKey(signer)
      const before = (await lighthouse.files.usage(apiKey)).dataLimit
      const price = await lighthouse.payment.price({ size: 10 * 1024 * 1024 })
      const paid = await lighthouse.payment.fund({
        amount: price.amount,
        privateKey: served.chain.accounts[0]!.privateKey
      })
      expect(paid.payment?.amount).toBe(price.amount)

      // Credited by the server's own polling of ReceivedPayment events (every 500 ms).
      let after = before
      for (let i = 0; i < 50 && after === before; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        after = (await lighthouse.files.usage(apiKey)).dataLimit
      }
      expect(after - before).toBeGreaterThanOrEqual(10 * 1024 * 1024)
    })
  })

  describe("x402 pay-per-upload, settled on the served chain", () => {
    let lighthouse: LighthouseClient
    beforeAll(() => {
      lighthouse = createLighthouseNode({ hosts: served.urls })
    })
    afterAll(() => lighthouse.dispose())

    const chainClient = () =>
      createPublicClient({ chain: hardhat, transport: http(served.chain.url, { retryCount: 0 }) })
    const balanceOf = (address: Address) =>
      chainClient().readContract({
        address: served.chain.x402.asset,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [address]
      })

    /** A printed account holding `amount` of the test USDC (its faucet is open). */
    const fundedPayer = async (index: number, amount: bigint) => {
      const account = privateKeyToAccount(served.chain.accounts[index]!.privateKey)
      const wallet = createWalletClient({
        account,
        chain: hardhat,
        transport: http(served.chain.url, { retryCount: 0 })
      })
      const hash = await wallet.writeContract({
        address: served.chain.x402.asset,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [account.address, amount]
      })
      await chainClient().waitForTransactionReceipt({ hash })
      return account
    }

    it("pays the asked price on the chain and stores the file; an underpayment is refused", async () => {
      const account = await fundedPayer(1, 10_000n)
      const payeeBefore = await balanceOf(served.chain.x402.payTo)
      const file = new File(["paid over loopback"], "x402.txt", { type: "text/plain" })

      const limits = { network: "localhost", asset: served.chain.x402.asset }
      const underpaid = await lighthouse.payment
        .x402Upload({ file, account, amount: 1n, ...limits })
        .catch((e: unknown) => e)
      expect(underpaid).toMatchObject({
        _tag: "X402Underpaid",
        message: "x402 payment of 1 is below the 3907 required"
      })
      expect(await balanceOf(served.chain.x402.payTo)).toBe(payeeBefore)

      const paid = await lighthouse.payment.x402Upload({ file, account, ...limits })
      expect(paid.paid).toMatchObject({ amount: 3907n, asset: served.chain.x402.asset })
      expect(paid.settlement).toMatchObject({
        success: true,
        network: "localhost",
        payer: account.address.toLowerCase()
      })
      const receipt = await chainClient().getTransactionReceipt({ hash: paid.settlement.transaction as Hex })
      expect(receipt.status).toBe("success")
      expect(await balanceOf(served.chain.x402.payTo)).toBe(payeeBefore + 3907n)
      expect(await balanceOf(account.address)).toBe(10_000n - 3907n)

      const back = await fetch(`${served.urls.gateway}/ipfs/${paid.entry.Hash}`)
      expect(await back.text()).toBe("paid over loopback")
    })
  })

  it("stops on SIGTERM and exits 0", async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
    await expect(fetch(served.urls.api)).rejects.toThrow()
    await expect(fetch(served.chain.url, { method: "POST" })).rejects.toThrow()
  })
})
