/**
 * EVM conditions evaluated for real on the project's in-process chain (`mocks/src/chain/LocalChain.ts`,
 * Hardhat's EDR): native balance, block number, ERC20 (the project's test stablecoin from
 * `contracts/abi`), ERC721 (`ownerOf`, `balanceOf`), ERC1155 `balanceOf(account, id)` and Custom
 * calls with several inputs and an array output — plus the whole provider flow (kavach
 * `accessControl` with 5 shards, then `recoverShards` by a token holder). The ERC721, ERC1155 and
 * custom fixtures (OpenZeppelin-based) are compiled here with solc-js, so nothing prebuilt is needed.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import kavach from "@lighthouse-web3/kavach"
import { mockStablecoinAbi, mockStablecoinBytecode } from "lighthouse-effect/contracts"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { setupServer } from "msw/node"
import solc from "solc"
import type { Abi, Account, Chain, Hex, PublicClient, Transport, WalletClient } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { makeKeyNodes } from "../../src/keyNodes/index.ts"
import {
  blockNumberAtLeast,
  call,
  cids,
  erc20Balance,
  jwtFor,
  settle,
  shard,
  signIn,
  wallets,
  watch
} from "../support/keyNodes.ts"

const require = createRequire(import.meta.url)

interface Artifact {
  readonly abi: Abi
  readonly bytecode: Hex
}

/** Compiles the fixture contracts (OpenZeppelin resolved from node_modules). */
const compileFixtures = (): Record<string, Artifact> => {
  const source = readFileSync(new URL("./fixtures/ConditionTargets.sol", import.meta.url), "utf8")
  const input = {
    language: "Solidity",
    sources: { "ConditionTargets.sol": { content: source } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } }
  }
  const findImports = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), "utf8") }
    } catch (error) {
      return { error: String(error) }
    }
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error")
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n"))
  const contracts = output.contracts["ConditionTargets.sol"] as Record<
    string,
    { abi: Abi; evm: { bytecode: { object: string } } }
  >
  return Object.fromEntries(
    Object.entries(contracts).map(([name, c]) => [name, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex }])
  )
}

const { alice, bob, carol } = wallets
const stranger = privateKeyToAccount(generatePrivateKey())

let chain: LocalChain
let publicClient: PublicClient
let deployer: WalletClient<Transport, Chain, Account>
const addresses: Record<string, `0x${string}`> = {}
let artifacts: Record<string, Artifact>

const keyNodes = makeKeyNodes()
const server = watch(setupServer(...keyNodes.handlers))

/** Sends a state-changing call from the deployer and waits for it. */
const write = async (name: string, functionName: string, args: ReadonlyArray<unknown>) => {
  const hash = await deployer.writeContract({
    address: addresses[name] as `0x${string}`,
    abi: artifacts[name]?.abi as Abi,
    functionName,
    args
  })
  await publicClient.waitForTransactionReceipt({ hash })
}

beforeAll(async () => {
  artifacts = {
    ...compileFixtures(),
    // ERC20: the project's own test stablecoin (18 decimals here).
    TestToken: { abi: mockStablecoinAbi as Abi, bytecode: mockStablecoinBytecode }
  }
  chain = await startLocalChain()
  publicClient = chain.publicClient as PublicClient
  deployer = chain.walletClients[0] as WalletClient<Transport, Chain, Account>
  const constructorArgs: Record<string, ReadonlyArray<unknown>> = { TestToken: ["Test Dai", "TDAI", 18] }
  for (const name of ["TestToken", "TestNft", "TestMulti", "Membership"]) {
    const artifact = artifacts[name] as Artifact
    const hash = await deployer.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args: constructorArgs[name] ?? []
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    addresses[name] = receipt.contractAddress as `0x${string}`
  }
  keyNodes.setChain(publicClient)
  server.listen({ onUnhandledFrame: "error" })
}, 120_000)

afterAll(async () => {
  server.close()
  await chain?.stop()
})

beforeEach(() => {
  keyNodes.reset()
  keyNodes.setChain(publicClient)
})

/** Alice creates `cid` on every node with these EVM conditions; returns nothing, asserts success. */
const protect = async (cid: string, conditions: ReadonlyArray<Record<string, unknown>>, aggregator?: string) => {
  const { token } = await jwtFor(alice)
  for (let n = 1; n <= 5; n++) {
    const answer = await call(
      "POST",
      `/api/fileAccessConditions/${n}`,
      {
        address: alice.address,
        cid,
        conditions,
        aggregator,
        chainType: "EVM",
        decryptionType: "ADDRESS",
        payload: shard(n)
      },
      token
    )
    expect(answer.status).toBe(200)
  }
}

/** Whether `account` may recover the shard of `cid` from node 2. */
const allowed = async (
  account: { address: string; signMessage: typeof alice.signMessage },
  cid: string,
  dynamicData = {}
) => {
  const signature = await signIn(account as typeof alice)
  const answer = await call(
    "POST",
    "/api/retrieveSharedKey/2",
    { address: account.address, cid, dynamicData },
    signature
  )
  expect([200, 403]).toContain(answer.status)
  return answer.status === 200
}

const test = (comparator: string, value: unknown) => ({ comparator, value })

describe("EVM conditions on a Hardhat chain", () => {
  it("native balance: an account with ETH is allowed, an empty one denied", async () => {
    await protect(cids.a, [
      {
        id: 1,
        chain: "Localhost",
        method: "getBalance",
        standardContractType: "",
        parameters: [":userAddress"],
        returnValueTest: test(">=", "1000000000000000000")
      }
    ])
    expect(await publicClient.getBalance({ address: alice.address })).toBeGreaterThan(10n ** 18n)
    expect(await allowed(bob, cids.a)).toBe(true)
    expect(await allowed(stranger, cids.a)).toBe(false)
    expect(keyNodes.nodes[1].released.map((r) => r.to)).toEqual([bob.address.toLowerCase()])
  })

  it("ERC20 balanceOf: a holder is allowed, a non-holder denied, until tokens arrive", async () => {
    await write("TestToken", "mint", [bob.address, 100n * 10n ** 18n])
    await protect(cids.b, [erc20Balance("Localhost", addresses.TestToken!, test(">=", "100000000000000000000"))])
    expect(await allowed(bob, cids.b)).toBe(true)
    expect(await allowed(carol, cids.b)).toBe(false)
    await write("TestToken", "mint", [carol.address, 100n * 10n ** 18n])
    expect(await allowed(carol, cids.b)).toBe(true)
  })

  it("ERC721 ownerOf(tokenId) == :userAddress and balanceOf; a missing token reverts to false", async () => {
    await write("TestNft", "mint", [bob.address, 42n])
    const nft = { chain: "Localhost", standardContractType: "ERC721", contractAddress: addresses.TestNft }
    await protect(
      cids.c,
      [
        { id: 1, ...nft, method: "ownerOf", parameters: ["42"], returnValueTest: test("==", ":userAddress") },
        { id: 2, ...nft, method: "balanceOf", parameters: [":userAddress"], returnValueTest: test(">=", 1) },
        { id: 3, ...nft, method: "ownerOf", parameters: ["999"], returnValueTest: test("!=", ":userAddress") }
      ],
      "([1] and [2]) or [3]"
    )
    expect(await allowed(bob, cids.c)).toBe(true)
    // Carol owns nothing, and condition 3 reverts (token 999 does not exist): false, not an error.
    expect(await allowed(carol, cids.c)).toBe(false)
  })

  it("ERC1155 balanceOf(account, id)", async () => {
    await write("TestMulti", "mint", [carol.address, 7n, 3n])
    await protect(cids.d, [
      {
        id: 1,
        chain: "Localhost",
        method: "balanceOf",
        standardContractType: "ERC1155",
        contractAddress: addresses.TestMulti,
        parameters: [":userAddress", "7"],
        returnValueTest: test(">", "2")
      }
    ])
    expect(await allowed(carol, cids.d)).toBe(true)
    expect(await allowed(bob, cids.d)).toBe(false)
  })

  it("Custom calls: several typed inputs, a bool output, an array output, dynamicData", async () => {
    await write("Membership", "setLevel", [bob.address, 3])
    await write("Membership", "setLevel", [carol.address, 5])
    const membership = { chain: "Localhost", standardContractType: "Custom", contractAddress: addresses.Membership }
    await protect(
      cids.e,
      [
        {
          id: 1,
          ...membership,
          method: "qualifies",
          parameters: [":userAddress", ":minimum"],
          inputArrayType: ["address", "uint8"],
          outputType: "bool",
          returnValueTest: test("==", "true")
        },
        {
          id: 2,
          ...membership,
          method: "levels",
          parameters: [[bob.address, carol.address]],
          inputArrayType: ["address[]"],
          outputType: "uint8[]",
          returnValueTest: test("==", ["3", "5"])
        }
      ],
      "[1] and [2]"
    )
    expect(await allowed(bob, cids.e, { "1.minimum": "3" })).toBe(true)
    expect(await allowed(bob, cids.e, { "1.minimum": "4" })).toBe(false)
    expect(await allowed(bob, cids.e)).toBe(false)
    await write("Membership", "ban", [bob.address])
    expect(await allowed(bob, cids.e, { minimum: "1" })).toBe(false)
    expect(await allowed(carol, cids.e, { minimum: "5" })).toBe(true)
  })

  it("block number, and chains resolved by name: a chain with no client never grants", async () => {
    const block = await publicClient.getBlockNumber()
    await protect(
      cids.a,
      [blockNumberAtLeast("Localhost", block.toString()), blockNumberAtLeast("Polygon", "0", 2)],
      "[1] and [2]"
    )
    keyNodes.setChain((name) => (name === "Localhost" ? publicClient : undefined))
    expect(await allowed(bob, cids.a)).toBe(false)
    keyNodes.setChain(publicClient)
    expect(await allowed(bob, cids.a)).toBe(true)
  })
})

describe("the provider's flow with an ERC20 condition", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout"] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("kavach accessControl with 5 shards; a token holder recovers the key, a non-holder is denied", async () => {
    await write("TestToken", "mint", [bob.address, 1n])
    const conditions = [erc20Balance("Localhost", addresses.TestToken!, { comparator: ">", value: "0" })]
    const { masterKey, keyShards } = await kavach.generate()
    const created = await settle(
      kavach.accessControl(
        alice.address,
        cids.b,
        await signIn(alice),
        conditions as never,
        undefined,
        "EVM",
        keyShards,
        "ADDRESS"
      )
    )
    expect(created).toEqual({ isSuccess: true, error: null })

    const asHolder = await settle(kavach.recoverShards(bob.address, cids.b, await signIn(bob), 3))
    expect(asHolder.error).toBe(null)
    expect((await kavach.recoverKey(asHolder.shards)).masterKey).toBe(masterKey)

    const asStranger = await settle(kavach.recoverShards(stranger.address, cids.b, await signIn(stranger), 3))
    expect(asStranger.error?.message?.message?.message).toBe("Access Denied")
    const releasedTo = keyNodes.nodes.flatMap((n) => n.released).map((r) => r.to)
    expect(releasedTo).not.toContain(stranger.address.toLowerCase())
  })
})
