/**
 * Sessions and the token check on the wire, against the composed mock network in process, whose
 * clock can run ahead of the client's (`runNodesAhead`): the key nodes then refuse a JWT the client
 * still holds for fresh, as a served network whose clock was moved does.
 *
 * - A token from `Auth.token` renews itself once when a node refuses it (refresh first, then a
 *   new sign-in), the call is repeated, and the nodes after it get the new JWT at once.
 * - `Auth.checkToken`: what it refuses locally (no request), and its one read on node 1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Auth from "../../src/Auth.ts"
import type { InvalidSignature, NodeError } from "../../src/Errors.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Signer from "../../src/Signer.ts"
import { alice, bob, cid } from "../support/accounts.ts"
import { keyServices } from "../support/layers.ts"
import { makeSkewedNetworkHarness } from "../support/skewedNetwork.ts"

const { network, log, settle, runNodesAhead } = makeSkewedNetworkHarness()
const TestLayer = keyServices({ mode: "sequential" })

const aliceSigner = Signer.makeFromAccount(alice)
const twoDays = 2 * 24 * 3600 * 1000
const wire = () => log.map((e) => `${e.method} ${e.path}`)
const save = (token: Auth.Credential) =>
  Effect.gen(function* () {
    const shards = yield* KeyShards.KeyShards
    const { keyShards } = yield* KeyShards.generate()
    return yield* settle(shards.save({ cid, address: alice.address, token, keyShards }))
  })

describe("sessions", () => {
  it.effect("a node's `jwt expired`: one refresh, the call repeated, the next nodes sent the new JWT", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const token = yield* settle(auth.token(aliceSigner))
      runNodesAhead(twoDays)
      log.length = 0
      const saved = yield* save(token)
      assert.deepStrictEqual(
        saved.reports.map((r) => [r.nodeId, r.outcome, r.attempts]),
        [
          [1, "succeeded", 2],
          [2, "succeeded", 1],
          [3, "succeeded", 1],
          [4, "succeeded", 1],
          [5, "succeeded", 1]
        ]
      )
      assert.deepStrictEqual(wire(), [
        "POST /api/setSharedKey/1",
        "PUT /api/message/get-jwt",
        ...[1, 2, 3, 4, 5].map((n) => `POST /api/setSharedKey/${n}`)
      ])
      const bearer = (i: number) => log[i]!.headers.authorization
      assert.strictEqual(bearer(0), `Bearer ${Redacted.value(token)}`)
      const renewed = Redacted.value(yield* auth.token(aliceSigner))
      assert.notStrictEqual(renewed, Redacted.value(token))
      for (const i of [2, 3, 4, 5, 6]) assert.strictEqual(bearer(i), `Bearer ${renewed}`)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a refresh token the network no longer knows: a new sign-in, then the call", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const token = yield* settle(auth.token(aliceSigner))
      network.state.keyNodes.auth.refreshTokens.clear()
      runNodesAhead(twoDays)
      log.length = 0
      yield* save(token)
      assert.deepStrictEqual(wire().slice(0, 5), [
        "POST /api/setSharedKey/1",
        "PUT /api/message/get-jwt",
        `GET /api/message/${alice.address.toLowerCase()}`,
        "POST /api/message/get-jwt",
        "POST /api/setSharedKey/1"
      ])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a renewal that fails leaves the node's refusal as the answer; a string token is never renewed", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const token = yield* settle(auth.token(aliceSigner))
      runNodesAhead(twoDays)
      log.length = 0
      // Saving reports a node's refusal as the provider's `Error encrypting file`, the refusal its cause.
      const refusalOf = (error: { readonly cause?: unknown }) => error.cause as NodeError
      const asString = refusalOf(yield* Effect.flip(save(Redacted.value(token))))
      assert.strictEqual(asString.message, "jwt expired")
      assert.strictEqual(asString.statusCode, 401)
      assert.deepStrictEqual(wire(), ["POST /api/setSharedKey/1"])

      network.state.keyNodes.auth.refreshTokens.clear()
      network.faults.status({ host: "encryption", path: /^\/api\/message\// }, 500)
      log.length = 0
      const refused = refusalOf(yield* Effect.flip(save(token)))
      assert.strictEqual(refused._tag, "NodeError")
      assert.strictEqual(refused.message, "jwt expired")
      assert.deepStrictEqual(wire(), [
        "POST /api/setSharedKey/1",
        "PUT /api/message/get-jwt",
        `GET /api/message/${alice.address.toLowerCase()}`
      ])
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("Auth.checkToken", () => {
  it.effect("refused locally, with no request: garbage, a JWT of another address, a malformed signature", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const bobJwt = Redacted.value(yield* settle(auth.token(Signer.makeFromAccount(bob))))
      log.length = 0
      for (const token of ["jwt:garbage", "", "0x1234", bobJwt, "not.a.jwt!"]) {
        const error = (yield* Effect.flip(auth.checkToken({ address: alice.address, token }))) as InvalidSignature
        assert.strictEqual(error._tag, "InvalidSignature")
        assert.strictEqual(error.message, "Invalid Signature")
      }
      const invalidKey = yield* Effect.flip(auth.checkToken({ address: "0x12", token: bobJwt }))
      assert.strictEqual(invalidKey.message, "Invalid public Key")
      // A signature of the right shape is not sent: a node accepts one once.
      yield* auth.checkToken({ address: alice.address, token: `0x${"ab".repeat(65)}` })
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a JWT: one read on node 1 for a CID nobody stores; a 401 refuses it, `cid not found` accepts it", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const token = Redacted.value(yield* settle(auth.token(aliceSigner)))
      log.length = 0
      yield* settle(auth.checkToken({ address: alice.address, token }))
      assert.deepStrictEqual(wire(), ["POST /api/retrieveSharedKey/1"])
      assert.strictEqual(log[0]!.headers.authorization, `Bearer ${token}`)
      assert.deepStrictEqual(log[0]!.body, {
        address: alice.address.toLowerCase(),
        cid: "bafkreihlbkipkfiic4rojzozq6jcldrhp2zu2v37fcbr45zdymszvwgbey",
        dynamicData: {}
      })

      const forged = `${token.slice(0, token.lastIndexOf(".") + 1)}${"A".repeat(43)}`
      const invalid = (yield* Effect.flip(
        settle(auth.checkToken({ address: alice.address, token: forged }))
      )) as InvalidSignature
      assert.strictEqual(invalid._tag, "InvalidSignature")
      assert.strictEqual((invalid.cause as NodeError).statusCode, 401)

      runNodesAhead(twoDays)
      const expired = (yield* Effect.flip(settle(auth.checkToken({ address: alice.address, token })))) as NodeError
      assert.strictEqual(expired._tag, "NodeError")
      assert.strictEqual(expired.message, "jwt expired")

      network.faults.down({ host: "encryption", node: 1 })
      const unreachable = (yield* Effect.flip(settle(auth.checkToken({ address: alice.address, token })))) as NodeError
      assert.strictEqual(unreachable._tag, "NodeError")
      assert.strictEqual(unreachable.statusCode, 0)
    }).pipe(Effect.provide(TestLayer))
  )
})
