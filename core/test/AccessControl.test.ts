/**
 * `AccessControl` on the wire against the composed mock network: create (POST with 5 shards) and
 * update (PUT) of access conditions through all 5 nodes, reading them, sharing, revoking and
 * transferring ownership (stopping at the first failing node), with the validation errors raised
 * before any request and every refusal of the nodes. Time is the `TestClock`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createMockNetwork } from "lighthouse-effect/mocks"
import * as AccessControl from "../src/AccessControl.ts"
import * as Auth from "../src/Auth.ts"
import type { NodeError, NodesDisagree } from "../src/Errors.ts"
import * as KeyShards from "../src/KeyShards.ts"
import * as Signer from "../src/Signer.ts"
import { alice, bob, carol, cid, otherCid as unknownCid } from "./support/accounts.ts"
import { keyServices } from "./support/layers.ts"
import { makeNetworkHarness } from "./support/network.ts"

// =============================================================================
// Harness
// =============================================================================

/** The mock network on the running test's TestClock, which stamps the request log too. */
const { network, log, now: clockNow, settle } = makeNetworkHarness((clock) => createMockNetwork({ clock }))
const { faults } = network
const nodeStates = network.state.keyNodes.nodes
const TestLayer = keyServices()

const aliceAddress = alice.address.toLowerCase()
const bobAddress = bob.address.toLowerCase()
const carolAddress = carol.address.toLowerCase()

const balanceAtLeast = (id: number, wei: string) => ({
  id,
  chain: "Hardhat",
  method: "getBalance",
  standardContractType: "",
  parameters: [":userAddress"],
  returnValueTest: { comparator: ">=", value: wei }
})

const tokenFor = (account: typeof alice) =>
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    return yield* settle(auth.token(Signer.makeFromAccount(account)))
  })

/** Alice's file: a key saved under `cid` (no conditions); the log is cleared afterwards. */
const aliceFile = Effect.gen(function* () {
  const shards = yield* KeyShards.KeyShards
  const token = yield* tokenFor(alice)
  const { keyShards } = yield* KeyShards.generate()
  yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
  log.length = 0
  return { token, keyShards }
})

const calls = () => log.map((e) => `${e.method} ${e.path}`)
const allNodes = (method: string, route: string) => [1, 2, 3, 4, 5].map((n) => `${method} ${route}/${n}`)

// =============================================================================
// apply / update / get
// =============================================================================

describe("AccessControl.apply", () => {
  it.effect(
    "with 5 shards: POST to nodes 1→5 {address, cid, conditions, aggregator, decryptionType, chainType, payload}",
    () =>
      Effect.gen(function* () {
        const access = yield* AccessControl.AccessControl
        const token = yield* tokenFor(alice)
        log.length = 0
        const { keyShards } = yield* KeyShards.generate()
        const conditions = [balanceAtLeast(1, "1"), balanceAtLeast(2, "2")]
        const result = yield* settle(
          access.apply({
            address: alice.address,
            cid,
            token,
            conditions,
            aggregator: "([1] or [2])",
            chainType: "evm",
            decryptionType: "address",
            keyShards
          })
        )
        assert.deepStrictEqual(calls(), allNodes("POST", "/api/fileAccessConditions"))
        for (const [i, entry] of log.entries()) {
          assert.deepStrictEqual(entry.body, {
            address: aliceAddress,
            cid,
            conditions,
            aggregator: "([1] or [2])",
            decryptionType: "ADDRESS",
            chainType: "EVM",
            payload: keyShards[i]
          })
          assert.strictEqual(entry.headers.authorization, `Bearer ${Redacted.value(token)}`)
          assert.strictEqual(entry.headers["content-type"], "application/json")
        }
        for (const [i, entry] of log.slice(1).entries()) assert.isTrue(entry.at - log[i]!.at >= 1000)
        assert.deepStrictEqual(
          result.answers.map((a) => (a as { message: string }).message),
          Array(5).fill("success")
        )
        assert.deepStrictEqual(
          nodeStates.map((n) => n.files.get(cid)?.conditions),
          Array(5).fill(conditions)
        )
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("without shards (and `update`): PUT {address, cid, conditions, aggregator, chainType}", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      const conditions = [balanceAtLeast(1, "5")]
      yield* settle(access.apply({ address: alice.address, cid, token, conditions }))
      assert.deepStrictEqual(calls(), allNodes("PUT", "/api/fileAccessConditions"))
      for (const entry of log)
        assert.deepStrictEqual(entry.body, { address: aliceAddress, cid, conditions, chainType: "EVM" })
      log.length = 0
      const two = [balanceAtLeast(1, "5"), balanceAtLeast(2, "6")]
      yield* settle(access.update({ address: alice.address, cid, token, conditions: two, aggregator: "[1] and [2]" }))
      assert.deepStrictEqual(calls(), allNodes("PUT", "/api/fileAccessConditions"))
      assert.deepStrictEqual(log[4]!.body, {
        address: aliceAddress,
        cid,
        conditions: two,
        aggregator: "[1] and [2]",
        chainType: "EVM"
      })
      const read = yield* settle(access.get(cid))
      assert.deepStrictEqual(read.conditions, two)
      assert.strictEqual(read.aggregator, "[1] and [2]")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("Radix conditions: chain type normalised to RADIX on the wire, held by all 5 nodes", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      const conditions = [
        {
          id: 1,
          chain: "Radix_Mainnet",
          method: "getNftsByAddress",
          resourceAddress: "resource_rdx1nfxxxxxxxxxxbadgexxxxxxxxx000000000000xxxxxxxxxbadge",
          returnValueTest: { comparator: ">=", value: 1 }
        }
      ]
      yield* settle(access.update({ address: alice.address, cid, token, conditions, chainType: "radix" }))
      assert.deepStrictEqual(log[0]!.body, { address: aliceAddress, cid, conditions, chainType: "RADIX" })
      assert.deepStrictEqual(
        nodeStates.map((n) => [n.files.get(cid)?.chainType, n.files.get(cid)?.conditions]),
        Array(5).fill(["RADIX", conditions])
      )
      assert.deepStrictEqual((yield* settle(access.get(cid))).conditions, conditions)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("validation before any request: shard count, CID, address, conditions (exact texts)", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { keyShards } = yield* KeyShards.generate()
      const base = { address: alice.address, cid, token: "t", conditions: [balanceAtLeast(1, "1")] }
      const cases: ReadonlyArray<readonly [AccessControl.ApplyInput, string]> = [
        [{ ...base, keyShards: keyShards.slice(0, 3) }, "keyShards must be an array of 5 objects"],
        [{ ...base, cid: "QmNotACid" }, "Invalid CID"],
        [{ ...base, address: "alice" }, "Invalid public Key"],
        [
          { ...base, conditions: [balanceAtLeast(1, "1"), balanceAtLeast(2, "1")] },
          'Condition validation error: "aggregator" is required'
        ],
        [
          { ...base, conditions: [balanceAtLeast(1, "1"), balanceAtLeast(1, "1")], aggregator: "[1] and [1]" },
          'Condition validation error: "conditions[1]" contains a duplicate value'
        ],
        [
          { ...base, conditions: [balanceAtLeast(1, "1"), balanceAtLeast(2, "1")], aggregator: "[1]&&[2]" },
          'Condition validation error: "aggregator" with value "[1]&&[2]" fails to match the required pattern: /( and | or )/i'
        ],
        [
          { ...base, chainType: "bitcoin" },
          'Condition validation error: "chainType" must be one of [EVM, SOLANA, COREUM, RADIX]'
        ],
        [
          { ...base, conditions: [{ ...balanceAtLeast(1, "1"), method: "balanceOf" }] },
          'Condition validation error: "conditions[0].method" must be one of [getBalance, getBlockNumber]'
        ],
        [{ ...base, conditions: [] }, 'Condition validation error: "conditions" must contain at least 1 items']
      ]
      for (const [input, message] of cases) {
        const error = yield* Effect.flip(access.apply(input))
        assert.strictEqual(error.message, message)
      }
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("goes through all 5 nodes when one fails, then reports it with the nodes that accepted", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      faults.down({ host: "encryption", node: 2 })
      const error = (yield* Effect.flip(
        settle(access.update({ address: alice.address, cid, token, conditions: [balanceAtLeast(1, "3")] }))
      )) as NodeError
      assert.strictEqual(error._tag, "NodeError")
      assert.strictEqual(error.nodeId, 2)
      assert.strictEqual(error.message, "fetch failed")
      assert.deepStrictEqual(error.succeededNodes, [1, 3, 4, 5])
      assert.deepStrictEqual(calls(), [
        "PUT /api/fileAccessConditions/1",
        "PUT /api/fileAccessConditions/2",
        "PUT /api/fileAccessConditions/2",
        "PUT /api/fileAccessConditions/2",
        "PUT /api/fileAccessConditions/3",
        "PUT /api/fileAccessConditions/4",
        "PUT /api/fileAccessConditions/5"
      ])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("someone else's file: `Access Denied` from every node, nothing changed", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      yield* aliceFile
      const bobToken = yield* tokenFor(bob)
      log.length = 0
      const error = yield* Effect.flip(
        settle(access.update({ address: bob.address, cid, token: bobToken, conditions: [balanceAtLeast(1, "0")] }))
      )
      assert.strictEqual(error._tag, "AccessDenied")
      assert.strictEqual(error.message, "Access Denied")
      assert.strictEqual(log.length, 5)
      assert.deepStrictEqual(nodeStates[0].files.get(cid)?.conditions, [])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a node that answers something other than `success`: NodesDisagree with the 5 answers", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      faults.inconsistent({ host: "encryption", node: 5 })
      const error = (yield* Effect.flip(
        settle(access.update({ address: alice.address, cid, token, conditions: [balanceAtLeast(1, "3")] }))
      )) as NodesDisagree
      assert.strictEqual(error._tag, "NodesDisagree")
      assert.strictEqual(error.operation, "updateAccessControl")
      assert.strictEqual(error.message, "The key nodes did not agree on updateAccessControl")
      assert.strictEqual(error.answers.length, 5)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a node's own validation error comes back as its message", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      faults.status({ host: "encryption", node: 1 }, 400, { body: { message: "Condition validation error: x" } })
      const error = (yield* Effect.flip(
        settle(access.update({ address: alice.address, cid, token, conditions: [balanceAtLeast(1, "3")] }))
      )) as NodeError
      assert.strictEqual(error.message, "Condition validation error: x")
      assert.strictEqual(error.statusCode, 400)
      assert.deepStrictEqual(error.succeededNodes, [2, 3, 4, 5])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("concurrent policy: the 5 nodes at once", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      const start = clockNow()
      yield* settle(access.update({ address: alice.address, cid, token, conditions: [balanceAtLeast(1, "3")] }))
      assert.strictEqual(log.length, 5)
      assert.isTrue(log.every((e) => e.at === start))
    }).pipe(Effect.provide(keyServices({ mode: "concurrent" })))
  )
})

describe("AccessControl.get", () => {
  it.effect("GET /api/fileAccessConditions/get/{cid}, no token: owner, sharing list, conditions", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const shards = yield* KeyShards.KeyShards
      const token = yield* tokenFor(alice)
      const { keyShards } = yield* KeyShards.generate()
      yield* settle(shards.save({ cid, address: alice.address, token, keyShards, shareTo: [bob.address] }))
      log.length = 0
      const read = yield* settle(access.get(cid))
      assert.deepStrictEqual(calls(), [`GET /api/fileAccessConditions/get/${cid}`])
      assert.strictEqual(log[0]!.headers.authorization, "")
      assert.deepStrictEqual(read, {
        aggregator: "",
        conditions: [],
        conditionsSolana: [],
        sharedTo: [bobAddress],
        owner: aliceAddress,
        cid
      })
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`cid not found` for an unknown CID; `Invalid CID` before any request", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const bad = yield* Effect.flip(access.get("bafy"))
      assert.strictEqual(bad.message, "Invalid CID")
      assert.strictEqual(log.length, 0)
      const missing = yield* Effect.flip(settle(access.get(unknownCid)))
      assert.strictEqual(missing._tag, "CidNotFound")
      assert.strictEqual(missing.message, "cid not found")
    }).pipe(Effect.provide(TestLayer))
  )
})

// =============================================================================
// share / revoke / transferOwnership
// =============================================================================

describe("AccessControl.share", () => {
  it.effect("PUT /api/setSharedKey/{1..5} {address, cid, shareTo} (addresses lower-cased)", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      const result = yield* settle(access.share({ address: alice.address, cid, token, shareTo: [bob.address] }))
      assert.deepStrictEqual(calls(), allNodes("PUT", "/api/setSharedKey"))
      for (const entry of log) {
        assert.deepStrictEqual(entry.body, { address: aliceAddress, cid, shareTo: [bobAddress] })
        assert.strictEqual(entry.headers.authorization, `Bearer ${Redacted.value(token)}`)
      }
      assert.strictEqual(result.reports.length, 5)
      assert.deepStrictEqual(
        nodeStates.map((n) => n.files.get(cid)?.sharedTo),
        Array(5).fill([bobAddress])
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("stops at the first failing node; the error names the nodes already changed", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      faults.status({ host: "encryption", node: 3 }, 500, { body: { message: "Internal Server Error" } })
      const error = (yield* Effect.flip(
        settle(access.share({ address: alice.address, cid, token, shareTo: [bob.address] }))
      )) as NodeError
      assert.strictEqual(error._tag, "NodeError")
      assert.strictEqual(error.nodeId, 3)
      assert.strictEqual(error.statusCode, 500)
      assert.deepStrictEqual(error.succeededNodes, [1, 2])
      assert.deepStrictEqual(calls(), allNodes("PUT", "/api/setSharedKey").slice(0, 3))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "a non-owner gets `Access Denied` from node 1; unknown file is `cid not found`; bad input sends nothing",
    () =>
      Effect.gen(function* () {
        const access = yield* AccessControl.AccessControl
        yield* aliceFile
        const bobToken = yield* tokenFor(bob)
        log.length = 0
        const denied = yield* Effect.flip(
          settle(access.share({ address: bob.address, cid, token: bobToken, shareTo: [carol.address] }))
        )
        assert.strictEqual(denied._tag, "AccessDenied")
        assert.strictEqual(denied.message, "Access Denied")
        assert.strictEqual(log.length, 1)
        const missing = yield* Effect.flip(
          settle(access.share({ address: bob.address, cid: unknownCid, token: bobToken, shareTo: [carol.address] }))
        )
        assert.strictEqual(missing.message, "cid not found")
        log.length = 0
        const badTo = yield* Effect.flip(access.share({ address: alice.address, cid, token: "t", shareTo: ["carol"] }))
        assert.strictEqual(badTo.message, "Invalid public Key")
        const badCid = yield* Effect.flip(access.share({ address: alice.address, cid: "x", token: "t", shareTo: [] }))
        assert.strictEqual(badCid.message, "Invalid CID")
        assert.strictEqual(log.length, 0)
      }).pipe(Effect.provide(TestLayer))
  )
})

describe("AccessControl.revoke", () => {
  it.effect("DELETE /api/setSharedKey/{1..5} with a JSON body {address, cid, revokeTo} (a string becomes a list)", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      yield* settle(access.share({ address: alice.address, cid, token, shareTo: [bob.address, carol.address] }))
      log.length = 0
      yield* settle(access.revoke({ address: alice.address, cid, token, revokeTo: bob.address }))
      assert.deepStrictEqual(calls(), allNodes("DELETE", "/api/setSharedKey"))
      for (const entry of log) {
        assert.deepStrictEqual(entry.body, { address: aliceAddress, cid, revokeTo: [bobAddress] })
        assert.strictEqual(entry.headers["content-type"], "application/json")
      }
      assert.deepStrictEqual(
        nodeStates.map((n) => n.files.get(cid)?.sharedTo),
        Array(5).fill([carolAddress])
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("unlike the provider, 5 identical answers that are not `success` are a failure", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      faults.inconsistent({ host: "encryption", method: "DELETE" }, { mutate: () => ({ message: "failed" }) })
      const error = (yield* Effect.flip(
        settle(access.revoke({ address: alice.address, cid, token, revokeTo: [bob.address] }))
      )) as NodesDisagree
      assert.strictEqual(error._tag, "NodesDisagree")
      assert.strictEqual(error.operation, "revokeAccess")
      assert.deepStrictEqual(error.answers, Array(5).fill({ message: "failed" }))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a non-owner gets `Access Denied`", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      yield* aliceFile
      const bobToken = yield* tokenFor(bob)
      const error = yield* Effect.flip(
        settle(access.revoke({ address: bob.address, cid, token: bobToken, revokeTo: [bob.address] }))
      )
      assert.strictEqual(error.message, "Access Denied")
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("AccessControl.transferOwnership", () => {
  it.effect("POST /api/transferOwnership/{1..5} {address, cid, newOwner, resetSharedTo: true by default}", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      yield* settle(access.share({ address: alice.address, cid, token, shareTo: [carol.address] }))
      log.length = 0
      yield* settle(access.transferOwnership({ address: alice.address, cid, token, newOwner: bob.address }))
      assert.deepStrictEqual(calls(), allNodes("POST", "/api/transferOwnership"))
      for (const entry of log)
        assert.deepStrictEqual(entry.body, { address: aliceAddress, cid, newOwner: bobAddress, resetSharedTo: true })
      const read = yield* settle(access.get(cid))
      assert.strictEqual(read.owner, bobAddress)
      assert.deepStrictEqual(read.sharedTo, [])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("resetSharedTo: false keeps the sharing list", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      yield* settle(access.share({ address: alice.address, cid, token, shareTo: [carol.address] }))
      log.length = 0
      yield* settle(
        access.transferOwnership({ address: alice.address, cid, token, newOwner: bob.address, resetSharedTo: false })
      )
      assert.strictEqual((log[0]!.body as { resetSharedTo: boolean }).resetSharedTo, false)
      assert.deepStrictEqual((yield* settle(access.get(cid))).sharedTo, [carolAddress])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`Invalid public Key` for a bad new owner; the old owner is refused afterwards", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      const bad = yield* Effect.flip(access.transferOwnership({ address: alice.address, cid, token, newOwner: "0x1" }))
      assert.strictEqual(bad.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)
      yield* settle(access.transferOwnership({ address: alice.address, cid, token, newOwner: bob.address }))
      const again = yield* Effect.flip(
        settle(access.transferOwnership({ address: alice.address, cid, token, newOwner: carol.address }))
      )
      assert.strictEqual(again._tag, "AccessDenied")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("answers that differ in `data` fail the strict comparison", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const { token } = yield* aliceFile
      faults.inconsistent(
        { host: "encryption", node: 4 },
        { mutate: (body) => ({ ...(body as object), data: { different: true } }) }
      )
      const error = yield* Effect.flip(
        settle(access.transferOwnership({ address: alice.address, cid, token, newOwner: bob.address }))
      )
      assert.strictEqual(error._tag, "NodesDisagree")
    }).pipe(Effect.provide(TestLayer))
  )
})
