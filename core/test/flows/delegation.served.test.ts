/**
 * Account delegation through the Promise facade over the served network (real sockets): the
 * owner grants, the delegate recovers the key with its own JWT naming the owner, the owner
 * revokes and the delegate is refused with the typed `AccessDenied`.
 */
import { Effect, Redacted } from "effect"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as KeyShards from "../../src/KeyShards.ts"
import { createLighthouseNode } from "../../src/node.ts"
import type { LighthouseClient } from "../../src/promise.ts"
import * as Signer from "../../src/Signer.ts"
import { cid, keys } from "../support/accounts.ts"

describe("account delegation over served HTTP, through the Promise facade", () => {
  let served: ServedMockNetwork
  let lighthouse: LighthouseClient
  beforeAll(async () => {
    served = await serveMockNetwork()
    lighthouse = createLighthouseNode({ hosts: served.urls, nodes: { mode: "concurrent", retryDelay: 0 } })
  })
  afterAll(async () => {
    await lighthouse.dispose()
    await served.close()
  })
  beforeEach(() => served.network.reset())

  it("grant, recover as the delegate, revoke", async () => {
    const alice = await Effect.runPromise(Signer.makeFromPrivateKey(Redacted.make(keys.alice)))
    const bob = await Effect.runPromise(Signer.makeFromPrivateKey(Redacted.make(keys.bob)))
    const { masterKey, keyShards } = await Effect.runPromise(KeyShards.generate())
    const aliceToken = await lighthouse.auth.token(alice)
    await lighthouse.keyShards.save({ cid, address: alice.address, token: aliceToken, keyShards })
    await lighthouse.accessControl.delegateAllFiles({
      address: alice.address,
      token: aliceToken,
      delegates: [bob.address]
    })

    const bobToken = await lighthouse.auth.token(bob)
    const key = await lighthouse.keyShards.fetchKey({
      cid,
      address: bob.address,
      token: bobToken,
      ownerAddress: alice.address
    })
    expect(Redacted.value(key)).toBe(Redacted.value(masterKey))

    await lighthouse.accessControl.revokeDelegates({ address: alice.address, token: aliceToken })
    await expect(
      lighthouse.keyShards.fetchKey({ cid, address: bob.address, token: bobToken, ownerAddress: alice.address })
    ).rejects.toMatchObject({ _tag: "AccessDenied", message: "Access Denied" })
  })
})
