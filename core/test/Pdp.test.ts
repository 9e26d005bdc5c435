/**
 * PDP deals (`Files.requestPdpDeal`, `pdpDealStatus`, `awaitPdpDeal`): over msw on the TestClock,
 * the requests on the wire, the 100 MB limit refused before any deal request, the deal showing up
 * 20 minutes (of the network's clock) after the request and the schedule that waits for it; over
 * the served network, the same through the Promise facade with the network's clock moved by hand.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { afterAll, beforeAll, beforeEach, expect, it as vitestIt } from "vitest"
import type { HttpStatusError, PdpDealTimedOut, PdpSizeLimitExceeded, RequestFailed } from "../src/Errors.ts"
import * as Files from "../src/Files.ts"
import * as Lighthouse from "../src/Lighthouse.ts"
import * as Config from "../src/LighthouseConfig.ts"
import { createLighthouseNode } from "../src/node.ts"
import type { LighthouseClient } from "../src/promise.ts"
import { makeNetworkHarness } from "./support/network.ts"
import { alice, bob } from "./upload/harness.ts"

const MINUTE = 60_000
const API = "https://api.lighthouse.storage"

/** Content the network holds, pinned to the account of `apiKey`: a file of that account. */
const storedFile = async (network: MockNetwork, bytes: Uint8Array, apiKey: string, api: string = network.hosts.api) => {
  const cid = CID.create(1, raw.code, await sha256.digest(bytes))
  await network.state.content.put(cid, bytes)
  const answer = await fetch(`${api}/api/lighthouse/pin`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ cid: cid.toString() })
  })
  if (!answer.ok) throw new Error(`pin failed: ${answer.status}`)
  return cid.toString()
}

describe("PDP deals over msw, on the TestClock", () => {
  const { network, log, now, settle } = makeNetworkHarness((clock) => createMockNetwork({ clock }))
  const layer = Files.layer.pipe(
    Layer.provideMerge(Config.layer({ requestTimeout: "1 minute" })),
    Layer.provideMerge(Lighthouse.httpLayer),
    Layer.provide(FileSystem.layerNoop({}))
  )

  it.effect("a requested deal shows up 20 minutes later; the schedule polls every minute until then", () =>
    Effect.gen(function* () {
      const apiKey = network.seedAccount(alice.address, { apiKey: "alice-key" }).apiKey
      const cid = yield* settle(Effect.promise(() => storedFile(network, new TextEncoder().encode("hot copy"), apiKey)))
      const files = yield* Files.Files
      log.length = 0
      yield* settle(files.requestPdpDeal(apiKey, cid))
      assert.deepStrictEqual(
        log.map((entry) => [entry.method, entry.url.href, entry.headers.authorization]),
        [
          ["GET", `${API}/api/lighthouse/file_info?cid=${cid}`, undefined],
          ["GET", `${API}/api/lighthouse/pdp_deal_request?cid=${cid}`, "Bearer alice-key"]
        ]
      )
      const requestedAt = now()
      assert.deepStrictEqual(yield* settle(files.pdpDealStatus(cid)), [])

      const deal = yield* settle(files.awaitPdpDeal(cid))
      assert.isAtLeast(now() - requestedAt, 20 * MINUTE)
      assert.strictEqual(deal.dealStatus, "completed")
      assert.strictEqual(deal.publicKey, alice.address.toLowerCase())
      assert.deepStrictEqual(deal.transactionDetails.RootCID, cid)
      assert.strictEqual(
        deal.transactionDetails.DownloadURL,
        `https://gateway.lighthouse.storage/ipfs/${cid}?format=car`
      )
      assert.match(deal.transactionDetails.TXHash, /^0x[0-9a-f]{64}$/)
      const polls = log.filter((entry) => entry.path === "/api/lighthouse/pdp_deal_status").map((entry) => entry.at)
      assert.isAtLeast(polls.length, 3)
      for (const [i, at] of polls.entries()) if (i > 1) assert.isAtLeast(at - polls[i - 1]!, MINUTE)
    }).pipe(Effect.provide(layer))
  )

  it.effect("without a request the wait ends with PdpDealTimedOut", () =>
    Effect.gen(function* () {
      const apiKey = network.seedAccount(alice.address).apiKey
      const cid = yield* settle(Effect.promise(() => storedFile(network, new Uint8Array([1, 2]), apiKey)))
      const files = yield* Files.Files
      const error = (yield* Effect.flip(
        settle(files.awaitPdpDeal(cid, { interval: "1 minute", timeout: "5 minutes" }))
      )) as PdpDealTimedOut
      assert.strictEqual(error._tag, "PdpDealTimedOut")
      assert.strictEqual(error.message, `No PDP deal for ${cid} after 300000 ms`)
    }).pipe(Effect.provide(layer))
  )

  it.effect("over 100 MB is refused before any deal request; an unknown file and another's file too", () =>
    Effect.gen(function* () {
      const aliceKey = network.seedAccount(alice.address).apiKey
      const bobKey = network.seedAccount(bob.address).apiKey
      const bigCid = yield* settle(Effect.promise(() => storedFile(network, new Uint8Array([3]), aliceKey)))
      // The same CID recorded at 100 MiB + 1 byte (the size file_info reports).
      network.state.files.add({
        publicKey: alice.address.toLowerCase(),
        fileName: "big.bin",
        mimeType: null,
        fileSizeInBytes: String(100 * 1024 * 1024 + 1),
        cid: bigCid,
        encryption: false,
        storageType: "ipfs",
        dealParameters: null
      })
      const files = yield* Files.Files
      log.length = 0
      const tooBig = (yield* Effect.flip(settle(files.requestPdpDeal(aliceKey, bigCid)))) as PdpSizeLimitExceeded
      assert.strictEqual(tooBig.message, "File too large for a PDP deal: 104857601 bytes, the limit is 104857600")
      assert.isFalse(log.some((entry) => entry.path === "/api/lighthouse/pdp_deal_request"))

      const unknown = CID.create(1, raw.code, yield* Effect.promise(async () => sha256.digest(new Uint8Array([4]))))
      const missing = (yield* Effect.flip(
        settle(files.requestPdpDeal(aliceKey, unknown.toString()))
      )) as HttpStatusError
      assert.strictEqual(missing.message, "HTTP error! status 404")

      const small = yield* settle(Effect.promise(() => storedFile(network, new Uint8Array([5]), aliceKey)))
      const notBobs = (yield* Effect.flip(settle(files.requestPdpDeal(bobKey, small)))) as RequestFailed
      assert.strictEqual(notBobs.message, "Request failed with status code 404")
      assert.strictEqual(notBobs.body, `{"error":"File not found"}`)
    }).pipe(Effect.provide(layer))
  )
})

describe("PDP deals over the served network, through the Promise facade", () => {
  let served: ServedMockNetwork
  let lighthouse: LighthouseClient
  let networkNow = Date.UTC(2026, 0, 1)
  beforeAll(async () => {
    served = await serveMockNetwork({ clock: () => networkNow })
    lighthouse = createLighthouseNode({ hosts: served.urls })
  })
  afterAll(async () => {
    await lighthouse.dispose()
    await served.close()
  })
  beforeEach(() => served.network.reset())

  vitestIt("requests a deal, sees none before 20 minutes, then waits for it", async () => {
    const { apiKey } = served.network.seedAccount(alice.address)
    const cid = await storedFile(served.network, new TextEncoder().encode("served hot copy"), apiKey, served.urls.api)
    await lighthouse.files.requestPdpDeal(apiKey, cid)
    networkNow += 19 * MINUTE
    expect(await lighthouse.files.pdpDealStatus(cid)).toEqual([])
    networkNow += MINUTE
    const deal = await lighthouse.files.awaitPdpDeal(cid, { interval: 10, timeout: "10 seconds" })
    expect(deal.transactionDetails.RootCID).toBe(cid)
    await expect(lighthouse.files.pdpDealStatus("nope")).rejects.toMatchObject({ _tag: "InvalidCid" })
  })
})
