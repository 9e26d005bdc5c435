/**
 * The provider's SDK, `@lighthouse-web3/sdk` 0.4.7 (with the kavach 0.1.9 it bundles), unmodified:
 * its encryption functions against the mock key nodes through msw, default host.
 */
import kavach from "@lighthouse-web3/kavach"
import lighthouse from "@lighthouse-web3/sdk"
import { describe, expect, it } from "vitest"
import { cids, erc20Balance, fantomToken, serveKeyNodes, settle, signIn, wallets } from "../support/keyNodes.ts"

serveKeyNodes({}, { fakeTimers: true })

const { alice, bob } = wallets

/** Signs the SDK's own auth message, as the SDK's tests do. */
const signed = async (account: typeof alice) => {
  const { data } = await lighthouse.getAuthMessage(account.address)
  return account.signMessage({ message: data.message as string })
}

/** Stores a fresh key for `cid`, owned by alice (what uploadEncrypted does after the upload). */
const stored = async (cid: string) => {
  const { masterKey, keyShards } = await kavach.generate()
  const saved = await settle(kavach.saveShards(alice.address, cid, await signIn(alice), keyShards))
  expect(saved.isSuccess).toBe(true)
  return masterKey as string
}

describe("@lighthouse-web3/sdk encryption functions against the mock key nodes", () => {
  it("getAuthMessage returns the node's message; a bad key is refused before any request", async () => {
    const { data } = await lighthouse.getAuthMessage(alice.address)
    expect(data.message).toMatch(/^Please sign this message to prove/)
    await expect(lighthouse.getAuthMessage("0x1234")).rejects.toThrow("Invalid public Key")
  })

  it("fetchEncryptionKey recovers the master key; `cid not found` and `Invalid Signature` otherwise", async () => {
    const masterKey = await stored(cids.a)
    const { data } = await settle(lighthouse.fetchEncryptionKey(cids.a, alice.address, await signed(alice)))
    expect(data.key).toBe(masterKey)

    await expect(settle(lighthouse.fetchEncryptionKey(cids.unknown, alice.address, await signed(alice)))).rejects.toBe(
      "cid not found"
    )
    await expect(settle(lighthouse.fetchEncryptionKey(cids.a, alice.address, "0x00"))).rejects.toMatchObject({
      message: "Invalid Signature"
    })
  })

  it("shareFile grants bob the key; revokeFileAccess takes it back", async () => {
    const masterKey = await stored(cids.b)
    const shared = await settle(lighthouse.shareFile(alice.address, [bob.address], cids.b, await signed(alice)))
    expect(shared).toEqual({ data: { cid: cids.b, shareTo: [bob.address], status: "Success" } })
    const asBob = await settle(lighthouse.fetchEncryptionKey(cids.b, bob.address, await signed(bob)))
    expect(asBob.data.key).toBe(masterKey)

    const revoked = await settle(lighthouse.revokeFileAccess(alice.address, bob.address, cids.b, await signed(alice)))
    expect(revoked).toEqual({ data: { cid: cids.b, revokeTo: bob.address, status: "Success" } })
    const denied = await settle(lighthouse.fetchEncryptionKey(cids.b, bob.address, await signed(bob))).catch((e) => e)
    expect(denied.message.message.message).toBe("Access Denied")
  })

  it("shareFile on someone else's CID throws the nested access-denied error", async () => {
    await stored(cids.c)
    const thrown = await settle(lighthouse.shareFile(bob.address, [bob.address], cids.c, await signed(bob))).catch(
      (e) => e
    )
    expect(thrown.message.message.message).toBe("Access Denied")
  })

  it("applyAccessCondition updates the conditions; getAccessConditions reads them", async () => {
    await stored(cids.e)
    const holdsAny = { comparator: ">=", value: "0" }
    const conditions = [
      erc20Balance("FantomTest", fantomToken, holdsAny),
      erc20Balance("FantomTest", fantomToken, holdsAny, 2)
    ]
    const applied = await settle(
      lighthouse.applyAccessCondition(alice.address, cids.e, await signed(alice), conditions, "([1] and [2])")
    )
    expect(applied).toEqual({ data: { cid: cids.e, status: "Success" } })

    const { data } = await lighthouse.getAccessConditions(cids.e)
    expect(data).toMatchObject({ aggregator: "([1] and [2])", conditions, sharedTo: [], cid: cids.e })
    expect(data.owner).toBe(alice.address.toLowerCase())

    // Not the owner: the nodes refuse and the SDK (0.4.1+) throws.
    await expect(
      settle(lighthouse.applyAccessCondition(bob.address, cids.e, await signed(bob), conditions, "([1] or [2])"))
    ).rejects.toThrow()
    await expect(lighthouse.getAccessConditions(cids.unknown)).rejects.toThrow("HTTP error! status: 400")
  })
})
