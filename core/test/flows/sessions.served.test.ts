/**
 * Sessions and the token check over the served network (real sockets, its `/__dev/clock`),
 * through the Promise facade, as a user's program runs them:
 *
 * - two days of served clock later, the key nodes refuse the cached JWT (`jwt expired`) though the
 *   client's clock says it is fresh; decrypt and encrypted upload still succeed with the cached
 *   session, renewed once through the refresh token (`PUT /api/message/get-jwt`), no new sign-in;
 * - eight days later the refresh token has expired too: the session signs in again;
 * - a garbage token, a forged JWT and an expired JWT given as `{ address, token }` fail before
 *   any byte reaches the upload node, with `Invalid Signature` (resp. the node's `jwt expired`)
 *   as the error's own message.
 *
 * Requests are counted where they arrive: a zero-delay `slow` fault on a route counts its hits.
 */
import { Effect, Redacted } from "effect"
import type { FaultScope } from "lighthouse-effect/mocks"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createLighthouseNode } from "../../src/node.ts"
import type { LighthouseClient } from "../../src/promise.ts"
import * as Signer from "../../src/Signer.ts"
import { keys } from "../support/accounts.ts"

const day = 24 * 3600 * 1000

let served: ServedMockNetwork
let lighthouse: LighthouseClient
let alice: Signer.Signer["Service"]
let apiKey: string

beforeAll(async () => {
  served = await serveMockNetwork()
  alice = await Effect.runPromise(Signer.makeFromPrivateKey(Redacted.make(keys.alice)))
})
afterAll(() => served.close())
beforeEach(async () => {
  served.network.reset()
  served.network.faults.clear()
  apiKey = served.network.seedAccount(alice.address).apiKey
  // A new client per test: its token cache starts empty.
  await lighthouse?.dispose()
  lighthouse = createLighthouseNode({ hosts: served.urls, nodes: { mode: "concurrent", retryDelay: 0 } })
})
afterAll(() => lighthouse.dispose())

/** The number of requests that reach `scope` from now on. */
const counter = (scope: FaultScope) => {
  const id = served.network.faults.slow(scope, 0)
  return () => served.network.faults.active().find((fault) => fault.id === id)!.hits
}

const counters = () => ({
  signIns: counter({ host: "encryption", method: "POST", path: "/api/message/get-jwt" }),
  refreshes: counter({ host: "encryption", method: "PUT", path: "/api/message/get-jwt" }),
  uploads: counter({ host: "node" }),
  encryption: counter({ host: "encryption" })
})

/** Moves the served network's clock, as a test from outside the process would. */
const advanceServedClock = async (ms: number) => {
  const answer = await fetch(`${served.urls.api}/__dev/clock`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ advanceMs: ms })
  })
  expect(answer.status).toBe(200)
}

const decrypt = async (cid: string) =>
  new TextDecoder().decode(await lighthouse.download.bytes(cid, { decrypt: { signer: alice } }))

describe("sessions over the served network", () => {
  it("two days of served clock later: decrypt and encrypted upload renew the session by refresh, once", async () => {
    const count = counters()
    const first = await lighthouse.upload.encryptedText("before", { apiKey, signer: alice })
    expect([count.signIns(), count.refreshes()]).toEqual([1, 0])

    await advanceServedClock(2 * day)
    expect(await decrypt(first.Hash)).toBe("before")
    // The 3 nodes asked at once all refused the JWT; one refresh served them all.
    expect([count.signIns(), count.refreshes()]).toEqual([1, 1])

    const second = await lighthouse.upload.encryptedText("after", { apiKey, signer: alice })
    expect(await decrypt(second.Hash)).toBe("after")
    expect([count.signIns(), count.refreshes()]).toEqual([1, 1])
  })

  it("an encrypted upload first: its token check renews the session before the upload", async () => {
    const count = counters()
    const first = await lighthouse.upload.encryptedText("one", { apiKey, signer: alice })
    await advanceServedClock(2 * day)
    const uploadsBefore = count.uploads()
    const second = await lighthouse.upload.encryptedText("two", { apiKey, signer: alice })
    expect(count.uploads()).toBe(uploadsBefore + 1)
    expect([count.signIns(), count.refreshes()]).toEqual([1, 1])
    expect([await decrypt(first.Hash), await decrypt(second.Hash)]).toEqual(["one", "two"])
  })

  it("eight days later the refresh token has expired too: the refresh is tried, then a new sign-in", async () => {
    const count = counters()
    const stored = await lighthouse.upload.encryptedText("kept", { apiKey, signer: alice })
    await advanceServedClock(8 * day)
    expect(await decrypt(stored.Hash)).toBe("kept")
    expect([count.signIns(), count.refreshes()]).toEqual([2, 1])
  })
})

describe("the token is checked before a byte reaches the upload node", () => {
  it("a garbage token: `Invalid Signature` at top level, no request at all", async () => {
    const count = counters()
    await expect(
      lighthouse.upload.encryptedText("x", { apiKey, address: alice.address, token: "jwt:garbage" })
    ).rejects.toMatchObject({ _tag: "InvalidSignature", message: "Invalid Signature" })
    expect([count.uploads(), count.encryption()]).toEqual([0, 0])
  })

  it("a forged JWT (well formed, alice's claims, a wrong signature): the node's refusal, `Invalid Signature`", async () => {
    const real = Redacted.value(await lighthouse.auth.token(alice))
    const forged = `${real.slice(0, real.lastIndexOf(".") + 1)}${"A".repeat(43)}`
    const count = counters()
    await expect(
      lighthouse.upload.encryptedText("x", { apiKey, address: alice.address, token: forged })
    ).rejects.toMatchObject({ _tag: "InvalidSignature", message: "Invalid Signature" })
    expect(count.encryption()).toBe(1)
    expect(count.uploads()).toBe(0)
    expect(served.network.state.files.of(alice.address.toLowerCase())).toHaveLength(0)
  })

  it("an expired JWT given as `{ address, token }` (no signer to renew it): the node's `jwt expired`", async () => {
    // A plain string: the JWT without the session `auth.token` ties to its object.
    const token = Redacted.value(await lighthouse.auth.token(alice))
    await advanceServedClock(2 * day)
    const count = counters()
    await expect(lighthouse.upload.encryptedText("x", { apiKey, address: alice.address, token })).rejects.toMatchObject(
      { _tag: "NodeError", statusCode: 401, message: "jwt expired" }
    )
    expect([count.uploads(), count.refreshes(), count.signIns()]).toEqual([0, 0, 0])
    expect(served.network.state.files.of(alice.address.toLowerCase())).toHaveLength(0)
  })
})
