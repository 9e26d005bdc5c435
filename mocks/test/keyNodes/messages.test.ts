/**
 * Sign-in messages on the served network (real HTTP, its `/__dev/clock`): `GET
 * /api/message/{address}` needs no authentication, so what it stores is bounded. One pending
 * message per address (a new one replaces the old), expiring after 10 minutes of the network's
 * clock (the default), at most `maxPendingMessages` pending at once (10 000 by default; 250 here,
 * so that 1 000 requests for as many addresses show the bound), and an expired message can
 * neither be exchanged for a JWT nor used as a bearer token.
 */

import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { cids, wallets } from "../support/keyNodes.ts"

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork({ keyNodes: { maxPendingMessages: 250 } })
})
afterAll(() => served.close())
beforeEach(() => {
  served.network.reset()
  served.clock!.freeze(true)
})

const messages = () => served.network.state.keyNodes.auth.messages

const encryption = (path: string, init: RequestInit = {}) =>
  fetch(`${served.urls.encryption}${path}`, {
    ...init,
    headers: { "Content-Type": "application/json", Authorization: "", ...init.headers }
  })

const messageFor = async (address: string): Promise<string> => {
  const answer = await encryption(`/api/message/${address}`)
  expect(answer.status).toBe(200)
  const [first] = (await answer.json()) as Array<{ message: string }>
  return first!.message
}

const getJwt = (address: string, signature: string) =>
  encryption("/api/message/get-jwt", { method: "POST", body: JSON.stringify({ address, signature, chain: "ALL" }) })

const advance = async (ms: number) => {
  const answer = await fetch(`${served.urls.encryption}/__dev/clock`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ advanceMs: ms })
  })
  expect(answer.status).toBe(200)
}

describe("sign-in messages of the served network", () => {
  it("one pending message per address: a new one replaces the old, whose signature is then refused", async () => {
    const { alice } = wallets
    const first = await messageFor(alice.address)
    const second = await messageFor(alice.address.toLowerCase())
    expect(second).not.toBe(first)
    expect(messages().size).toBe(1)
    const stale = await getJwt(alice.address, await alice.signMessage({ message: first }))
    expect(stale.status).toBe(401)
    expect(await stale.json()).toEqual({ message: "Invalid Signature" })
    const fresh = await getJwt(alice.address, await alice.signMessage({ message: second }))
    expect(fresh.status).toBe(200)
  })

  it("a message expires after 10 minutes of the network's clock: not exchanged, not a bearer token, swept", async () => {
    const { alice, bob } = wallets
    const message = await messageFor(alice.address)
    const signature = await alice.signMessage({ message })
    await advance(10 * 60 * 1000)
    const late = await getJwt(alice.address, signature)
    expect(late.status).toBe(401)
    expect(await late.json()).toEqual({ message: "Invalid Signature" })

    const bobMessage = await messageFor(bob.address)
    const bobSignature = await bob.signMessage({ message: bobMessage })
    await advance(10 * 60 * 1000)
    const bearer = await encryption("/api/retrieveSharedKey/1", {
      method: "POST",
      headers: { Authorization: `Bearer ${bobSignature}` },
      body: JSON.stringify({ address: bob.address, cid: cids.unknown, dynamicData: {} })
    })
    expect(bearer.status).toBe(401)
    expect(await bearer.json()).toEqual({ message: "Invalid Signature" })

    // Issuing any message sweeps the expired ones.
    await messageFor(wallets.carol.address)
    expect([...messages().keys()]).toEqual([wallets.carol.address.toLowerCase()])
  })

  it("a message signed within 10 minutes still buys a JWT", async () => {
    const { alice } = wallets
    const message = await messageFor(alice.address)
    await advance(10 * 60 * 1000 - 1)
    expect((await getJwt(alice.address, await alice.signMessage({ message }))).status).toBe(200)
    expect(messages().size).toBe(0)
  })

  it("1 000 requests for as many addresses leave at most 250 pending, the newest; all gone once expired", async () => {
    // 999 addresses nobody holds a key of, then dave's, asked for last.
    const addresses = [
      ...Array.from({ length: 999 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`),
      wallets.dave.address.toLowerCase()
    ]
    let next = 0
    const worker = async () => {
      while (next < addresses.length) {
        const answer = await encryption(`/api/message/${addresses[next++]!}`)
        expect(answer.status).toBe(200)
        await answer.arrayBuffer()
      }
    }
    await Promise.all(Array.from({ length: 8 }, worker))
    expect(messages().size).toBe(250)
    expect([...messages().keys()]).toEqual(addresses.slice(-250))

    // A pending message still signs in; after 10 minutes, one more request sweeps them all.
    const { dave } = wallets
    const pending = messages().get(dave.address.toLowerCase())!.message
    expect((await getJwt(dave.address, await dave.signMessage({ message: pending }))).status).toBe(200)
    await advance(10 * 60 * 1000)
    await messageFor(wallets.alice.address)
    expect([...messages().keys()]).toEqual([wallets.alice.address.toLowerCase()])
  })
})
