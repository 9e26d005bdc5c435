/**
 * `Owner` on every key-node input, against the composed mock network in process: each operation
 * of `KeyShards` and `AccessControl` given `{ signer }` signs in once through `Auth.token` (one
 * cached JWT for all of them), sends that JWT to every node, and changes the nodes' state as the
 * `{ address, token }` form does (which `KeyShards.test.ts`, `AccessControl.test.ts` and
 * `flows/delegation.test.ts` cover). Everything is checked before the signer signs in; a JWT the
 * nodes refuse is renewed and the call repeated, as for a token from `Auth.token`; an owner given
 * both ways, or neither, is refused by the input's schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import * as AccessControl from "../src/AccessControl.ts"
import * as Auth from "../src/Auth.ts"
import { InvalidArgument, type NodeError } from "../src/Errors.ts"
import * as KeyShards from "../src/KeyShards.ts"
import { createLighthouseNode } from "../src/node.ts"
import * as Signer from "../src/Signer.ts"
import { alice, bob, carol, cid } from "./support/accounts.ts"
import { keyServices } from "./support/layers.ts"
import { makeSkewedNetworkHarness } from "./support/skewedNetwork.ts"

const { network, log, settle, runNodesAhead } = makeSkewedNetworkHarness()
const nodeStates = network.state.keyNodes.nodes
const TestLayer = keyServices({ mode: "sequential" })

const aliceSigner = Signer.makeFromAccount(alice)
const bobSigner = Signer.makeFromAccount(bob)
const carolSigner = Signer.makeFromAccount(carol)
const aliceAddress = alice.address.toLowerCase()
const bobAddress = bob.address.toLowerCase()

/** Sign-ins on the wire (`POST /api/message/get-jwt`). */
const signIns = () => log.filter((e) => e.method === "POST" && e.path === "/api/message/get-jwt").length
/** The bearers of the calls to `route`'s 5 nodes. */
const bearersOf = (method: string, route: string) =>
  log.filter((e) => e.method === method && e.path.startsWith(`${route}/`)).map((e) => e.headers.authorization)
/** What every node was sent for `signer`: its cached JWT (no new sign-in). */
const jwtOf = (signer: Signer.Signer["Service"]) =>
  Auth.Auth.use((auth) => auth.token(signer)).pipe(Effect.map((token) => `Bearer ${Redacted.value(token)}`))

/** Alice's file, its shards saved with her signer; the master key. */
const savedBySigner = Effect.gen(function* () {
  const shards = yield* KeyShards.KeyShards
  const { keyShards, masterKey } = yield* KeyShards.generate()
  yield* settle(shards.save({ cid, signer: aliceSigner, keyShards }))
  return masterKey
})

describe("KeyShards with a signer owner", () => {
  it.effect("save: one sign-in, shard i to node i with the signer's JWT, the signer's address owns", () =>
    Effect.gen(function* () {
      yield* savedBySigner
      assert.strictEqual(signIns(), 1)
      const jwt = yield* jwtOf(aliceSigner)
      assert.deepStrictEqual(bearersOf("POST", "/api/setSharedKey"), Array(5).fill(jwt))
      assert.deepStrictEqual(
        nodeStates.map((n) => n.files.get(cid)?.owner),
        Array(5).fill(aliceAddress)
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("recover and fetchKey: the owner's shards and key, on the JWT of the same sign-in", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const masterKey = yield* savedBySigner
      const recovered = yield* settle(shards.recover({ cid, signer: aliceSigner, count: 5 }))
      assert.deepStrictEqual(recovered.nodes, [1, 2, 3, 4, 5])
      const key = yield* settle(shards.fetchKey({ cid, signer: aliceSigner }))
      assert.strictEqual(Redacted.value(key), Redacted.value(masterKey))
      assert.strictEqual(signIns(), 1)
      const jwt = yield* jwtOf(aliceSigner)
      assert.deepStrictEqual(bearersOf("POST", "/api/retrieveSharedKey"), Array(8).fill(jwt))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("everything is checked before the signer signs in: nothing is sent for a bad CID", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      const { keyShards } = yield* KeyShards.generate()
      const saved = yield* Effect.flip(shards.save({ cid: "x", signer: aliceSigner, keyShards }))
      assert.strictEqual(saved.message, "Invalid CID")
      const fetched = yield* Effect.flip(shards.fetchKey({ cid: "x", signer: aliceSigner }))
      assert.strictEqual(fetched.message, "Invalid CID")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a JWT the nodes refuse (expired by their clock) is refreshed and the call repeated once", () =>
    Effect.gen(function* () {
      const shards = yield* KeyShards.KeyShards
      yield* savedBySigner
      runNodesAhead(2 * 24 * 3600 * 1000)
      log.length = 0
      yield* settle(shards.fetchKey({ cid, signer: aliceSigner }))
      const wire = log.map((e) => `${e.method} ${e.path}`)
      assert.deepStrictEqual(wire.slice(0, 3), [wire[0], "PUT /api/message/get-jwt", wire[0]])
      assert.strictEqual(signIns(), 0)
      const renewed = yield* jwtOf(aliceSigner)
      assert.deepStrictEqual(bearersOf("POST", "/api/retrieveSharedKey").slice(1), Array(3).fill(renewed))
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("AccessControl with a signer owner", () => {
  it.effect("apply and update: the conditions set on the 5 nodes, on one sign-in", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      yield* savedBySigner
      const condition = (value: string) => ({
        id: 1,
        chain: "Hardhat",
        method: "getBalance",
        standardContractType: "",
        parameters: [":userAddress"],
        returnValueTest: { comparator: ">=", value }
      })
      yield* settle(access.apply({ cid, signer: aliceSigner, conditions: [condition("1")] }))
      yield* settle(access.update({ cid, signer: aliceSigner, conditions: [condition("2")] }))
      const jwt = yield* jwtOf(aliceSigner)
      assert.deepStrictEqual(bearersOf("PUT", "/api/fileAccessConditions"), Array(10).fill(jwt))
      const read = yield* settle(access.get(cid))
      assert.deepStrictEqual(read.conditions, [condition("2")])
      assert.strictEqual(signIns(), 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("share, revoke, transferOwnership: who may recover changes as the owner's signer says", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const shards = yield* KeyShards.KeyShards
      const masterKey = yield* savedBySigner
      yield* settle(access.share({ cid, signer: aliceSigner, shareTo: [bob.address] }))
      const bobKey = yield* settle(shards.fetchKey({ cid, signer: bobSigner }))
      assert.strictEqual(Redacted.value(bobKey), Redacted.value(masterKey))
      yield* settle(access.revoke({ cid, signer: aliceSigner, revokeTo: bob.address }))
      const denied = yield* Effect.flip(settle(shards.fetchKey({ cid, signer: bobSigner })))
      assert.strictEqual(denied.message, "Access Denied")
      yield* settle(access.transferOwnership({ cid, signer: aliceSigner, newOwner: bob.address }))
      assert.strictEqual((yield* settle(access.get(cid))).owner, bobAddress)
      // One sign-in each for alice and bob, however many calls.
      assert.strictEqual(signIns(), 2)
      const jwt = yield* jwtOf(aliceSigner)
      for (const [method, route] of [
        ["PUT", "/api/setSharedKey"],
        ["DELETE", "/api/setSharedKey"],
        ["POST", "/api/transferOwnership"]
      ] as const)
        assert.deepStrictEqual(bearersOf(method, route), Array(5).fill(jwt))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("delegateAllFiles and revokeDelegates: a delegate recovers, then no longer", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const shards = yield* KeyShards.KeyShards
      const masterKey = yield* savedBySigner
      yield* settle(access.delegateAllFiles({ signer: aliceSigner, delegates: [carol.address] }))
      const asDelegate = { cid, signer: carolSigner, ownerAddress: alice.address }
      const key = yield* settle(shards.fetchKey(asDelegate))
      assert.strictEqual(Redacted.value(key), Redacted.value(masterKey))
      yield* settle(access.revokeDelegates({ signer: aliceSigner }))
      const denied = yield* Effect.flip(settle(shards.fetchKey(asDelegate)))
      assert.strictEqual(denied.message, "Access Denied")
      const jwt = yield* jwtOf(aliceSigner)
      assert.deepStrictEqual(bearersOf("POST", "/api/setAllFilesAccess"), Array(10).fill(jwt))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a bad address is refused before the signer signs in; a node's refusal is the operation's", () =>
    Effect.gen(function* () {
      const access = yield* AccessControl.AccessControl
      const badShare = yield* Effect.flip(access.share({ cid, signer: aliceSigner, shareTo: ["bob"] }))
      assert.strictEqual(badShare.message, "Invalid public Key")
      const badDelegate = yield* Effect.flip(access.delegateAllFiles({ signer: aliceSigner, delegates: ["carol"] }))
      assert.strictEqual(badDelegate.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)
      yield* savedBySigner
      const notOwner = yield* Effect.flip(settle(access.share({ cid, signer: bobSigner, shareTo: [carol.address] })))
      assert.strictEqual(notOwner.message, "Access Denied")
      const refused = yield* Effect.flip(
        settle(access.revokeDelegates({ address: alice.address, token: "0xnot-a-signature" }))
      )
      assert.strictEqual((refused as NodeError).statusCode, 401)
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("the owner's shape", () => {
  const signerAndPair = { signer: aliceSigner, address: alice.address, token: "jwt" }
  const inputs = {
    save: KeyShards.SaveInput,
    recover: KeyShards.RecoverInput,
    fetchKey: KeyShards.FetchKeyInput,
    apply: AccessControl.ApplyInput,
    update: AccessControl.UpdateInput,
    share: AccessControl.ShareInput,
    revoke: AccessControl.RevokeInput,
    transferOwnership: AccessControl.TransferInput,
    delegateAllFiles: AccessControl.DelegateInput,
    revokeDelegates: AccessControl.RevokeDelegatesInput
  }
  const rest = {
    cid,
    keyShards: [],
    conditions: [],
    shareTo: [],
    revokeTo: [],
    newOwner: bob.address,
    delegates: []
  }

  it("every key-node input takes { signer } or { address, token }, never both, never neither", () => {
    for (const [name, schema] of Object.entries(inputs)) {
      const is = Schema.is(schema as Schema.Top)
      assert.isTrue(is({ ...rest, signer: aliceSigner }), `${name} with a signer`)
      assert.isTrue(is({ ...rest, address: alice.address, token: "jwt" }), `${name} with an address and a token`)
      assert.isFalse(is({ ...rest, ...signerAndPair }), `${name} with both`)
      assert.isFalse(is(rest), `${name} with neither`)
      assert.isFalse(is({ ...rest, address: alice.address }), `${name} with an address alone`)
    }
  })

  it("is one schema, public as Auth.Owner", () => {
    assert.isTrue(Schema.is(Auth.Owner)({ signer: aliceSigner }))
    assert.isTrue(Schema.is(Auth.Owner)({ address: alice.address, token: Redacted.make("jwt") }))
    assert.isFalse(Schema.is(Auth.Owner)(signerAndPair))
    assert.isFalse(Schema.is(Auth.Owner)({}))
  })
})

describe("the owner's shape through the Promise facade", () => {
  // Refused before any request: no network is needed.
  const lighthouse = createLighthouseNode()
  const loose = lighthouse as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>
  const messageOf = (service: string, method: string, input: unknown) =>
    loose[service]![method]!(input).then(
      () => "resolved",
      (e: unknown) => (e instanceof InvalidArgument ? e.message : `not InvalidArgument: ${String(e)}`)
    )
  const both = { signer: aliceSigner, address: alice.address, token: "jwt" }

  it("an owner given both ways, or neither, is an InvalidArgument naming the input", async () => {
    const share =
      "Invalid argument to accessControl.share: argument 1 must be { cid, shareTo } with { signer } or { address, token }"
    assert.strictEqual(await messageOf("accessControl", "share", { cid, shareTo: [], ...both }), share)
    assert.strictEqual(await messageOf("accessControl", "share", { cid, shareTo: [] }), share)
    const save =
      "Invalid argument to keyShards.save: argument 1 must be { cid, keyShards, shareTo? } with { signer } or { address, token }"
    assert.strictEqual(await messageOf("keyShards", "save", { cid, keyShards: [], ...both }), save)
    assert.strictEqual(
      await messageOf("accessControl", "revokeDelegates", {}),
      "Invalid argument to accessControl.revokeDelegates: argument 1 must be { signer } or { address, token }"
    )
    await lighthouse.dispose()
  })
})
