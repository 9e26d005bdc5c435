/**
 * The key-shard flows end to end, through the public services only, against the composed mock
 * network: an owner saves a file key's shards and recovers the key; an address it shares with
 * recovers it, a revoked one cannot; transferring ownership moves every right; recovery survives
 * two nodes down. Run under both node policies; time is the `TestClock`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { setupServer } from "msw/node"
import { afterAll, beforeAll, beforeEach } from "vitest"
import { createMockNetwork } from "../../../mocks/src/index.ts"
import * as AccessControl from "../../src/AccessControl.ts"
import * as Auth from "../../src/Auth.ts"
import * as Config from "../../src/Config.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Nodes from "../../src/Nodes.ts"
import * as Signer from "../../src/Signer.ts"

// =============================================================================
// Harness
// =============================================================================

let clockNow: () => number = () => 0
const network = createMockNetwork({ clock: () => clockNow() })
const server = setupServer(...network.handlers)
let inflight = 0
const released = () => network.state.keyNodes.nodes.flatMap((n) => n.released)
server.events.on("request:start", () => {
  inflight++
})
server.events.on("request:end", () => {
  inflight--
})

beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
afterAll(() => server.close())
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

const layerWith = (mode: "sequential" | "concurrent") =>
  Layer.mergeAll(AccessControl.layer, KeyShards.layer, Auth.layer()).pipe(
    Layer.provideMerge(Nodes.layer),
    Layer.provideMerge(Config.layer({ nodes: { mode }, requestTimeout: "1 minute" })),
    Layer.provideMerge(FetchHttpClient.layer),
    Layer.provide(Layer.succeed(FetchHttpClient.Fetch, (input, init) => globalThis.fetch(input, init)))
  )

const keys = {
  alice: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  bob: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  carol: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  dave: "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"
} as const
const cid = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"

/** Everything a flow needs: the services and four signers. */
const setup = Effect.gen(function* () {
  const auth = yield* Auth.Auth
  const shards = yield* KeyShards.KeyShards
  const access = yield* AccessControl.AccessControl
  const [alice, bob, carol, dave] = yield* Effect.forEach([keys.alice, keys.bob, keys.carol, keys.dave], (key) =>
    Signer.makeFromPrivateKey(Redacted.make(key))
  )
  /** The key as `signer` recovers it, or the failure's tag. */
  const recoverAs = (signer: Signer.Service) =>
    settle(
      Effect.gen(function* () {
        const token = yield* auth.token(signer)
        return Redacted.value(yield* shards.fetchKey({ cid, address: signer.address, token }))
      })
    ).pipe(Effect.catch((e) => Effect.succeed(e._tag)))
  const tokenOf = (signer: Signer.Service) => settle(auth.token(signer))
  return { auth, shards, access, alice: alice!, bob: bob!, carol: carol!, dave: dave!, recoverAs, tokenOf }
})

// =============================================================================
// Flows
// =============================================================================

describe.each(["sequential", "concurrent"] as const)("key-shard flows (%s)", (mode) => {
  const TestLayer = layerWith(mode)

  it.effect("owner saves the shards and recovers the key; nobody else can", () =>
    Effect.gen(function* () {
      const { shards, alice, bob, recoverAs, tokenOf } = yield* setup
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* tokenOf(alice)
      const saved = yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
      assert.deepStrictEqual(
        saved.reports.map((r) => r.outcome),
        Array(5).fill("succeeded")
      )
      assert.strictEqual(yield* recoverAs(alice), Redacted.value(masterKey))
      assert.strictEqual(yield* recoverAs(bob), "AccessDenied")
      // Exactly 3 shards were handed out, all to alice.
      assert.deepStrictEqual(
        released().map((r) => [r.to, r.right]),
        Array(3).fill([alice.address, "owner"])
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a shared address recovers the key; once revoked it cannot", () =>
    Effect.gen(function* () {
      const { shards, access, alice, bob, carol, dave, recoverAs, tokenOf } = yield* setup
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* tokenOf(alice)
      // dave is shared with at save time, bob afterwards.
      yield* settle(shards.save({ cid, address: alice.address, token, keyShards, shareTo: [dave.address] }))
      assert.strictEqual(yield* recoverAs(dave), Redacted.value(masterKey))
      assert.strictEqual(yield* recoverAs(bob), "AccessDenied")

      yield* settle(access.share({ address: alice.address, cid, token, shareTo: [bob.address] }))
      assert.strictEqual(yield* recoverAs(bob), Redacted.value(masterKey))

      yield* settle(access.revoke({ address: alice.address, cid, token, revokeTo: [bob.address] }))
      assert.strictEqual(yield* recoverAs(bob), "AccessDenied")
      assert.strictEqual(yield* recoverAs(dave), Redacted.value(masterKey))
      assert.strictEqual(yield* recoverAs(carol), "AccessDenied")
      // Only a shared party may be revoked by the owner; bob cannot revoke dave.
      const bobToken = yield* tokenOf(bob)
      const refused = yield* Effect.flip(
        settle(access.revoke({ address: bob.address, cid, token: bobToken, revokeTo: [dave.address] }))
      )
      assert.strictEqual(refused._tag, "AccessDenied")
      assert.deepStrictEqual((yield* settle(access.get(cid))).sharedTo, [dave.address])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("ownership transfer moves every right to the new owner", () =>
    Effect.gen(function* () {
      const { shards, access, alice, bob, carol, recoverAs, tokenOf } = yield* setup
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const aliceToken = yield* tokenOf(alice)
      yield* settle(shards.save({ cid, address: alice.address, token: aliceToken, keyShards, shareTo: [bob.address] }))
      yield* settle(
        access.transferOwnership({ address: alice.address, cid, token: aliceToken, newOwner: carol.address })
      )

      const record = yield* settle(access.get(cid))
      assert.strictEqual(record.owner, carol.address)
      assert.deepStrictEqual(record.sharedTo, [])
      assert.strictEqual(yield* recoverAs(carol), Redacted.value(masterKey))
      // The old owner and the reset sharing list lost their rights.
      assert.strictEqual(yield* recoverAs(alice), "AccessDenied")
      assert.strictEqual(yield* recoverAs(bob), "AccessDenied")
      const aliceShares = yield* Effect.flip(
        settle(access.share({ address: alice.address, cid, token: aliceToken, shareTo: [alice.address] }))
      )
      assert.strictEqual(aliceShares._tag, "AccessDenied")
      // The new owner shares with bob again.
      const carolToken = yield* tokenOf(carol)
      yield* settle(access.share({ address: carol.address, cid, token: carolToken, shareTo: [bob.address] }))
      assert.strictEqual(yield* recoverAs(bob), Redacted.value(masterKey))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("recovery survives two nodes down: the remaining three hand out their shards", () =>
    Effect.gen(function* () {
      const { shards, alice, recoverAs, tokenOf } = yield* setup
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* tokenOf(alice)
      yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
      network.faults.down({ host: "encryption", node: 2 })
      network.faults.status({ host: "encryption", node: 4 }, 502)
      for (let i = 0; i < 4; i++) assert.strictEqual(yield* recoverAs(alice), Redacted.value(masterKey))
      // A third node down: below the threshold, and the error says why.
      network.faults.down({ host: "encryption", node: 5 })
      const error = yield* Effect.flip(settle(shards.recover({ cid, address: alice.address, token })))
      assert.strictEqual(error._tag, "KeyNodesUnavailable")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("the token cache carries the flow across a JWT's expiry", () =>
    Effect.gen(function* () {
      const { shards, alice, recoverAs, tokenOf } = yield* setup
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* tokenOf(alice)
      yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
      // Two hours later the first JWT is long expired: `token` refreshes it on the way.
      yield* TestClock.adjust("2 hours")
      assert.strictEqual(yield* recoverAs(alice), Redacted.value(masterKey))
      const stale = yield* Effect.flip(settle(shards.recover({ cid, address: alice.address, token })))
      assert.strictEqual(stale._tag, "NodeError")
      assert.strictEqual(stale.message, "jwt expired")
    }).pipe(Effect.provide(TestLayer))
  )
})
