/**
 * Access conditions end to end against the mock network and a local chain (Hardhat 3's in-process
 * EDR, through `scripts/lib/chain.ts`): the owner creates a file whose key is released to holders
 * of at least 1 USDC (an ERC20 `balanceOf` condition evaluated on chain by the key nodes). A
 * holder recovers the key, a non-holder is refused until it holds the token, and raising the bar
 * with an update locks the holder out again.
 *
 * The owner signs through the chain's EIP-1193 provider (`Signer.fromEip1193`, the browser path);
 * the others with private keys.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { setupServer } from "msw/node"
import type { Address } from "viem"
import { afterAll, beforeAll, beforeEach } from "vitest"
import { deployLocal, type LocalDeployment } from "../../../contracts/abi/deploy.ts"
import { mockStablecoinAbi } from "../../../contracts/abi/MockStablecoin.ts"
import { createMockNetwork, type MockNetwork } from "../../../mocks/src/index.ts"
import { type LocalChain, startLocalChain } from "../../../scripts/lib/chain.ts"
import * as AccessControl from "../../src/AccessControl.ts"
import * as Auth from "../../src/Auth.ts"
import * as Config from "../../src/Config.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Nodes from "../../src/Nodes.ts"
import * as Signer from "../../src/Signer.ts"

// =============================================================================
// Harness: chain, token, mock network on msw
// =============================================================================

let clockNow: () => number = () => 0
let chain: LocalChain
let deployment: LocalDeployment
let network: MockNetwork
let server: ReturnType<typeof setupServer>
let inflight = 0

beforeAll(async () => {
  chain = await startLocalChain()
  deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
  // The key nodes evaluate EVM conditions of every chain name on this chain.
  network = createMockNetwork({ clock: () => clockNow(), chain: chain.publicClient })
  server = setupServer(...network.handlers)
  server.events.on("request:start", () => {
    inflight++
  })
  server.events.on("request:end", () => {
    inflight--
  })
  server.listen({ onUnhandledFrame: "error" })
}, 120_000)
afterAll(async () => {
  server?.close()
  await chain?.stop()
})
beforeEach(() => {
  network.reset()
  clockNow = () => 0
})

/** Runs `effect` to its end, advancing the TestClock in 100 ms steps while no request is in flight. */
const settle = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock
    clockNow = () => clock.currentTimeMillisUnsafe()
    const fiber = yield* Effect.forkChild(effect)
    let busyTurns = 0
    while (fiber.pollUnsafe() === undefined) {
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      if (inflight > 0 && busyTurns++ < 500) continue
      busyTurns = 0
      yield* TestClock.adjust("100 millis")
    }
    return yield* Fiber.join(fiber)
  })

const TestLayer = Layer.mergeAll(AccessControl.layer, KeyShards.layer, Auth.layer()).pipe(
  Layer.provideMerge(Nodes.layer),
  Layer.provideMerge(Config.layer({ requestTimeout: "1 minute" })),
  Layer.provideMerge(FetchHttpClient.layer),
  Layer.provide(Layer.succeed(FetchHttpClient.Fetch, (input, init) => globalThis.fetch(input, init)))
)

const cid = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"
const oneUsdc = 1_000_000n

/** Mints (or, with a negative amount, burns by transfer to the deployer) the 6-decimal USDC. */
const mintUsdc = (to: Address, amount: bigint) =>
  Effect.promise(async () => {
    const hash = await chain.walletClients[0]!.writeContract({
      address: deployment.usdc,
      abi: mockStablecoinAbi,
      functionName: "mint",
      args: [to, amount]
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
  })

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
  const auth = yield* Auth.Auth
  const shards = yield* KeyShards.KeyShards
  const access = yield* AccessControl.AccessControl
  // The owner is the chain's first account, signing through its EIP-1193 provider.
  const owner = yield* Signer.makeFromEip1193(chain.provider)
  const holder = yield* Signer.makeFromPrivateKey(Redacted.make(chain.privateKeys[1]!))
  const outsider = yield* Signer.makeFromPrivateKey(Redacted.make(chain.privateKeys[2]!))
  const recoverAs = (signer: Signer.Service) =>
    settle(
      Effect.gen(function* () {
        const token = yield* auth.token(signer)
        return Redacted.value(yield* shards.fetchKey({ cid, address: signer.address, token }))
      })
    ).pipe(Effect.catch((e) => Effect.succeed(e._tag)))
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
