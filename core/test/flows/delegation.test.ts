/**
 * Account delegation end to end: the owner lets a delegate recover the key of every file it owns
 * (`AccessControl.delegateAllFiles`, 5 × `POST /api/setAllFilesAccess/{n}`); the delegate does so
 * with its own JWT, naming the owner; revoking ends it; nobody else gains anything (a stranger
 * naming the owner, the delegate naming another owner or no owner, the delegate changing the
 * owner's list). Over msw on the TestClock; `delegation.served.test.ts` goes over served HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createMockNetwork } from "lighthouse-effect/mocks"
import type { InvalidPublicKey, NodeError } from "../../src/Errors.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Signer from "../../src/Signer.ts"
import { cid, keys, otherCid } from "../support/accounts.ts"
import { keyFlow } from "../support/keyFlows.ts"
import { keyServices } from "../support/layers.ts"
import { makeNetworkHarness } from "../support/network.ts"

const { network, log, settle } = makeNetworkHarness((clock) => createMockNetwork({ clock }))
const released = () => network.state.keyNodes.nodes.flatMap((n) => n.released)
const TestLayer = keyServices({ mode: "concurrent" })

/** The services, four signers, and two files of alice (cid) and one of dave (otherCid)… set up per test. */
const setup = Effect.gen(function* () {
  const flow = yield* keyFlow(settle, cid)
  const [alice, bob, carol, dave] = yield* Effect.forEach([keys.alice, keys.bob, keys.carol, keys.dave], (key) =>
    Signer.makeFromPrivateKey(Redacted.make(key))
  )
  /** The key of `file` as `signer` recovers it, naming `ownerAddress`; or the failure's tag. */
  const recoverAs = (signer: Signer.Service, file: string, ownerAddress?: string) =>
    settle(
      Effect.gen(function* () {
        const token = yield* flow.auth.token(signer)
        const key = yield* flow.shards.fetchKey({ cid: file, address: signer.address, token, ownerAddress })
        return Redacted.value(key)
      })
    ).pipe(Effect.catch((e) => Effect.succeed(e._tag)))
  /** Saves a fresh key of `file` owned by `owner`; the master key. */
  const store = (owner: Signer.Service, file: string) =>
    Effect.gen(function* () {
      const { masterKey, keyShards } = yield* KeyShards.generate()
      const token = yield* flow.tokenOf(owner)
      yield* settle(flow.shards.save({ cid: file, address: owner.address, token, keyShards }))
      return Redacted.value(masterKey)
    })
  return { ...flow, alice: alice!, bob: bob!, carol: carol!, dave: dave!, recoverAs, store }
})

describe("account delegation over msw", () => {
  it.effect(
    "the delegate recovers the key of each of the owner's files with its own JWT; after revocation it cannot",
    () =>
      Effect.gen(function* () {
        const { access, alice, bob, recoverAs, store, tokenOf } = yield* setup
        const first = yield* store(alice, cid)
        const second = yield* store(alice, otherCid)
        assert.strictEqual(yield* recoverAs(bob, cid, alice.address), "AccessDenied")

        const token = yield* tokenOf(alice)
        log.length = 0
        const granted = yield* settle(
          access.delegateAllFiles({ address: alice.address, token, delegates: [bob.address] })
        )
        assert.deepStrictEqual(
          granted.reports.map((r) => r.outcome),
          Array(5).fill("succeeded")
        )
        assert.deepStrictEqual(
          log.map((entry) => [entry.method, entry.path, entry.headers.authorization, entry.body]).sort(),
          [1, 2, 3, 4, 5].map((n) => [
            "POST",
            `/api/setAllFilesAccess/${n}`,
            `Bearer ${Redacted.value(token)}`,
            { address: alice.address.toLowerCase(), allFilesAccess: [bob.address.toLowerCase()] }
          ])
        )

        log.length = 0
        assert.strictEqual(yield* recoverAs(bob, cid, alice.address), first)
        assert.strictEqual(yield* recoverAs(bob, otherCid, alice.address), second)
        const retrievals = log.filter((entry) => entry.path.startsWith("/api/retrieveSharedKey/"))
        assert.isTrue(retrievals.length >= 6)
        for (const entry of retrievals)
          assert.deepInclude(entry.body as object, {
            address: bob.address.toLowerCase(),
            ownerAddress: alice.address.toLowerCase()
          })
        assert.deepStrictEqual(
          [...new Set(released().map((r) => `${r.to}:${r.right}`))],
          [`${bob.address.toLowerCase()}:delegated`]
        )

        yield* settle(access.revokeDelegates({ address: alice.address, token }))
        assert.strictEqual(yield* recoverAs(bob, cid, alice.address), "AccessDenied")
        assert.strictEqual(yield* recoverAs(bob, otherCid, alice.address), "AccessDenied")
        // The owner keeps its own access.
        assert.strictEqual(yield* recoverAs(alice, cid), first)
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "nobody else gains access: strangers, other owners' files, no owner named, the delegate's own changes",
    () =>
      Effect.gen(function* () {
        const { access, alice, bob, carol, dave, recoverAs, store, tokenOf } = yield* setup
        yield* store(alice, cid)
        const davesKey = yield* store(dave, otherCid)
        const aliceToken = yield* tokenOf(alice)
        yield* settle(access.delegateAllFiles({ address: alice.address, token: aliceToken, delegates: [bob.address] }))

        assert.strictEqual(yield* recoverAs(carol, cid, alice.address), "AccessDenied")
        assert.strictEqual(yield* recoverAs(bob, cid), "AccessDenied")
        assert.strictEqual(yield* recoverAs(bob, otherCid, alice.address), "AccessDenied")
        assert.strictEqual(yield* recoverAs(bob, otherCid, dave.address), "AccessDenied")
        assert.strictEqual(yield* recoverAs(dave, otherCid), davesKey)

        // bob cannot put carol on alice's list: his token does not prove alice's address.
        const bobToken = yield* tokenOf(bob)
        const refused = (yield* Effect.flip(
          settle(access.delegateAllFiles({ address: alice.address, token: bobToken, delegates: [carol.address] }))
        )) as NodeError
        assert.deepStrictEqual(
          [refused._tag, refused.statusCode, refused.message],
          ["NodeError", 401, "Invalid Signature"]
        )
        assert.strictEqual(yield* recoverAs(carol, cid, alice.address), "AccessDenied")

        // A new list replaces the old one: carol in, bob out.
        yield* settle(
          access.delegateAllFiles({ address: alice.address, token: aliceToken, delegates: [carol.address] })
        )
        assert.strictEqual(yield* recoverAs(bob, cid, alice.address), "AccessDenied")
        assert.notStrictEqual(yield* recoverAs(carol, cid, alice.address), "AccessDenied")
        assert.isFalse(released().some((r) => r.to === bob.address.toLowerCase()))
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a delegate that is not an address is refused before any request", () =>
    Effect.gen(function* () {
      const { access, alice, tokenOf } = yield* setup
      const token = yield* tokenOf(alice)
      log.length = 0
      const error = (yield* Effect.flip(
        settle(access.delegateAllFiles({ address: alice.address, token, delegates: ["0x1234"] }))
      )) as InvalidPublicKey
      assert.strictEqual(error.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )
})
