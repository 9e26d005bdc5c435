/**
 * Access conditions end to end against the mock network and a local chain (Hardhat 3's in-process
 * EDR, through `mocks/src/chain/LocalChain.ts`): the owner creates a file whose key is released to holders
 * of at least 1 USDC (an ERC20 `balanceOf` condition evaluated on chain by the key nodes). A
 * holder recovers the key, a non-holder is refused until it holds the token, and raising the bar
 * with an update locks the holder out again.
 *
 * The owner signs through the chain's EIP-1193 provider (`Signer.layerFromEip1193`, the browser path);
 * the others with private keys.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type { LocalDeployment } from "lighthouse-effect/contracts"
import { mockStablecoinAbi } from "lighthouse-effect/contracts"
import { createMockNetwork } from "lighthouse-effect/mocks"
import type { LocalChain } from "lighthouse-effect/mocks/chain"
import type { Address } from "viem"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Signer from "../../src/Signer.ts"
import { cid } from "../support/accounts.ts"
import { mint, withDeployedChain } from "../support/chain.ts"
import { keyFlow } from "../support/keyFlows.ts"
import { keyServices } from "../support/layers.ts"
import { makeNetworkHarness } from "../support/network.ts"

// =============================================================================
// Harness: chain, token, mock network on msw
// =============================================================================

const { network, settle } = makeNetworkHarness((clock) => createMockNetwork({ clock }))
let chain: LocalChain
let deployment: LocalDeployment
withDeployedChain((started, deployed) => {
  chain = started
  deployment = deployed
  // The key nodes evaluate EVM conditions of every chain name on this chain.
  network.state.keyNodes.setChain(chain.publicClient)
})

const TestLayer = keyServices()

const oneUsdc = 1_000_000n

/** Mints the 6-decimal USDC. */
const mintUsdc = (to: Address, amount: bigint) => mint(chain, deployment.usdc, to, amount)

const transferAllUsdc = (fromIndex: number) =>
  Effect.promise(async () => {
    const from = chain.walletClients[fromIndex]!
    const balance = await chain.publicClient.readContract({
      address: deployment.usdc,
      abi: mockStablecoinAbi,
      functionName: "balanceOf",
      args: [from.account.address]
    })
    const hash = await from.writeContract({
      address: deployment.usdc,
      abi: mockStablecoinAbi,
      functionName: "transfer",
      args: [chain.accounts[0]!, balance as bigint]
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
  })

const holdsUsdc = (minimum: bigint) => ({
  id: 1,
  chain: "Hardhat",
  method: "balanceOf",
  standardContractType: "ERC20",
  contractAddress: deployment.usdc,
  parameters: [":userAddress"],
  returnValueTest: { comparator: ">=", value: minimum.toString() }
})

const setup = Effect.gen(function* () {
  const { auth, access, recoverAs } = yield* keyFlow(settle, cid)
  // The owner is the chain's first account, signing through its EIP-1193 provider.
  const owner = yield* Signer.makeFromEip1193(chain.provider)
  const holder = yield* Signer.makeFromPrivateKey(Redacted.make(chain.privateKeys[1]!))
  const outsider = yield* Signer.makeFromPrivateKey(Redacted.make(chain.privateKeys[2]!))
  return { auth, access, owner, holder, outsider, recoverAs }
})

// =============================================================================
// Flow
// =============================================================================

describe("ERC20-balance access condition on a local chain", () => {
  it.effect("a holder gets the key, a non-holder does not until it holds the token; an update raises the bar", () =>
    Effect.gen(function* () {
      const { auth, access, owner, holder, outsider, recoverAs } = yield* setup
      assert.strictEqual(owner.address, chain.accounts[0]!.toLowerCase())
      yield* mintUsdc(chain.accounts[1]!, 5n * oneUsdc)

      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* settle(auth.token(owner))
      yield* settle(access.apply({ address: owner.address, cid, token, conditions: [holdsUsdc(oneUsdc)], keyShards }))
      const record = yield* settle(access.get(cid))
      assert.strictEqual(record.owner, owner.address)
      assert.deepStrictEqual(record.conditions, [holdsUsdc(oneUsdc)])

      assert.strictEqual(yield* recoverAs(holder), Redacted.value(masterKey))
      assert.strictEqual(yield* recoverAs(outsider), "AccessDenied")
      assert.strictEqual(yield* recoverAs(owner), Redacted.value(masterKey))

      // The outsider acquires 1 USDC: the same request now succeeds.
      yield* mintUsdc(chain.accounts[2]!, oneUsdc)
      assert.strictEqual(yield* recoverAs(outsider), Redacted.value(masterKey))

      // Raising the bar to 10 USDC (PUT, no shards) locks both out; the owner keeps access.
      yield* settle(access.update({ address: owner.address, cid, token, conditions: [holdsUsdc(10n * oneUsdc)] }))
      assert.strictEqual(yield* recoverAs(holder), "AccessDenied")
      assert.strictEqual(yield* recoverAs(outsider), "AccessDenied")
      assert.strictEqual(yield* recoverAs(owner), Redacted.value(masterKey))

      // Shards were released by right: owner, then conditions only.
      const rights = new Set(network.state.keyNodes.nodes.flatMap((n) => n.released.map((r) => `${r.to}:${r.right}`)))
      assert.deepStrictEqual(
        [...rights].sort(),
        [`${holder.address}:conditions`, `${outsider.address}:conditions`, `${owner.address}:owner`].sort()
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a holder who gives the tokens away loses access", () =>
    Effect.gen(function* () {
      const { auth, access, owner, holder, recoverAs } = yield* setup
      yield* mintUsdc(chain.accounts[1]!, oneUsdc)
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* settle(auth.token(owner))
      yield* settle(access.apply({ address: owner.address, cid, token, conditions: [holdsUsdc(oneUsdc)], keyShards }))
      assert.strictEqual(yield* recoverAs(holder), Redacted.value(masterKey))
      yield* transferAllUsdc(1)
      assert.strictEqual(yield* recoverAs(holder), "AccessDenied")
    }).pipe(Effect.provide(TestLayer))
  )
})
