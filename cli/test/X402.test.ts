/**
 * `x402-upload <file>` in process, against the simulated network (msw) taking x402 payments in the
 * EIP-3009 `TestUsdc` of Hardhat's in-process chain. The payer's key comes from
 * `LIGHTHOUSE_PRIVATE_KEY` or from the stored wallet opened with its password, never from argv.
 * A paid upload is settled and stored; an underpayment and another asset are the library's typed
 * errors (exit 1, nothing stored, nothing paid); bad flags and a missing key are usage errors.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { deployLocal, type LocalDeployment, testUsdcAbi } from "lighthouse-effect/contracts"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { HttpResponse, http } from "msw"
import { type Address, erc20Abi } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, lastLine, run } from "./support/commands.ts"

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

/** The local chain and its EIP-3009 USDC: the only payment these uploads may make (no USDC is known there). */
const local = () => ["--network", "localhost", "--asset", deployment.x402Usdc]

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

    const ran = await run(["x402-upload", path, ...local(), "--json"], {
      LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[1]!
    })
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

  it("--routes current pays over x402 version 2 (POST /api/upload): settled on chain, stored for the payer", async () => {
    const payer = chain.accounts[4]!
    await mint(payer, 10_000n)
    const before = await balanceOf(payTo)
    const path = await fileWith("v2.txt", "paid through the current route")
    const env = { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[4]! }

    const quoted = await run(["x402-upload", path, ...local(), "--routes", "current", "--dry-run"], env)
    expect(quoted.stdout).toContain("chain   eip155:31337 (chain id 31337), x402 version 2\n")
    const ran = await run(["x402-upload", path, ...local(), "--routes", "current", "--json"], env)
    expect(ran).toMatchObject({ code: 0, stderr: "" })
    const result = json(ran) as {
      entry: { Name: string; Hash: string; Size: string }
      stored: { cid: string; publicKey: string; fileSizeBytes: number }
      settlement: { success: boolean; network: string; payer: string }
      paid: { amount: string; x402Version: number }
    }
    // $0.004 for the 1 MB minimum plus the $0.001 facilitator fee.
    expect(result.paid).toMatchObject({ amount: "5000", x402Version: 2 })
    expect(result.entry).toMatchObject({ Name: "v2.txt", Size: "30" })
    expect(result.stored).toMatchObject({ cid: result.entry.Hash, publicKey: payer.toLowerCase(), fileSizeBytes: 30 })
    expect(result.settlement).toMatchObject({ success: true, network: "eip155:31337", payer: payer.toLowerCase() })
    expect(await balanceOf(payTo)).toBe(before + 5000n)
    expect(network.state.files.of(payer.toLowerCase()).map((r) => r.cid)).toEqual([result.entry.Hash])

    const badRoutes = await run(["x402-upload", path, "--routes", "v3"], env)
    expect(badRoutes.code).toBe(2)
  })

  it("LIGHTHOUSE_X402_ROUTES=current picks the current routes without the flag; --routes documented overrides it", async () => {
    await mint(chain.accounts[7]!, 20_000n)
    const env = { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[7]!, LIGHTHOUSE_X402_ROUTES: "current" }
    const path = await fileWith("configured.txt", "routes from the configuration")
    const configured = json(await run(["x402-upload", path, ...local(), "--json"], env)) as {
      paid: { x402Version: number }
    }
    expect(configured.paid.x402Version).toBe(2)
    const overridden = json(await run(["x402-upload", path, ...local(), "--routes", "documented", "--json"], env)) as {
      paid: { x402Version: number }
    }
    expect(overridden.paid.x402Version).toBe(1)
  })

  it("x402-renew: --dry-run shows the terms; the uploader's key pays a year more; another key exits 1, nothing paid", async () => {
    const owner = chain.accounts[5]!
    await mint(owner, 100_000n)
    await mint(chain.accounts[6]!, 100_000n)
    const path = await fileWith("walrus.txt", "seventeen bytes!!")
    const ownerEnv = { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[5]! }
    const uploaded = await run(["x402-upload", path, ...local(), "--routes", "current"], ownerEnv)
    const id = /^record (\S+), paid until (\S+) \(x402-renew \1\)$/m.exec(uploaded.stdout)
    expect(id).not.toBeNull()
    const [, record = "", until = ""] = id!

    const terms = await run(["x402-renew", record, "--dry-run"], {})
    expect(terms.stdout.split("\n").slice(1, 3)).toEqual([
      "price   $0.032500 for 365 days: 63 MiB encoded (66034000 bytes) at $0.0005 per MiB plus $0.001000",
      `expires ${until}`
    ])

    const before = await balanceOf(payTo)
    const stranger = await run(["x402-renew", record, ...local()], { LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[6]! })
    expect(stranger.code).toBe(1)
    expect(stranger.stderr).toContain("403")
    expect(await balanceOf(payTo)).toBe(before)

    const renewed = await run(["x402-renew", record, ...local(), "--json"], ownerEnv)
    expect(renewed).toMatchObject({ code: 0, stderr: "" })
    const result = json(renewed) as {
      renewal: { previousExpiresAt: number; expiresAt: number }
      paid: { amount: string }
    }
    expect(result.paid.amount).toBe("32500")
    expect(new Date(result.renewal.previousExpiresAt).toISOString()).toBe(until)
    expect(result.renewal.expiresAt - result.renewal.previousExpiresAt).toBe(365 * 24 * 60 * 60 * 1000)
    expect(await balanceOf(payTo)).toBe(before + 32_500n)
  })

  it("pays with the stored wallet opened by its password, under --name; the text output", async () => {
    const home = await freshConfigHome()
    const env = { XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: "correct horse battery staple" }
    const created = await run(["wallet", "create", "--json"], env)
    expect(created.code, created.stderr).toBe(0)
    const payer = (json(created) as { address: Address }).address
    await mint(payer, 10_000n)

    const ran = await run(
      ["x402-upload", await fileWith("a.bin", "wallet-paid"), "--name", "renamed.txt", ...local()],
      env
    )
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

    const underpaid = await run(["x402-upload", path, ...local(), "--amount", "3906", "--json"], env)
    expect(underpaid.code).toBe(1)
    expect(json(underpaid)).toEqual({
      error: { _tag: "X402Underpaid", message: "x402 payment of 3906 is below the 3907 required" }
    })
    const wrongAsset = await run(
      ["x402-upload", path, "--network", "localhost", "--asset", deployment.usdc.toLowerCase(), "--json"],
      env
    )
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
    // The flags' schemas refuse them: the command's help, then the error, on stderr.
    const fraction = await run(["x402-upload", path, "--amount", "1.5"], env)
    expect(fraction).toMatchObject({ code: 2, stdout: "" })
    expect(lastLine(fraction.stderr)).toBe(
      `Invalid value for flag --amount: "1.5". Expected: Schema validation failed: a whole number of the token's smallest unit (digits only)`
    )
    const asset = await run(["x402-upload", path, "--asset", "usdc"], env)
    expect(asset).toMatchObject({ code: 2, stdout: "" })
    expect(lastLine(asset.stderr)).toBe(
      `Invalid value for flag --asset: "usdc". Expected: Schema validation failed: a token address (0x and 40 hex digits)`
    )
    const window = await run(["x402-upload", path, "--max-timeout", "0", "--json"], env)
    expect(window.code).toBe(2)
    expect(json(window)).toMatchObject({ error: { _tag: "InvalidValue" } })
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

describe("x402-upload against a hostile 402 (the network's terms beyond the caller's limits)", () => {
  const hostile = "https://x402.hostile.test"
  const baseUsdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
  /** `X-PAYMENT` headers the hostile server received: a signed authorisation would arrive here. */
  const payments: Array<string> = []
  /** Answers every upload with a 402 asking `terms` (fair ones on Base, changed as given). */
  const asking = (terms: Record<string, unknown>) =>
    running!.server.use(
      http.post(`${hostile}/api/x402/upload`, ({ request }) => {
        const payment = request.headers.get("x-payment")
        if (payment !== null) payments.push(payment)
        const accepts = {
          scheme: "exact",
          network: "base",
          maxAmountRequired: "3907",
          resource: `${hostile}/api/x402/upload`,
          description: "Store report.pdf",
          mimeType: "application/json",
          payTo: "0x1111111111111111111111111111111111111111",
          maxTimeoutSeconds: 300,
          asset: baseUsdc,
          extra: { name: "USD Coin", version: "2" },
          ...terms
        }
        return HttpResponse.json(
          { x402Version: 1, error: "X-PAYMENT header is required", accepts: [accepts] },
          { status: 402 }
        )
      })
    )
  const env = () => ({ LIGHTHOUSE_PRIVATE_KEY: chain.privateKeys[6]!, LIGHTHOUSE_API_URL: hostile })

  it("the issue's 402s exit 1 with the typed refusal and sign nothing, with no limits given", async () => {
    const path = await fileWith("report.pdf", "a report")
    const refusals: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
      [
        { maxAmountRequired: `1${"0".repeat(30)}`, payTo: "0x000000000000000000000000000000000000dEaD" },
        "X402PriceAboveMaximum",
        `x402 payment of 1${"0".repeat(30)} asked, above the 100000 allowed (raise maxAmount to pay it)`
      ],
      [
        { network: "eip155:1", asset: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" },
        "X402WrongNetwork",
        "x402 payment asked on eip155:1, expected base"
      ],
      [
        { maxTimeoutSeconds: 1e10 },
        "X402WindowTooLong",
        "x402 authorisation valid for 10000000000 s asked, above the 3600 s allowed"
      ],
      [
        { asset: "0x4200000000000000000000000000000000000006" },
        "X402WrongAsset",
        `x402 payment asked in 0x4200000000000000000000000000000000000006, offered ${baseUsdc}`
      ],
      [{ payTo: "nope" }, "X402MalformedTerms", "x402 terms refused: payTo nope is not an address"]
    ]
    for (const [terms, tag, message] of refusals) {
      asking(terms)
      const ran = await run(["x402-upload", path, "--json"], env())
      expect(ran.code).toBe(1)
      expect(json(ran)).toEqual({ error: { _tag: tag, message } })
    }
    expect(payments).toEqual([])
  })

  it("--max-amount raises the ceiling; a price above it is still refused", async () => {
    const path = await fileWith("report.pdf", "a report")
    asking({ maxAmountRequired: "250000" })
    const refused = await run(["x402-upload", path, "--max-amount", "249999", "--json"], env())
    expect(json(refused)).toEqual({
      error: {
        _tag: "X402PriceAboveMaximum",
        message: "x402 payment of 250000 asked, above the 249999 allowed (raise maxAmount to pay it)"
      }
    })
    expect(payments).toEqual([])
    // Within the raised ceiling the authorisation is signed and sent (the hostile server then refuses it).
    await run(["x402-upload", path, "--max-amount", "250000", "--json"], env())
    expect(payments).toHaveLength(1)
    payments.length = 0
  })

  it("--dry-run shows price, payee, chain, token and window, with no key; nothing signed, nothing stored", async () => {
    const path = await fileWith("quoted.txt", "only a quote")
    const home = await freshConfigHome()
    const ran = await run(["x402-upload", path, ...local(), "--dry-run"], { XDG_CONFIG_HOME: home })
    expect(ran).toMatchObject({ code: 0, stderr: "" })
    expect(ran.stdout.split("\n")).toEqual([
      `price   0.003907 USD Coin (3907 base units of ${deployment.x402Usdc})`,
      `payee   ${payTo}`,
      "chain   localhost (chain id 31337), x402 version 1",
      "window  300 s",
      expect.stringMatching(/^for {5}Store /),
      "nothing signed (--dry-run)",
      ""
    ])
    const quoted = await run(["x402-upload", path, ...local(), "--dry-run", "--json"], { XDG_CONFIG_HOME: home })
    expect(json(quoted)).toMatchObject({
      amount: "3907",
      asset: deployment.x402Usdc,
      payTo,
      network: "localhost",
      chainId: 31337,
      maxTimeoutSeconds: 300
    })
    expect(network.state.files.byCidMatching((r) => r.fileName === "quoted.txt")).toBeUndefined()
  })

  it("--help shows the ceiling and its default", async () => {
    const help = await run(["x402-upload", "--help"], {})
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--max-amount")
    expect(help.stdout).toContain("default 100000 = 0.1 USDC")
    expect(help.stdout).toContain("--dry-run")
  })
})
