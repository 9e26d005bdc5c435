/**
 * The nodes never hand a shard to someone not entitled to it: a wrong signature, a replayed one,
 * an expired or tampered JWT, another account's token, a non-owner, a revoked address and an unmet
 * condition are all refused, and the refusal carries no key material. Checked on the wire and on
 * each node's release log.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { makeKeyNodes } from "../../src/keyNodes/index.ts"
import {
  type Answer,
  blockNumberAtLeast,
  call,
  cids,
  jwtFor,
  serveKeyNodes,
  shard,
  signIn,
  wallets
} from "../support/keyNodes.ts"

let clock = Date.parse("2026-01-01T00:00:00Z")
const { keyNodes, server } = serveKeyNodes({ now: () => clock, jwtTtlSeconds: 60, refreshTtlSeconds: 600 })
beforeEach(() => {
  clock = Date.parse("2026-01-01T00:00:00Z")
})

const { alice, bob, carol } = wallets
const lower = (account: typeof alice) => account.address.toLowerCase()

const saveAll = async (cid: string, token: string) => {
  for (let n = 1; n <= 5; n++) {
    const answer = await call(
      "POST",
      `/api/setSharedKey/${n}`,
      { address: alice.address, cid, payload: shard(n) },
      token
    )
    expect(answer.status).toBe(200)
  }
}

const retrieve = (account: typeof alice, cid: string, token: string, node = 1, dynamicData = {}) =>
  call("POST", `/api/retrieveSharedKey/${node}`, { address: account.address, cid, dynamicData }, token)

/** No shard key of ours appears anywhere in the answer. */
const leaksNothing = (answer: Answer) => {
  const text = JSON.stringify(answer.body)
  for (let n = 1; n <= 5; n++) expect(text).not.toContain(shard(n).key)
}

const releasedTo = (account: typeof alice) =>
  keyNodes.nodes.flatMap((node) => node.released).filter((release) => release.to === lower(account))

const expectRefused = (answer: Answer, status: number, body: unknown) => {
  expect(answer.status).toBe(status)
  expect(answer.body).toEqual(body)
  leaksNothing(answer)
}

const invalidSignature = { message: "Invalid Signature" }
const accessDenied = { message: { message: { message: "Access Denied" } } }

describe("key-node security", () => {
  it("a wrong signature is refused: another key, garbage, a signature of an older message", async () => {
    const { token } = await jwtFor(alice)
    await saveAll(cids.a, token)

    const { body } = await call("GET", `/api/message/${alice.address}`)
    const byBob = await bob.signMessage({ message: body[0].message })
    expectRefused(await retrieve(alice, cids.a, byBob), 401, invalidSignature)
    expectRefused(await retrieve(alice, cids.a, "0x1234"), 401, invalidSignature)
    expectRefused(await retrieve(alice, cids.a, ""), 401, invalidSignature)

    const stale = await alice.signMessage({ message: body[0].message })
    await call("GET", `/api/message/${alice.address}`) // a newer message replaces it
    expectRefused(await retrieve(alice, cids.a, stale), 401, invalidSignature)
    expect(releasedTo(alice)).toEqual([])
  })

  it("a raw signature works once per node; exchanged for a JWT it works nowhere", async () => {
    const { token } = await jwtFor(alice)
    await saveAll(cids.a, token)
    const signature = await signIn(alice)
    expect((await retrieve(alice, cids.a, signature, 2)).status).toBe(200)
    expectRefused(await retrieve(alice, cids.a, signature, 2), 401, invalidSignature)
    expect((await retrieve(alice, cids.a, signature, 3)).status).toBe(200)

    const exchanged = await signIn(alice)
    const jwt = await call("POST", "/api/message/get-jwt", { address: alice.address, signature: exchanged })
    expect(jwt.status).toBe(200)
    expectRefused(await retrieve(alice, cids.a, exchanged, 4), 401, invalidSignature)
    expectRefused(
      await call("POST", "/api/message/get-jwt", { address: alice.address, signature: exchanged }),
      401,
      invalidSignature
    )
    expect(releasedTo(alice).map((r) => r.right)).toEqual(["owner", "owner"])
  })

  it("an expired JWT is refused with `jwt expired`; a refreshed one works", async () => {
    const { token, refreshToken } = await jwtFor(alice)
    await saveAll(cids.a, token)
    expect((await retrieve(alice, cids.a, token)).status).toBe(200)

    clock += 60_000
    expectRefused(await retrieve(alice, cids.a, token, 2), 401, { message: "jwt expired" })
    expect(releasedTo(alice)).toHaveLength(1)

    const refreshed = await call("PUT", "/api/message/get-jwt", { address: alice.address, refreshToken })
    expect(refreshed.status).toBe(200)
    expect((await retrieve(alice, cids.a, refreshed.body.token, 2)).status).toBe(200)

    clock += 600_000
    expectRefused(
      await call("PUT", "/api/message/get-jwt", { address: alice.address, refreshToken: refreshed.body.refreshToken }),
      401,
      { message: "Invalid Refresh Token" }
    )
  })

  it("another account's token, a tampered JWT and one from another network are refused", async () => {
    const { token } = await jwtFor(alice)
    await saveAll(cids.a, token)
    const bobs = await jwtFor(bob)
    // Bob's valid token, presented as alice.
    expectRefused(await retrieve(alice, cids.a, bobs.token), 401, invalidSignature)
    // Bob's raw signature, presented as alice.
    expectRefused(await retrieve(alice, cids.a, await signIn(bob)), 401, invalidSignature)

    // Bob's token with its payload rewritten to claim alice's address: the HS256 signature no longer matches.
    const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString())
    const encode = (claims: unknown) => Buffer.from(JSON.stringify(claims)).toString("base64url")
    const [header, payload, signature] = bobs.token.slice(4).split(".") as [string, string, string]
    const retargeted = `jwt:${header}.${encode({ ...decode(payload), sub: lower(alice) })}.${signature}`
    expectRefused(await retrieve(alice, cids.a, retargeted), 401, invalidSignature)
    // Alice's own token with `exp` pushed out by a day: refused the same way.
    const [aHeader, aPayload, aSignature] = token.slice(4).split(".") as [string, string, string]
    const claims = decode(aPayload)
    const extended = `jwt:${aHeader}.${encode({ ...claims, exp: claims.exp + 86_400 })}.${aSignature}`
    expectRefused(await retrieve(alice, cids.a, extended), 401, invalidSignature)
    expect((await retrieve(alice, cids.a, token)).status).toBe(200)

    // A JWT minted by a different network (its own secret).
    const elsewhere = makeKeyNodes({ now: () => clock })
    server.use(...elsewhere.handlers)
    const foreign = await jwtFor(alice)
    server.resetHandlers()
    expectRefused(await retrieve(alice, cids.a, foreign.token), 401, invalidSignature)
    expect(releasedTo(alice)).toHaveLength(1)
    expect(releasedTo(bob)).toEqual([])
  })

  it("a non-owner gets `Access Denied` for every operation and changes nothing", async () => {
    const { token } = await jwtFor(alice)
    await saveAll(cids.a, token)
    const before = JSON.stringify([...keyNodes.nodes.map((n) => [...n.files.values()])])
    const bobs = (await jwtFor(bob)).token
    const body = { address: bob.address, cid: cids.a }
    expectRefused(await retrieve(bob, cids.a, bobs), 403, accessDenied)
    expectRefused(await call("POST", "/api/setSharedKey/1", { ...body, payload: shard(9) }, bobs), 403, accessDenied)
    expectRefused(
      await call("PUT", "/api/setSharedKey/2", { ...body, shareTo: [bob.address] }, bobs),
      403,
      accessDenied
    )
    expectRefused(
      await call("DELETE", "/api/setSharedKey/3", { ...body, revokeTo: [alice.address] }, bobs),
      403,
      accessDenied
    )
    expectRefused(
      await call("POST", "/api/transferOwnership/4", { ...body, newOwner: bob.address, resetSharedTo: true }, bobs),
      403,
      accessDenied
    )
    const conditions = [blockNumberAtLeast("Polygon")]
    expectRefused(
      await call("PUT", "/api/fileAccessConditions/5", { ...body, conditions, chainType: "EVM" }, bobs),
      403,
      accessDenied
    )
    expectRefused(
      await call("POST", "/api/fileAccessConditions/5", { ...body, conditions, payload: shard(9) }, bobs),
      403,
      accessDenied
    )
    expect(JSON.stringify([...keyNodes.nodes.map((n) => [...n.files.values()])])).toBe(before)
    expect(releasedTo(bob)).toEqual([])
  })

  it("a revoked address is refused again, by every node", async () => {
    const { token } = await jwtFor(alice)
    await saveAll(cids.a, token)
    for (let n = 1; n <= 5; n++) {
      await call(
        "PUT",
        `/api/setSharedKey/${n}`,
        { address: alice.address, cid: cids.a, shareTo: [bob.address, carol.address] },
        token
      )
    }
    const bobs = (await jwtFor(bob)).token
    expect((await retrieve(bob, cids.a, bobs, 1)).body).toEqual({ message: "success", payload: shard(1) })

    for (let n = 1; n <= 5; n++) {
      const revoked = await call(
        "DELETE",
        `/api/setSharedKey/${n}`,
        { address: alice.address, cid: cids.a, revokeTo: bob.address },
        token
      )
      expect(revoked.body).toEqual({ message: "success", data: { cid: cids.a, sharedTo: [lower(carol)] } })
    }
    for (let n = 1; n <= 5; n++) expectRefused(await retrieve(bob, cids.a, bobs, n), 403, accessDenied)
    expect(releasedTo(bob).map((r) => r.cid)).toEqual([cids.a])
    // Carol keeps her share.
    expect((await retrieve(carol, cids.a, (await jwtFor(carol)).token, 4)).status).toBe(200)
  })

  it("an unmet condition is refused until it holds", async () => {
    const { token } = await jwtFor(alice)
    const solanaKey = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
    const mint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
    const conditions = [
      {
        id: 1,
        chain: "DEVNET",
        method: "getTokenAccountsByOwner",
        standardContractType: "spl-token",
        contractAddress: mint,
        parameters: [solanaKey],
        pdaInterface: {},
        returnValueTest: { comparator: ">=", value: "1000" }
      }
    ]
    for (let n = 1; n <= 5; n++) {
      const created = await call(
        "POST",
        `/api/fileAccessConditions/${n}`,
        {
          address: alice.address,
          cid: cids.b,
          conditions,
          chainType: "solana",
          decryptionType: "ADDRESS",
          payload: shard(n)
        },
        token
      )
      expect(created.status).toBe(200)
    }
    const bobs = (await jwtFor(bob)).token
    keyNodes.ledger.solana.setTokenBalance(solanaKey, mint, 999n)
    expectRefused(await retrieve(bob, cids.b, bobs, 2), 403, accessDenied)
    expect(releasedTo(bob)).toEqual([])

    keyNodes.ledger.solana.setTokenBalance(solanaKey, mint, 1000n)
    expect((await retrieve(bob, cids.b, bobs, 2)).body).toEqual({ message: "success", payload: shard(2) })
    expect(releasedTo(bob)).toEqual([expect.objectContaining({ cid: cids.b, right: "conditions" })])
  })
})
