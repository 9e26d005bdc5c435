/**
 * `Auth` on the wire against the composed mock network (API host and encryption host, msw in
 * process): auth messages, JWTs and their refresh, API keys, one-time tokens, and the JWT cache,
 * whose expiry and refresh are driven by the `TestClock` (the mock issues JWTs on the same clock).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createMockNetwork } from "lighthouse-effect/mocks"
import * as Auth from "../src/Auth.ts"
import { type InvalidResponse, type InvalidSignature, type NodeError, SignerError } from "../src/Errors.ts"
import * as Signer from "../src/Signer.ts"
import { alice, bob } from "./support/accounts.ts"
import { overKeyNodes } from "./support/layers.ts"
import { makeNetworkHarness } from "./support/network.ts"

// =============================================================================
// Harness
// =============================================================================

/** The mock network issues JWTs (iat/exp) on the running test's TestClock, which stamps the request log too. */
const { network, log, now: clockNow, settle } = makeNetworkHarness((clock) => createMockNetwork({ clock }))
const TestLayer = overKeyNodes(Auth.layer())

const aliceAddress = alice.address.toLowerCase()
const aliceSigner = Signer.makeFromAccount(alice)
const encryption = "https://encryption.lighthouse.storage"
const api = "https://api.lighthouse.storage"

const requests = () => log.map((e) => `${e.method} ${e.url.origin === api ? "api" : "enc"}${e.url.pathname}`)

// =============================================================================
// Key nodes
// =============================================================================

describe("Auth against the key nodes", () => {
  it.effect("nodeMessage: GET /api/message/{address lower-cased}, empty Authorization, first item's message", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const message = yield* settle(auth.nodeMessage(alice.address))
      assert.match(message, /^Please sign this message to prove you are owner of this account: [0-9a-f-]{36}$/)
      assert.strictEqual(log.length, 1)
      const [entry] = log
      assert.strictEqual(entry!.method, "GET")
      assert.strictEqual(entry!.url.href, `${encryption}/api/message/${aliceAddress}`)
      assert.strictEqual(entry!.headers.authorization, "")
      assert.strictEqual(entry!.headers["content-type"], "application/json")
      assert.strictEqual(entry!.body, undefined)
      assert.strictEqual(network.state.keyNodes.auth.messages.get(aliceAddress)?.message, message)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("nodeMessage: `Invalid public Key` before any request; a node fault is a NodeError of the host (0)", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const bad = yield* Effect.flip(auth.nodeMessage("0x9a40b8EE3B8Fe7eB621cd142a651560Fa7"))
      assert.strictEqual(bad._tag, "InvalidPublicKey")
      assert.strictEqual(bad.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)

      network.faults.status({ host: "encryption", path: /^\/api\/message\// }, 500, {
        body: { message: "Internal Server Error" }
      })
      const fault = (yield* Effect.flip(settle(auth.nodeMessage(alice.address)))) as NodeError
      assert.strictEqual(fault._tag, "NodeError")
      assert.strictEqual(fault.nodeId, 0)
      assert.strictEqual(fault.statusCode, 500)
      assert.strictEqual(fault.message, "Internal Server Error")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("nodeMessage: an answer that is not `[{message}]` is InvalidResponse", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      network.faults.inconsistent({ host: "encryption", path: /^\/api\/message\// }, { mutate: () => [] })
      const error = yield* Effect.flip(settle(auth.nodeMessage(alice.address)))
      assert.strictEqual(error._tag, "InvalidResponse")
      assert.strictEqual((error as InvalidResponse).url, `${encryption}/api/message/${alice.address.toLowerCase()}`)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("jwt: POST /api/message/get-jwt {address, signature, chain: ALL} → Redacted `jwt:` and `r:` tokens", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const message = yield* settle(auth.nodeMessage(alice.address))
      const signature = yield* aliceSigner.signMessage(message)
      log.length = 0
      const pair = yield* settle(auth.jwt({ address: alice.address, signature }))
      assert.strictEqual(log.length, 1)
      assert.strictEqual(log[0]!.method, "POST")
      assert.strictEqual(log[0]!.url.href, `${encryption}/api/message/get-jwt`)
      assert.strictEqual(log[0]!.headers.authorization, "")
      assert.strictEqual(log[0]!.headers["content-type"], "application/json")
      assert.deepStrictEqual(log[0]!.body, { address: aliceAddress, signature, chain: "ALL" })
      assert.match(Redacted.value(pair.token), /^jwt:[\w-]+\.[\w-]+\.[\w-]+$/)
      assert.match(Redacted.value(pair.refreshToken), /^r:[\w-]{43}$/)
      assert.notInclude(String(pair.token), "jwt:")
      assert.notInclude(JSON.stringify(pair), "jwt:")
      // The expiry the cache uses: the mock's 3600 s from its clock (the TestClock).
      assert.strictEqual(Auth.jwtExpiry(Redacted.value(pair.token)), Math.floor(clockNow() / 1000) + 3600)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("jwt: `chain` is passed through", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const signature = yield* aliceSigner.signMessage(yield* settle(auth.nodeMessage(alice.address)))
      log.length = 0
      yield* settle(auth.jwt({ address: alice.address, signature, chain: "EVM" }))
      assert.deepStrictEqual(log[0]!.body, { address: aliceAddress, signature, chain: "EVM" })
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("jwt: a wrong signature, or a node that cannot be reached, is `Invalid Signature` with the cause", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      yield* settle(auth.nodeMessage(alice.address))
      const wrong = yield* Effect.promise(() => bob.signMessage({ message: "something else" }))
      const error = (yield* Effect.flip(
        settle(auth.jwt({ address: alice.address, signature: wrong }))
      )) as InvalidSignature
      assert.strictEqual(error._tag, "InvalidSignature")
      assert.strictEqual(error.message, "Invalid Signature")
      const cause = error.cause as NodeError
      assert.strictEqual(cause.statusCode, 401)
      assert.deepStrictEqual(cause.body, { message: "Invalid Signature", statusCode: 401 })

      log.length = 0
      network.faults.down({ host: "encryption" })
      const down = (yield* Effect.flip(
        settle(auth.jwt({ address: alice.address, signature: wrong }))
      )) as InvalidSignature
      assert.strictEqual(down.message, "Invalid Signature")
      assert.strictEqual((down.cause as NodeError).message, "fetch failed")
      // Transport failures are retried: 3 tries, 1000 ms apart.
      assert.deepStrictEqual(requests(), Array(3).fill("POST enc/api/message/get-jwt"))
      assert.isTrue(log[1]!.at - log[0]!.at >= 1000 && log[2]!.at - log[1]!.at >= 1000)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "refresh: PUT /api/message/get-jwt {address, refreshToken}; a spent refresh token is `Invalid Signature`",
    () =>
      Effect.gen(function* () {
        const auth = yield* Auth.Auth
        const first = yield* settle(auth.signIn(aliceSigner))
        log.length = 0
        const second = yield* settle(auth.refresh({ address: alice.address, refreshToken: first.refreshToken }))
        assert.strictEqual(log[0]!.method, "PUT")
        assert.strictEqual(log[0]!.url.href, `${encryption}/api/message/get-jwt`)
        assert.deepStrictEqual(log[0]!.body, {
          address: aliceAddress,
          refreshToken: Redacted.value(first.refreshToken)
        })
        assert.notStrictEqual(Redacted.value(second.refreshToken), Redacted.value(first.refreshToken))

        const spent = (yield* Effect.flip(
          settle(auth.refresh({ address: alice.address, refreshToken: first.refreshToken }))
        )) as InvalidSignature
        assert.strictEqual(spent.message, "Invalid Signature")
        assert.deepStrictEqual((spent.cause as NodeError).body, { message: "Invalid Refresh Token", statusCode: 401 })
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("signIn: message, EIP-191 signature of it, JWT; the message is then spent", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const pair = yield* settle(auth.signIn(aliceSigner))
      assert.deepStrictEqual(requests(), [`GET enc/api/message/${aliceAddress}`, "POST enc/api/message/get-jwt"])
      assert.match(Redacted.value(pair.token), /^jwt:/)
      // Exchanging the signature retired the message: the node holds none for alice any more.
      assert.isFalse(network.state.keyNodes.auth.messages.has(aliceAddress))
      const signature = (log[1]!.body as { signature: `0x${string}` }).signature
      assert.match(signature, /^0x[0-9a-f]{130}$/)
    }).pipe(Effect.provide(TestLayer))
  )
})

// =============================================================================
// Token cache
// =============================================================================

describe("Auth.token (cache)", () => {
  it.effect("signs in once, then serves the cached JWT; concurrent callers share one sign-in", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const [a, b] = yield* settle(Effect.all([auth.token(aliceSigner), auth.token(aliceSigner)], { concurrency: 2 }))
      assert.strictEqual(Redacted.value(a), Redacted.value(b))
      const again = yield* settle(auth.token(aliceSigner))
      assert.strictEqual(Redacted.value(again), Redacted.value(a))
      assert.deepStrictEqual(requests(), [`GET enc/api/message/${aliceAddress}`, "POST enc/api/message/get-jwt"])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("refreshes (PUT) once less than 60 s is left, and the new JWT is then cached", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const first = yield* settle(auth.token(aliceSigner))
      const exp = Auth.jwtExpiry(Redacted.value(first))!
      log.length = 0
      // 61 s before expiry: still the cached token.
      yield* TestClock.setTime((exp - 61) * 1000)
      assert.strictEqual(Redacted.value(yield* settle(auth.token(aliceSigner))), Redacted.value(first))
      assert.strictEqual(log.length, 0)
      // 59 s before: refreshed.
      yield* TestClock.setTime((exp - 59) * 1000)
      const second = yield* settle(auth.token(aliceSigner))
      assert.notStrictEqual(Redacted.value(second), Redacted.value(first))
      assert.deepStrictEqual(requests(), ["PUT enc/api/message/get-jwt"])
      assert.strictEqual(Auth.jwtExpiry(Redacted.value(second)), exp - 59 + 3600)
      log.length = 0
      assert.strictEqual(Redacted.value(yield* settle(auth.token(aliceSigner))), Redacted.value(second))
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("signs in again when the refresh fails, and after `forget`", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const first = yield* settle(auth.token(aliceSigner))
      const exp = Auth.jwtExpiry(Redacted.value(first))!
      log.length = 0
      network.faults.status({ host: "encryption", method: "PUT", path: "/api/message/get-jwt" }, 401, {
        body: { message: "Invalid Refresh Token" }
      })
      yield* TestClock.setTime((exp + 10) * 1000)
      const second = yield* settle(auth.token(aliceSigner))
      assert.notStrictEqual(Redacted.value(second), Redacted.value(first))
      assert.deepStrictEqual(requests(), [
        "PUT enc/api/message/get-jwt",
        `GET enc/api/message/${aliceAddress}`,
        "POST enc/api/message/get-jwt"
      ])
      log.length = 0
      yield* auth.forget(alice.address)
      yield* settle(auth.token(aliceSigner))
      assert.deepStrictEqual(requests(), [`GET enc/api/message/${aliceAddress}`, "POST enc/api/message/get-jwt"])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("one cache entry per signer", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const a = yield* settle(auth.token(aliceSigner))
      const b = yield* settle(auth.token(Signer.makeFromAccount(bob)))
      assert.notStrictEqual(Redacted.value(a), Redacted.value(b))
      assert.strictEqual(log.length, 4)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a signer that fails to sign: SignerError, nothing cached", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const refusing: Signer.Service = {
        address: aliceSigner.address,
        signMessage: () => Effect.fail(new SignerError({ operation: "signMessage", cause: new Error("User rejected") }))
      }
      const error = yield* Effect.flip(settle(auth.token(refusing)))
      assert.strictEqual(error._tag, "SignerError")
      assert.strictEqual(error.message, "Signer failed to signMessage")
      log.length = 0
      yield* settle(auth.token(aliceSigner))
      assert.strictEqual(log.length, 2)
    }).pipe(Effect.provide(TestLayer))
  )

  it("jwtExpiry: reads `exp` of a `jwt:` or bare JWS; undefined when absent or garbled", () => {
    const encode = (claims: unknown) => Buffer.from(JSON.stringify(claims)).toString("base64url")
    assert.strictEqual(Auth.jwtExpiry(`jwt:${encode({ alg: "HS256" })}.${encode({ exp: 42 })}.sig`), 42)
    assert.strictEqual(Auth.jwtExpiry(`${encode({ alg: "HS256" })}.${encode({ exp: 7 })}.sig`), 7)
    assert.strictEqual(Auth.jwtExpiry(`jwt:${encode({})}.${encode({ sub: "x" })}.sig`), undefined)
    assert.strictEqual(Auth.jwtExpiry("jwt:garbage"), undefined)
    assert.strictEqual(Auth.jwtExpiry("jwt:a.!!!.c"), undefined)
    assert.strictEqual(Auth.jwtExpiry(`jwt:a.${encode({ exp: "soon" })}.c`), undefined)
  })
})

// =============================================================================
// API host
// =============================================================================

describe("Auth against the API host", () => {
  it.effect("apiAuthMessage / apiMessage: GET get_auth_message / get_message ?publicKey=, a JSON string", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const first = yield* settle(auth.apiAuthMessage(alice.address))
      const second = yield* settle(auth.apiMessage(alice.address))
      assert.match(first, /^Please prove you are the owner/)
      assert.match(second, /^Please prove you are the owner/)
      assert.deepStrictEqual(
        log.map((e) => `${e.method} ${e.url.href}`),
        [
          `GET ${api}/api/auth/get_auth_message?publicKey=${aliceAddress}`,
          `GET ${api}/api/auth/get_message?publicKey=${aliceAddress}`
        ]
      )
      assert.strictEqual(log[0]!.headers.accept, "application/json")
      assert.strictEqual(log[0]!.headers.authorization, undefined)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("apiAuthMessage: `Invalid public Key` before any request; a 500 is `HTTP error! status 500`", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const bad = yield* Effect.flip(auth.apiAuthMessage("0x12"))
      assert.strictEqual(bad.message, "Invalid public Key")
      assert.strictEqual(log.length, 0)
      network.faults.status({ host: "api" }, 500)
      const error = yield* Effect.flip(settle(auth.apiAuthMessage(alice.address)))
      assert.strictEqual(error._tag, "HttpStatusError")
      assert.strictEqual(error.message, "HTTP error! status 500")
      network.faults.clear()
      network.faults.down({ host: "api" })
      const down = yield* Effect.flip(settle(auth.apiMessage(alice.address)))
      assert.strictEqual(down.message, "Network error")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("apiKey: POST create_api_key {publicKey, signedMessage} → the key, Redacted", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const message = yield* settle(auth.apiAuthMessage(alice.address))
      const signedMessage = yield* aliceSigner.signMessage(message)
      log.length = 0
      const key = yield* settle(auth.apiKey({ publicKey: alice.address, signedMessage }))
      assert.strictEqual(log[0]!.method, "POST")
      assert.strictEqual(log[0]!.url.href, `${api}/api/auth/create_api_key`)
      assert.strictEqual(log[0]!.headers["content-type"], "application/json")
      assert.deepStrictEqual(log[0]!.body, { publicKey: aliceAddress, signedMessage })
      assert.isTrue(Redacted.isRedacted(key))
      assert.isTrue(Redacted.value(key).length > 0)
      assert.notInclude(String(key), Redacted.value(key))
      const account = yield* Effect.promise(() =>
        network.state.accounts.authenticate(Redacted.value(key), { oneTime: false })
      )
      assert.strictEqual(account?.address.toLowerCase(), aliceAddress)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "apiKey: a wrong signature is `HTTP error! status 401`; no message issued is `HTTP error! status 400`",
    () =>
      Effect.gen(function* () {
        const auth = yield* Auth.Auth
        const stray = yield* Effect.promise(() => alice.signMessage({ message: "not the message" }))
        const none = yield* Effect.flip(settle(auth.apiKey({ publicKey: alice.address, signedMessage: stray })))
        assert.strictEqual(none.message, "HTTP error! status 400")
        yield* settle(auth.apiAuthMessage(alice.address))
        const wrong = yield* Effect.flip(settle(auth.apiKey({ publicKey: alice.address, signedMessage: stray })))
        assert.strictEqual(wrong._tag, "HttpStatusError")
        assert.strictEqual(wrong.message, "HTTP error! status 401")
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("createApiKey: auth message, signature, key", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const key = yield* settle(auth.createApiKey(aliceSigner))
      assert.deepStrictEqual(requests(), ["GET api/api/auth/get_auth_message", "POST api/api/auth/create_api_key"])
      const account = yield* Effect.promise(() =>
        network.state.accounts.authenticate(Redacted.value(key), { oneTime: false })
      )
      assert.strictEqual(account?.address.toLowerCase(), aliceAddress)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("oneTimeToken: `address$signature` of the get_message text, accepted once", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const token = yield* settle(auth.oneTimeToken(aliceSigner))
      assert.deepStrictEqual(requests(), ["GET api/api/auth/get_message"])
      const [address, signature] = Redacted.value(token).split("$") as [string, `0x${string}`]
      assert.strictEqual(address, aliceAddress)
      assert.match(signature, /^0x[0-9a-f]{130}$/)
      const first = yield* Effect.promise(() =>
        network.state.accounts.authenticate(Redacted.value(token), { oneTime: true })
      )
      assert.strictEqual(first?.address.toLowerCase(), aliceAddress)
      const second = yield* Effect.promise(() =>
        network.state.accounts.authenticate(Redacted.value(token), { oneTime: true })
      )
      assert.strictEqual(second, undefined)
    }).pipe(Effect.provide(TestLayer))
  )
})
