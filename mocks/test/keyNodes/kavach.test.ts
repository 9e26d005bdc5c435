/**
 * The provider's own client, `@lighthouse-web3/kavach` 0.2.1, unmodified, against the mock key
 * nodes through msw with the default host: every network function, success and the failure
 * shapes its own test suite records (nested `Access Denied`, `cid not found`, `Invalid Signature`),
 * and Radix conditions, which kavach validates but does not type.
 */
import kavach from "@lighthouse-web3/kavach"
import { describe, expect, it } from "vitest"
import {
  blockNumberAtLeast,
  cids,
  erc20Balance,
  fantomToken,
  serveKeyNodes,
  settle,
  wallets
} from "../support/keyNodes.ts"

const { keyNodes } = serveKeyNodes({}, { fakeTimers: true })

const { alice, bob, carol } = wallets

const signed = async (account: typeof alice) => {
  const { message, error } = await kavach.getAuthMessage(account.address)
  expect(error).toBe(null)
  return account.signMessage({ message: message as string })
}

/** Generates a key and saves its 5 shards for `owner`; returns the master key and shards. */
const encryptFor = async (owner: typeof alice, cid: string) => {
  const { masterKey, keyShards } = await kavach.generate(3, 5)
  const saved = await settle(kavach.saveShards(owner.address, cid, await signed(owner), keyShards))
  expect(saved).toEqual({ isSuccess: true, error: null })
  return { masterKey: masterKey as string, keyShards }
}

const released = () => keyNodes.nodes.flatMap((node) => node.released)

describe("kavach against the mock key nodes", () => {
  it("getAuthMessage: a message with the provider's prefix, or `Invalid address`", async () => {
    const { message, error } = await kavach.getAuthMessage(alice.address)
    expect(error).toBe(null)
    expect(message).toMatch(/^Please sign this message to prove you are owner of this account: [0-9a-f-]{36}$/)
    expect(keyNodes.auth.messages.get(alice.address.toLowerCase())?.message).toBe(message)

    const second = await kavach.getAuthMessage(alice.address)
    expect(second.message).not.toBe(message)

    const bad = await kavach.getAuthMessage("0x9a40b8EE3B8Fe7eB621cd142a651560Fa7")
    expect(bad.message).toBe(null)
    expect(bad.error).toEqual({ message: "Invalid address", statusCode: 400 })
  })

  it("getJWT: token pair for a valid signature, refresh through PUT, `Invalid Signature` otherwise", async () => {
    expect(await kavach.getJWT(alice.address, "signature")).toEqual({ JWT: null, error: "Invalid Signature" })

    const first = await kavach.getJWT(alice.address, await signed(alice))
    expect(first.error).toBe(null)
    expect(first.JWT).toMatch(/^jwt:[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(first.refreshToken).toMatch(/^r:[\w-]{43}$/)

    const refreshed = await kavach.getJWT(alice.address, first.refreshToken, true)
    expect(refreshed.JWT).toMatch(/^jwt:/)
    expect(refreshed.refreshToken).toMatch(/^r:/)
    expect(refreshed.refreshToken).not.toBe(first.refreshToken)
    // Refresh tokens are single-use.
    expect(await kavach.getJWT(alice.address, first.refreshToken, true)).toEqual({
      JWT: null,
      error: "Invalid Signature"
    })
    // Another address cannot spend alice's refresh token.
    expect((await kavach.getJWT(bob.address, refreshed.refreshToken, true)).error).toBe("Invalid Signature")
  })

  it("saveShards then recoverShards (5, in node order) and recoverKey give the master key back", async () => {
    const { masterKey, keyShards } = await encryptFor(alice, cids.a)
    keyNodes.nodes.forEach((node, i) => {
      expect(node.files.get(cids.a)?.shard).toEqual(keyShards[i])
      expect(node.files.get(cids.a)?.owner).toBe(alice.address.toLowerCase())
    })

    const { shards, error } = await settle(kavach.recoverShards(alice.address, cids.a, await signed(alice), 5))
    expect(error).toBe(null)
    expect(shards).toEqual(keyShards)
    expect((await kavach.recoverKey(shards.slice(1, 4))).masterKey).toBe(masterKey)

    // The default: 3 random distinct nodes, which still recover the key.
    const three = await settle(kavach.recoverShards(alice.address, cids.a, await signed(alice)))
    expect(three.shards).toHaveLength(3)
    expect((await kavach.recoverKey(three.shards)).masterKey).toBe(masterKey)
  })

  it("works with a JWT as the bearer token, for several calls", async () => {
    const { JWT } = await kavach.getJWT(alice.address, await signed(alice))
    const { masterKey, keyShards } = await kavach.generate()
    expect(await settle(kavach.saveShards(alice.address, cids.b, JWT as string, keyShards))).toEqual({
      isSuccess: true,
      error: null
    })
    const { shards } = await settle(kavach.recoverShards(alice.address, cids.b, JWT as string, 3))
    expect((await kavach.recoverKey(shards)).masterKey).toBe(masterKey)
  })

  it("recoverShards: `cid not found`, nested `Access Denied`, `Invalid Signature`", async () => {
    await encryptFor(alice, cids.a)

    const missing = await settle(kavach.recoverShards(alice.address, cids.unknown, await signed(alice)))
    expect(missing).toEqual({ shards: [], error: "cid not found" })

    const denied = await settle(kavach.recoverShards(bob.address, cids.a, await signed(bob), 5))
    expect(denied.shards).toEqual([])
    expect(denied.error?.message?.message?.message).toBe("Access Denied")

    const forged = await settle(kavach.recoverShards(alice.address, cids.a, "signature", 5))
    expect(forged).toEqual({ shards: [], error: { message: "Invalid Signature", statusCode: 401 } })

    expect(released().filter((r) => r.to !== alice.address.toLowerCase())).toEqual([])
  })

  it("saveShards: `Invalid Signature`, and a non-owner cannot overwrite a CID", async () => {
    const { keyShards } = await kavach.generate()
    const forged = await settle(kavach.saveShards(alice.address, cids.a, "0xdeadbeef", keyShards))
    expect(forged).toEqual({ isSuccess: false, error: { message: "Invalid Signature", statusCode: 401 } })
    expect(keyNodes.nodes.every((node) => node.files.size === 0)).toBe(true)

    const original = await encryptFor(alice, cids.a)
    const { keyShards: other } = await kavach.generate()
    const hijack = await settle(kavach.saveShards(bob.address, cids.a, await signed(bob), other))
    expect(hijack.isSuccess).toBe(false)
    expect(hijack.error).toEqual({ message: { message: { message: "Access Denied" } }, statusCode: 403 })
    for (const [i, node] of keyNodes.nodes.entries())
      expect(node.files.get(cids.a)?.shard).toEqual(original.keyShards[i])
  })

  it("a raw signature is spent per node: the same one cannot be replayed", async () => {
    const { keyShards } = await kavach.generate()
    const signature = await signed(alice)
    expect((await settle(kavach.saveShards(alice.address, cids.a, signature, keyShards))).isSuccess).toBe(true)
    const replay = await settle(kavach.recoverShards(alice.address, cids.a, signature, 3))
    expect(replay.error).toEqual({ message: "Invalid Signature", statusCode: 401 })
  })

  it("shareToAddress lets bob recover; revokeAccess takes it back; only the owner may do either", async () => {
    const { masterKey } = await encryptFor(alice, cids.b)

    const notOwner = await settle(kavach.shareToAddress(bob.address, cids.b, await signed(bob), [carol.address]))
    expect(notOwner.isSuccess).toBe(false)
    expect(notOwner.error?.message?.message?.message).toBe("Access Denied")

    const shared = await settle(kavach.shareToAddress(alice.address, cids.b, await signed(alice), [bob.address]))
    expect(shared).toEqual({ isSuccess: true, error: null })
    expect(keyNodes.nodes.every((n) => n.files.get(cids.b)?.sharedTo.includes(bob.address.toLowerCase()))).toBe(true)

    const asBob = await settle(kavach.recoverShards(bob.address, cids.b, await signed(bob), 3))
    expect((await kavach.recoverKey(asBob.shards)).masterKey).toBe(masterKey)

    const revokeByBob = await settle(kavach.revokeAccess(bob.address, cids.b, await signed(bob), [bob.address]))
    expect(revokeByBob.isSuccess).toBe(false)
    expect(revokeByBob.error?.message?.message?.message).toMatch(/Access Denied/)

    const revoked = await settle(kavach.revokeAccess(alice.address, cids.b, await signed(alice), [bob.address]))
    expect(revoked).toEqual({ isSuccess: true, error: null })
    const releasedBefore = released().length
    const again = await settle(kavach.recoverShards(bob.address, cids.b, await signed(bob), 3))
    expect(again.shards).toEqual([])
    expect(again.error?.message?.message?.message).toBe("Access Denied")
    expect(released()).toHaveLength(releasedBefore)
  })

  it("accessControl: POST with 5 shards creates, PUT updates; getAccessCondition reads the record", async () => {
    const conditions = [
      erc20Balance("FantomTest", fantomToken, { comparator: ">=", value: "0" }),
      blockNumberAtLeast("FantomTest", "0", 2)
    ]
    const { keyShards } = await kavach.generate()
    const created = await settle(
      kavach.accessControl(
        alice.address,
        cids.c,
        await signed(alice),
        conditions as never,
        "([2] and [1])",
        "EVM",
        keyShards,
        "ADDRESS"
      )
    )
    expect(created).toEqual({ isSuccess: true, error: null })
    for (const [i, node] of keyNodes.nodes.entries()) expect(node.files.get(cids.c)?.shard).toEqual(keyShards[i])

    const { data } = await kavach.getAccessCondition(cids.c)
    expect(data).toEqual({
      aggregator: "([2] and [1])",
      conditions,
      conditionsSolana: [],
      sharedTo: [],
      owner: alice.address.toLowerCase(),
      cid: cids.c
    })

    const updated = await settle(
      kavach.accessControl(alice.address, cids.c, await signed(alice), [conditions[1]] as never, undefined, "evm")
    )
    expect(updated).toEqual({ isSuccess: true, error: null })
    expect((await kavach.getAccessCondition(cids.c)).data.conditions).toEqual([conditions[1]])

    // Bob is not the owner: every node refuses, which kavach reports as isSuccess false.
    const byBob = await settle(
      kavach.accessControl(bob.address, cids.c, await signed(bob), conditions as never, "([1] or [2])")
    )
    expect(byBob).toEqual({ isSuccess: false, error: null })
    expect((await kavach.getAccessCondition(cids.c)).data.conditions).toEqual([conditions[1]])

    await expect(kavach.getAccessCondition(cids.unknown)).rejects.toThrow(/null/)
  })

  it("accessControl with Radix conditions: created, updated, and recoverShards opens once bob holds XRD", async () => {
    const xrd = "resource_rdx1tknxxxxxxxxxradxrdxxxxxxxxx009923554798xxxxxxxxxradxrd"
    const holdsXrd = (value: string) => ({
      id: 1,
      chain: "Radix_Mainnet",
      method: "getFtsByAddress",
      standardContractType: "",
      resourceAddress: xrd,
      returnValueTest: { comparator: ">=", value }
    })
    const { masterKey, keyShards } = await kavach.generate()
    const created = await settle(
      kavach.accessControl(
        alice.address,
        cids.e,
        await signed(alice),
        [holdsXrd("2.5")] as never,
        undefined,
        // kavach's `ChainType` type lacks RADIX, which its validator accepts.
        "RADIX" as never,
        keyShards,
        "ADDRESS"
      )
    )
    expect(created).toEqual({ isSuccess: true, error: null })
    expect((await kavach.getAccessCondition(cids.e)).data).toEqual({
      aggregator: "",
      conditions: [holdsXrd("2.5")],
      conditionsSolana: [],
      sharedTo: [],
      owner: alice.address.toLowerCase(),
      cid: cids.e
    })

    keyNodes.ledger.radix.setFungibleBalance(bob.address, xrd, "2")
    const denied = await settle(kavach.recoverShards(bob.address, cids.e, await signed(bob), 3))
    expect(denied.shards).toEqual([])
    expect(denied.error?.message?.message?.message).toBe("Access Denied")

    // The owner lowers the bar with a PUT (no shards): now bob's 2 XRD are enough.
    const updated = await settle(
      kavach.accessControl(
        alice.address,
        cids.e,
        await signed(alice),
        [holdsXrd("2")] as never,
        undefined,
        "radix" as never
      )
    )
    expect(updated).toEqual({ isSuccess: true, error: null })
    const opened = await settle(kavach.recoverShards(bob.address, cids.e, await signed(bob), 3))
    expect(opened.error).toBe(null)
    expect((await kavach.recoverKey(opened.shards)).masterKey).toBe(masterKey)
    expect(released().map((r) => [r.to, r.right])).toEqual(Array(3).fill([bob.address.toLowerCase(), "conditions"]))
  })

  it("accessControl with `[]` (kavach's way to clear conditions): every node refuses, the conditions stay", async () => {
    const conditions = [blockNumberAtLeast("FantomTest")]
    const { keyShards } = await kavach.generate()
    const token = await signed(alice)
    expect(
      await settle(kavach.accessControl(alice.address, cids.a, token, conditions as never, undefined, "EVM", keyShards))
    ).toEqual({ isSuccess: true, error: null })
    // kavach 0.2.1 validates `[]` and sends it; the nodes answer 400, which kavach reports without an error.
    const cleared = await settle(kavach.accessControl(alice.address, cids.a, await signed(alice), [], undefined, "EVM"))
    expect(cleared).toEqual({ isSuccess: false, error: null })
    expect((await kavach.getAccessCondition(cids.a)).data.conditions).toEqual(conditions)
  })

  it("transferOwnership: to bob and back; the old owner loses access meanwhile", async () => {
    const { masterKey } = await encryptFor(alice, cids.d)
    await settle(kavach.shareToAddress(alice.address, cids.d, await signed(alice), [carol.address]))

    const toBob = await settle(kavach.transferOwnership(alice.address, cids.d, bob.address, await signed(alice)))
    expect(toBob).toEqual({ isSuccess: true, error: null })
    expect(keyNodes.nodes.every((n) => n.files.get(cids.d)?.owner === bob.address.toLowerCase())).toBe(true)
    // resetSharedTo defaults to true: carol's share is gone.
    expect(keyNodes.nodes.every((n) => n.files.get(cids.d)?.sharedTo.length === 0)).toBe(true)

    const asAlice = await settle(kavach.recoverShards(alice.address, cids.d, await signed(alice), 3))
    expect(asAlice.error?.message?.message?.message).toBe("Access Denied")
    const asBob = await settle(kavach.recoverShards(bob.address, cids.d, await signed(bob), 3))
    expect((await kavach.recoverKey(asBob.shards)).masterKey).toBe(masterKey)

    const back = await settle(kavach.transferOwnership(bob.address, cids.d, alice.address, await signed(bob), false))
    expect(back).toEqual({ isSuccess: true, error: null })
    expect((await kavach.getAccessCondition(cids.d)).data.owner).toBe(alice.address.toLowerCase())
  })
})
