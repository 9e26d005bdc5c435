/**
 * The key-shard flows end to end, through the public services only, against the composed mock
 * network: an owner saves a file key's shards and recovers the key; an address it shares with
 * recovers it, a revoked one cannot; transferring ownership moves every right; recovery survives
 * two nodes down. Run under both node policies; time is the `TestClock`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createMockNetwork } from "lighthouse-effect/mocks"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Signer from "../../src/Signer.ts"
import { cid, keys } from "../support/accounts.ts"
import { keyFlow } from "../support/keyFlows.ts"
import { keyServices } from "../support/layers.ts"
import { makeNetworkHarness } from "../support/network.ts"

// =============================================================================
// Harness
// =============================================================================

const { network, settle } = makeNetworkHarness((clock) => createMockNetwork({ clock }))
const released = () => network.state.keyNodes.nodes.flatMap((n) => n.released)

/** Everything a flow needs: the services and four signers. */
const setup = Effect.gen(function* () {
  const flow = yield* keyFlow(settle, cid)
  const [alice, bob, carol, dave] = yield* Effect.forEach([keys.alice, keys.bob, keys.carol, keys.dave], (key) =>
    Signer.makeFromPrivateKey(Redacted.make(key))
  )
  return { ...flow, alice: alice!, bob: bob!, carol: carol!, dave: dave! }
})

// =============================================================================
// Flows
// =============================================================================

describe.each(["sequential", "concurrent"] as const)("key-shard flows (%s)", (mode) => {
  const TestLayer = keyServices({ mode })

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
      // The old token object still works: it carries alice's session, which holds the new JWT.
      const recovered = yield* settle(shards.recover({ cid, address: alice.address, token }))
      assert.strictEqual(recovered.shards.length, 3)
      // The same JWT as a bare string has no session: the node's refusal is the answer.
      const stale = yield* Effect.flip(
        settle(shards.recover({ cid, address: alice.address, token: Redacted.value(token) }))
      )
      assert.strictEqual(stale._tag, "NodeError")
      assert.strictEqual(stale.message, "jwt expired")
    }).pipe(Effect.provide(TestLayer))
  )
})
