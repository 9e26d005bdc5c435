/**
 * `KeyShards` on the wire, against the mock key nodes (msw, in process): every request's method,
 * path, headers and body, the pauses between nodes in virtual time, and every error `save`,
 * `recover` and `fetchKey` can produce. Time is the `TestClock`'s: a test takes milliseconds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Random, Redacted } from "effect"
import { makeFaults, makeKeyNodes } from "lighthouse-effect/mocks"
import * as Auth from "../src/Auth.ts"
import type { EncryptionFailed, NodeError, NodesDisagree } from "../src/Errors.ts"
import * as KeyShards from "../src/KeyShards.ts"
import * as Signer from "../src/Signer.ts"
import { alice, bob, cid, otherCid } from "./support/accounts.ts"
import { keyServices } from "./support/layers.ts"
import { type Logged, makeNetworkHarness } from "./support/network.ts"

// =============================================================================
// Harness: mock nodes on msw, a request log in virtual time, a loop that advances the TestClock
// =============================================================================

/** The mock key nodes alone, on the running test's TestClock (JWT times), which stamps the request log too. */
const {
  network,
  log,
  now: clockNow,
  settle
} = makeNetworkHarness((now) => {
  const faults = makeFaults()
  const keyNodes = makeKeyNodes({ faults, now })
  const reset = () => {
    keyNodes.reset()
    faults.clear()
  }
  return { handlers: keyNodes.handlers, reset, keyNodes, faults }
})
const { keyNodes, faults } = network
const TestLayer = keyServices()

const aliceAddress = alice.address.toLowerCase()

/** A JWT for `account` through the Auth service (so the shard calls below are the only node calls logged after it). */
const tokenFor = (account: typeof alice) =>
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    const token = yield* settle(auth.signIn(Signer.makeFromAccount(account)))
    return token.token
  })

/** Alice signed in, with a fresh key's shards not saved anywhere yet; the log is cleared afterwards. */
const aliceWithShards = Effect.gen(function* () {
  const shards = yield* KeyShards.KeyShards
  const token = yield* tokenFor(alice)
  log.length = 0
  const { masterKey, keyShards } = yield* KeyShards.generate()
  return { shards, token, masterKey, keyShards }
})

/** A fresh key saved for alice under `cid`; the log is cleared afterwards. */
const savedKey = (forCid = cid, shareTo?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { shards, token, masterKey, keyShards } = yield* aliceWithShards
    yield* settle(shards.save({ cid: forCid, address: alice.address, token, keyShards, shareTo }))
    log.length = 0
    return { masterKey, keyShards, token }
  })

const shardPaths = (entries: ReadonlyArray<Logged>) => entries.map((e) => `${e.method} ${e.path}`)

// =============================================================================
// save
// =============================================================================

describe("KeyShards.save", () => {
  it.effect("POSTs shard i to node i, in order, 1000 ms apart, with the bearer token and no sharedTo", () =>
    Effect.gen(function* () {
      const { shards, token, keyShards } = yield* aliceWithShards
      const start = clockNow()
      const result = yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))

      assert.deepStrictEqual(
        shardPaths(log),
        [1, 2, 3, 4, 5].map((n) => `POST /api/setSharedKey/${n}`)
      )
      for (const [i, entry] of log.entries()) {
        assert.deepStrictEqual(entry.body, { address: aliceAddress, cid, payload: keyShards[i] })
        assert.strictEqual(entry.headers.authorization, `Bearer ${Redacted.value(token)}`)
        assert.strictEqual(entry.headers["content-type"], "application/json")
      }
      // The provider's 1 s pause between two nodes, and none after the last.
      const gaps = log.slice(1).map((e, i) => e.at - log[i]!.at)
      for (const gap of gaps) assert.isTrue(gap >= 1000 && gap < 1500, `gap ${gap}`)
      assert.isTrue(clockNow() - start < 4 * 1500)
      assert.deepStrictEqual(
        result.reports.map((r) => [r.nodeId, r.outcome, r.attempts]),
        [1, 2, 3, 4, 5].map((n) => [n, "succeeded", 1])
      )
      assert.deepStrictEqual(
        keyNodes.nodes.map((node) => node.files.get(cid)?.shard),
        keyShards.map((s) => ({ ...s }))
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("sends `sharedTo` (that spelling), lower-cased, only when the list is non-empty", () =>
    Effect.gen(function* () {
      const { shards, token, keyShards } = yield* aliceWithShards
      yield* settle(shards.save({ cid, address: alice.address, token, keyShards, shareTo: [bob.address] }))
      for (const [i, entry] of log.entries())
        assert.deepStrictEqual(entry.body, {
          address: aliceAddress,
          cid,
          payload: keyShards[i],
          sharedTo: [bob.address.toLowerCase()]
        })
      log.length = 0
      yield* settle(shards.save({ cid: otherCid, address: alice.address, token, keyShards, shareTo: [] }))
      assert.isFalse(log.some((e) => typeof e.body === "object" && e.body !== null && "sharedTo" in e.body))
      assert.deepStrictEqual(keyNodes.nodes[4].files.get(cid)?.sharedTo, [bob.address.toLowerCase()])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("concurrent policy: all 5 nodes at once, no pause", () =>
    Effect.gen(function* () {
      const { shards, token, keyShards } = yield* aliceWithShards
      const start = clockNow()
      yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
      assert.deepStrictEqual(
        [...shardPaths(log)].sort(),
        [1, 2, 3, 4, 5].map((n) => `POST /api/setSharedKey/${n}`)
      )
      assert.isTrue(log.every((e) => e.at === start))
    }).pipe(Effect.provide(keyServices({ mode: "concurrent" })))
  )

  it.effect("`Invalid CID` before the shard count, and nothing is sent", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const error = yield* Effect.flip(
        shards.save({ cid: `garbage/${cid}/more`, address: alice.address, token: "t", keyShards: [] })
      )
      assert.strictEqual(error._tag, "InvalidCid")
      assert.strictEqual(error.message, "Invalid CID")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`keyShards must be an array of 5 objects` for 4 or 6 shards, and nothing is sent", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { keyShards } = yield* KeyShards.generate(3, 6)
      for (const list of [keyShards.slice(0, 4), keyShards]) {
        const error = yield* Effect.flip(shards.save({ cid, address: alice.address, token: "t", keyShards: list }))
        assert.strictEqual(error._tag, "InvalidKeyShards")
        assert.strictEqual(error.message, "keyShards must be an array of 5 objects")
      }
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`Invalid public Key` for a bad owner or a bad shareTo address, and nothing is sent", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { keyShards } = yield* KeyShards.generate()
      const bad = yield* Effect.flip(shards.save({ cid, address: "0x1234", token: "t", keyShards }))
      assert.strictEqual(bad.message, "Invalid public Key")
      const badShare = yield* Effect.flip(
        shards.save({ cid, address: alice.address, token: "t", keyShards, shareTo: ["bob"] })
      )
      assert.strictEqual(badShare.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a node down: `Error encrypting file`, caused by that node, naming the nodes that hold a shard", () =>
    Effect.gen(function* () {
      const { shards, token, keyShards } = yield* aliceWithShards
      faults.down({ host: "encryption", node: 3 })
      const error = (yield* Effect.flip(
        settle(shards.save({ cid, address: alice.address, token, keyShards }))
      )) as EncryptionFailed
      assert.strictEqual(error._tag, "EncryptionFailed")
      assert.match(
        error.message,
        /^Error encrypting file: fetch failed \(node 3: POST https:\/\/encryption\.lighthouse\.storage\/api\/setSharedKey\/3: .+\)$/
      )
      const cause = error.cause as NodeError
      assert.strictEqual(cause._tag, "NodeError")
      assert.strictEqual(cause.nodeId, 3)
      assert.strictEqual(cause.statusCode, 0)
      assert.strictEqual(cause.message, "fetch failed")
      assert.deepStrictEqual(cause.succeededNodes, [1, 2])
      // Node 3 tried 3 times, 1000 ms apart; nodes 4 and 5 never called.
      assert.deepStrictEqual(shardPaths(log), [
        "POST /api/setSharedKey/1",
        "POST /api/setSharedKey/2",
        "POST /api/setSharedKey/3",
        "POST /api/setSharedKey/3",
        "POST /api/setSharedKey/3"
      ])
      assert.isTrue(log[3]!.at - log[2]!.at >= 1000 && log[4]!.at - log[3]!.at >= 1000)
      assert.deepStrictEqual(
        keyNodes.nodes.map((node) => node.files.has(cid)),
        [true, true, false, false, false]
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a 500 is not retried; a 404 is, and succeeds on the second try", () =>
    Effect.gen(function* () {
      const { shards, token, keyShards } = yield* aliceWithShards
      faults.notFound({ host: "encryption", node: 2 }, { times: 1 })
      const ok = yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
      assert.deepStrictEqual(
        ok.reports.map((r) => r.attempts),
        [1, 2, 1, 1, 1]
      )
      log.length = 0
      faults.status({ host: "encryption", node: 1 }, 500, { body: { message: "Internal Server Error" } })
      const error = (yield* Effect.flip(
        settle(shards.save({ cid: otherCid, address: alice.address, token, keyShards }))
      )) as EncryptionFailed
      const cause = error.cause as NodeError
      assert.strictEqual(cause.nodeId, 1)
      assert.strictEqual(cause.statusCode, 500)
      assert.strictEqual(cause.message, "Internal Server Error")
      assert.deepStrictEqual(cause.succeededNodes, [])
      assert.strictEqual(log.length, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("someone else's CID: node 1 answers Access Denied, nothing is written", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      yield* savedKey()
      const bobToken = yield* tokenFor(bob)
      log.length = 0
      const { keyShards } = yield* KeyShards.generate()
      const error = (yield* Effect.flip(
        settle(shards.save({ cid, address: bob.address, token: bobToken, keyShards }))
      )) as EncryptionFailed
      const cause = error.cause as NodeError
      // The node nests its message three deep; the error shows the innermost one, naming the node.
      assert.strictEqual(error.message, "Error encrypting file: Access Denied (node 1)")
      assert.strictEqual(cause.nodeId, 1)
      assert.strictEqual(cause.statusCode, 403)
      assert.deepStrictEqual(cause.body, { message: { message: { message: "Access Denied" } }, statusCode: 403 })
      assert.strictEqual(log.length, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("answers that disagree: `Error encrypting file` caused by NodesDisagree", () =>
    Effect.gen(function* () {
      const { shards, token, keyShards } = yield* aliceWithShards
      faults.inconsistent({ host: "encryption", node: 4 })
      const error = (yield* Effect.flip(
        settle(shards.save({ cid, address: alice.address, token, keyShards }))
      )) as EncryptionFailed
      const cause = error.cause as NodesDisagree
      assert.strictEqual(cause._tag, "NodesDisagree")
      assert.strictEqual(cause.operation, "saveShards")
      assert.strictEqual(cause.answers.length, 5)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a bad token: node 1 answers 401 Invalid Signature", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { keyShards } = yield* KeyShards.generate()
      const error = (yield* Effect.flip(
        settle(shards.save({ cid, address: alice.address, token: Redacted.make("0xdead"), keyShards }))
      )) as EncryptionFailed
      const cause = error.cause as NodeError
      assert.strictEqual(cause.message, "Invalid Signature")
      assert.strictEqual(cause.statusCode, 401)
      assert.strictEqual(log[0]!.headers.authorization, "Bearer 0xdead")
    }).pipe(Effect.provide(TestLayer))
  )
})

// =============================================================================
// recover and fetchKey
// =============================================================================

describe("KeyShards.recover", () => {
  it.effect("3 distinct random nodes, ascending, 1000 ms apart, each POSTed {address, cid, dynamicData}", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { keyShards, token } = yield* savedKey()
      const seen = new Set<string>()
      for (let round = 0; round < 6; round++) {
        log.length = 0
        const result = yield* settle(shards.recover({ cid, address: alice.address, token }))
        const ids = log.map((e) => Number(e.path.split("/").pop()))
        assert.strictEqual(ids.length, 3)
        assert.deepStrictEqual(
          ids,
          [...new Set(ids)].sort((a, b) => a - b)
        )
        assert.deepStrictEqual(result.nodes, ids)
        assert.deepStrictEqual(
          result.shards,
          ids.map((id) => keyShards[id - 1]!)
        )
        for (const entry of log) {
          assert.strictEqual(entry.method, "POST")
          assert.deepStrictEqual(entry.body, { address: aliceAddress, cid, dynamicData: {} })
          assert.strictEqual(entry.headers.authorization, `Bearer ${Redacted.value(token)}`)
        }
        assert.isTrue(log[1]!.at - log[0]!.at >= 1000 && log[2]!.at - log[1]!.at >= 1000)
        seen.add(ids.join(","))
      }
      // The choice is random (seeded below, so this run is reproducible).
      assert.isTrue(seen.size > 1)
    }).pipe(Effect.provide(TestLayer), Random.withSeed("key-shards"))
  )

  it.effect("`count` and `dynamicData` go through; a count outside 1–5 fails before any request", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { token } = yield* savedKey()
      const five = yield* settle(
        shards.recover({ cid, address: alice.address, token, count: 5, dynamicData: { ":param": 7 } })
      )
      assert.deepStrictEqual(five.nodes, [1, 2, 3, 4, 5])
      assert.deepStrictEqual(log[0]!.body, { address: aliceAddress, cid, dynamicData: { ":param": 7 } })
      log.length = 0
      for (const count of [0, 6, 2.5]) {
        const error = yield* Effect.flip(shards.recover({ cid, address: alice.address, token, count }))
        assert.strictEqual(error._tag, "InvalidKeySplit")
        assert.strictEqual(error.message, "Invalid key split: count must be an integer from 1 to 5")
      }
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`cid not found` when the nodes have no record (their error text contains null)", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { token } = yield* savedKey()
      const error = yield* Effect.flip(settle(shards.recover({ cid: otherCid, address: alice.address, token })))
      assert.strictEqual(error._tag, "CidNotFound")
      assert.strictEqual(error.message, "cid not found")
      // The first refusal ends the recovery.
      assert.strictEqual(log.length, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`Access Denied` (nested three levels by the node) for an address without the right", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      yield* savedKey()
      const bobToken = yield* tokenFor(bob)
      log.length = 0
      const error = yield* Effect.flip(settle(shards.recover({ cid, address: bob.address, token: bobToken })))
      assert.strictEqual(error._tag, "AccessDenied")
      assert.strictEqual(error.message, "Access Denied")
      assert.strictEqual(log.length, 1)
      assert.strictEqual(keyNodes.nodes.flatMap((n) => n.released).length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a bad token: the node's 401 `Invalid Signature`, not retried", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      yield* savedKey()
      const error = yield* Effect.flip(settle(shards.recover({ cid, address: alice.address, token: "0xdead" })))
      assert.strictEqual(error._tag, "NodeError")
      assert.strictEqual(error.message, "Invalid Signature")
      assert.strictEqual(log.length, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a chosen node down or failing (5xx): the remaining nodes are asked instead", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { keyShards, token } = yield* savedKey()
      faults.down({ host: "encryption", node: 1 })
      faults.status({ host: "encryption", node: 2 }, 503)
      const result = yield* settle(shards.recover({ cid, address: alice.address, token, count: 3 }))
      assert.deepStrictEqual(result.nodes, [3, 4, 5])
      assert.deepStrictEqual(result.shards, keyShards.slice(2))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("too many nodes failing: KeyNodesUnavailable says which nodes failed and why", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { token } = yield* savedKey()
      faults.down({ host: "encryption", node: 1 })
      faults.status({ host: "encryption", node: 2 }, 503, { body: { message: "overloaded" } })
      faults.status({ host: "encryption", node: 4 }, 500, { body: { message: "disk full" } })
      const error = yield* Effect.flip(settle(shards.recover({ cid, address: alice.address, token })))
      assert.strictEqual(error._tag, "KeyNodesUnavailable")
      if (error._tag !== "KeyNodesUnavailable") return
      assert.deepStrictEqual(
        [...error.failures].sort((a, b) => a.nodeId - b.nodeId),
        [
          { nodeId: 1, statusCode: 0, nodeMessage: "fetch failed" },
          { nodeId: 2, statusCode: 503, nodeMessage: "overloaded" },
          { nodeId: 4, statusCode: 500, nodeMessage: "disk full" }
        ]
      )
      assert.strictEqual(error.received, 2)
      assert.strictEqual(error.needed, 3)
      assert.strictEqual(
        error.message,
        `Only 2 of 3 key shards could be retrieved (${error.failures.map((f) => `node ${f.nodeId}: ${f.nodeMessage}`).join(", ")})`
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("concurrent policy: the chosen nodes at once", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { token } = yield* savedKey()
      const start = clockNow()
      const result = yield* settle(shards.recover({ cid, address: alice.address, token }))
      assert.strictEqual(result.nodes.length, 3)
      assert.isTrue(log.every((e) => e.at === start))
    }).pipe(Effect.provide(keyServices({ mode: "concurrent" })))
  )

  it.effect("`Invalid CID` and `Invalid public Key` before any request", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const badCid = yield* Effect.flip(shards.recover({ cid: "Qm123", address: alice.address, token: "t" }))
      assert.strictEqual(badCid.message, "Invalid CID")
      const badAddress = yield* Effect.flip(shards.recover({ cid, address: "alice", token: "t" }))
      assert.strictEqual(badAddress.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("KeyShards.fetchKey", () => {
  it.effect("recovers the master key, Redacted", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { masterKey, token } = yield* savedKey()
      const key = yield* settle(shards.fetchKey({ cid, address: alice.address, token }))
      assert.isTrue(Redacted.isRedacted(key))
      assert.strictEqual(Redacted.value(key), Redacted.value(masterKey))
      assert.notInclude(String(key), Redacted.value(masterKey))
      assert.strictEqual(log.length, 3)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("`can't recover Key` when the shards handed out are not shards of one key", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { token } = yield* savedKey()
      // Every node hands out the same shard: duplicate indices cannot be interpolated.
      for (const node of keyNodes.nodes) node.files.get(cid)!.shard = { ...keyNodes.nodes[0].files.get(cid)!.shard }
      const error = yield* Effect.flip(settle(shards.fetchKey({ cid, address: alice.address, token })))
      assert.strictEqual(error._tag, "CannotRecoverKey")
      assert.strictEqual(error.message, "can't recover Key")
      // Not hex at all.
      for (const node of keyNodes.nodes) node.files.get(cid)!.shard = { key: "zz", index: "01" }
      const garbage = yield* Effect.flip(settle(shards.fetchKey({ cid, address: alice.address, token })))
      assert.strictEqual(garbage.message, "can't recover Key")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a 2xx without a shard counts as a failing node, and another node is asked", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { masterKey, token } = yield* savedKey()
      faults.inconsistent({ host: "encryption", node: 1 }, { mutate: () => ({ message: "success" }) })
      faults.inconsistent({ host: "encryption", node: 2 }, { mutate: () => ({ message: "success" }) })
      const key = yield* settle(shards.fetchKey({ cid, address: alice.address, token }))
      assert.strictEqual(Redacted.value(key), Redacted.value(masterKey))
      const asked = log.map((e) => Number(e.path.split("/").pop()))
      assert.includeMembers(asked, [3, 4, 5])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("the pure functions are the crypto module's", () =>
    Effect.gen(function* () {
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const again = yield* KeyShards.recoverKey(keyShards.slice(1, 4), { threshold: 3 })
      assert.strictEqual(Redacted.value(again), Redacted.value(masterKey))
      const split = yield* KeyShards.shardKey(masterKey)
      assert.strictEqual(split.length, 5)
      const fromSplit = yield* KeyShards.recoverKey([split[0]!, split[2]!, split[4]!])
      assert.strictEqual(Redacted.value(fromSplit), Redacted.value(masterKey))
      assert.strictEqual(Duration.toMillis(Duration.seconds(1)), 1000)
    })
  )
})
