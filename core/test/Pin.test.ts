/**
 * Pinning a CID (`Files.pin`): over msw in this process, the request on the wire, the record in
 * the uploads list and in usage, and each refusal as its typed error; over the served network
 * (real sockets), the same through the Promise facade.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { MockNetwork } from "lighthouse-effect/mocks"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { afterAll, beforeAll, beforeEach, expect, it as vitestIt } from "vitest"
import type { ContentUnreachable, InvalidArgument, InvalidCid, RequestFailed } from "../src/Errors.ts"
import * as Files from "../src/Files.ts"
import { createLighthouseNode } from "../src/node.ts"
import type { LighthouseClient } from "../src/promise.ts"
import * as Upload from "../src/Upload.ts"
import { alice, bob, makeHarness, text } from "./upload/harness.ts"

/** Stands in for content elsewhere on IPFS: one raw block the network holds but nobody uploaded. */
const provideBlock = async (network: MockNetwork, bytes: Uint8Array) => {
  const cid = CID.create(1, raw.code, await sha256.digest(bytes))
  await network.state.content.put(cid, bytes)
  return cid.toString()
}

/** A CID of content the network does not hold. */
const elsewhere = async (bytes: Uint8Array) => CID.create(1, raw.code, await sha256.digest(bytes)).toString()

describe("Files.pin over msw", () => {
  const { network, log, layer } = makeHarness()

  it.effect("pins another account's upload: the record is in the uploads list and in usage", () =>
    Effect.gen(function* () {
      const bobKey = network.seedAccount(bob.address, { apiKey: "bob-key" }).apiKey
      const aliceKey = network.seedAccount(alice.address, { apiKey: "alice-key" }).apiKey
      const entry = yield* Upload.Upload.use((upload) => upload.text("pin me\n", { apiKey: bobKey, name: "b.txt" }))
      const files = yield* Files.Files
      log.length = 0
      const pinned = yield* files.pin(aliceKey, { cid: entry.Hash, fileName: "mine.txt" })
      assert.strictEqual(log[0]!.method, "POST")
      assert.strictEqual(log[0]!.url.href, "https://api.lighthouse.storage/api/lighthouse/pin")
      assert.strictEqual(log[0]!.headers.authorization, "Bearer alice-key")
      assert.deepStrictEqual(JSON.parse(text(log[0]!.body)), { cid: entry.Hash, fileName: "mine.txt" })
      assert.deepStrictEqual([pinned.cid, pinned.fileName, pinned.fileSizeInBytes], [entry.Hash, "mine.txt", "7"])
      assert.strictEqual(pinned.publicKey, alice.address.toLowerCase())

      const listed = (yield* files.uploadsPage(aliceKey)).fileList
      assert.deepStrictEqual(
        listed.map((f) => [f.id, f.cid]),
        [[pinned.id, entry.Hash]]
      )
      assert.strictEqual((yield* files.usage(aliceKey)).dataUsed, 7)
    }).pipe(Effect.provide(layer))
  )

  it.effect("pins content made available outside any upload; without a name the record is named by its CID", () =>
    Effect.gen(function* () {
      const apiKey = network.seedAccount(alice.address).apiKey
      const cid = yield* Effect.promise(() => provideBlock(network, new TextEncoder().encode("from elsewhere")))
      const files = yield* Files.Files
      log.length = 0
      const pinned = yield* files.pin(apiKey, { cid })
      assert.deepStrictEqual(JSON.parse(text(log[0]!.body)), { cid })
      assert.deepStrictEqual([pinned.fileName, pinned.fileSizeInBytes], [cid, "14"])
      assert.strictEqual((yield* files.usage(apiKey)).dataUsed, 14)
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "refusals are typed: unreachable content, quota, bad CID and input (these two before any request), bad key",
    () =>
      Effect.gen(function* () {
        const apiKey = network.seedAccount(alice.address, { dataLimit: 4 }).apiKey
        const files = yield* Files.Files
        const missing = yield* Effect.promise(() => elsewhere(new TextEncoder().encode("nobody has this")))
        const unreachable = (yield* Effect.flip(files.pin(apiKey, { cid: missing }))) as ContentUnreachable
        assert.strictEqual(unreachable._tag, "ContentUnreachable")
        assert.strictEqual(unreachable.message, `Content not reachable: ${missing}`)

        const big = yield* Effect.promise(() => provideBlock(network, new Uint8Array(5)))
        const quota = (yield* Effect.flip(files.pin(apiKey, { cid: big }))) as RequestFailed
        assert.strictEqual(quota.message, "Request failed with status code 402")
        assert.strictEqual(quota.body, `{"error":"Storage quota exceeded: 0 of 4 bytes used, this pin needs 5"}`)
        assert.strictEqual((yield* files.uploadsPage(apiKey)).totalFiles, 0)

        log.length = 0
        const invalid = (yield* Effect.flip(files.pin(apiKey, { cid: "not-a-cid" }))) as InvalidCid
        assert.strictEqual(invalid.message, "Invalid CID")
        const emptyName = (yield* Effect.flip(files.pin(apiKey, { cid: big, fileName: "" }))) as InvalidArgument
        assert.strictEqual(emptyName._tag, "InvalidArgument")
        assert.match(emptyName.message, /^Invalid argument to Files\.pin: /)
        assert.strictEqual(log.length, 0)

        const wrongKey = (yield* Effect.flip(files.pin("wrong-key", { cid: big }))) as RequestFailed
        assert.strictEqual(wrongKey.message, "Request failed with status code 401")
      }).pipe(Effect.provide(layer))
  )
})

describe("pin over the served network, through the Promise facade", () => {
  let served: ServedMockNetwork
  let lighthouse: LighthouseClient
  beforeAll(async () => {
    served = await serveMockNetwork()
    lighthouse = createLighthouseNode({ hosts: served.urls })
  })
  afterAll(async () => {
    await lighthouse.dispose()
    await served.close()
  })
  beforeEach(() => served.network.reset())

  vitestIt("pins reachable content and refuses the rest with typed errors", async () => {
    const { apiKey } = served.network.seedAccount(alice.address)
    const cid = await provideBlock(served.network, new Uint8Array([1, 2, 3]))
    const pinned = await lighthouse.files.pin(apiKey, { cid, fileName: "three.bin" })
    expect([pinned.cid, pinned.fileName, pinned.fileSizeInBytes]).toEqual([cid, "three.bin", "3"])
    const listed: Array<string> = []
    for await (const file of lighthouse.files.uploads(apiKey)) listed.push(file.cid)
    expect(listed).toEqual([cid])

    const missing = await elsewhere(new Uint8Array([9]))
    await expect(lighthouse.files.pin(apiKey, { cid: missing })).rejects.toMatchObject({
      _tag: "ContentUnreachable",
      message: `Content not reachable: ${missing}`
    })
    await expect(lighthouse.files.pin(apiKey, { cid: 42 } as never)).rejects.toMatchObject({
      _tag: "InvalidArgument",
      message: "Invalid argument to files.pin: argument 2 must be { cid, fileName? }"
    })
  })
})
