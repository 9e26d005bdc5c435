/**
 * `Ipns` on the wire, against the mock network: generate, publish, list and remove, with the
 * provider's shapes and its `Request failed` wording.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { InvalidCid, RequestFailed } from "../src/Errors.ts"
import * as Ipns from "../src/Ipns.ts"
import { alice, makeHarness } from "./upload/harness.ts"

const { network, log, layer } = makeHarness()

const API = "https://api.lighthouse.storage"
const CID = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"
const seed = () => network.seedAccount(alice.address, { apiKey: "ipns-key" }).apiKey

describe("Ipns", () => {
  it.effect("generate, publish, list, remove: each request and answer", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const ipns = yield* Ipns.Ipns

      const key = yield* ipns.generateKey(apiKey)
      assert.match(key.ipnsName, /^[0-9a-f]{32}$/)
      assert.match(key.ipnsId, /^k51/)
      assert.strictEqual(log[0]!.method, "GET")
      assert.strictEqual(log[0]!.url.href, `${API}/api/ipns/generate_key`)
      assert.strictEqual(log[0]!.headers.authorization, "Bearer ipns-key")
      assert.strictEqual(log[0]!.headers["content-type"], "application/json")

      // Before a publish the record points nowhere.
      const before = yield* ipns.records(apiKey)
      assert.strictEqual(before.length, 1)
      assert.strictEqual(before[0]!.cid, null)

      const published = yield* ipns.publishRecord(apiKey, { cid: CID, keyName: key.ipnsName })
      assert.deepStrictEqual(published, { Name: key.ipnsId, Value: `/ipfs/${CID}` })
      assert.strictEqual(log[2]!.url.href, `${API}/api/ipns/publish_record?cid=${CID}&keyName=${key.ipnsName}`)
      assert.strictEqual(log[2]!.headers.authorization, "Bearer ipns-key")

      const records = yield* ipns.records(apiKey)
      assert.strictEqual(log[3]!.url.href, `${API}/api/ipns/get_ipns_records`)
      assert.strictEqual(log[3]!.headers["content-type"], "application/json")
      assert.strictEqual(records.length, 1)
      assert.deepStrictEqual(
        { ...records[0]!, lastUpdate: 0 },
        { ipnsName: key.ipnsName, ipnsId: key.ipnsId, publicKey: alice.address.toLowerCase(), cid: CID, lastUpdate: 0 }
      )

      const removed = yield* ipns.removeKey(apiKey, key.ipnsName)
      assert.deepStrictEqual(removed, { Keys: [{ Name: key.ipnsName, Id: key.ipnsId }] })
      assert.strictEqual(log[4]!.method, "DELETE")
      assert.strictEqual(log[4]!.url.href, `${API}/api/ipns/remove_key?keyName=${key.ipnsName}`)
      assert.deepStrictEqual(yield* ipns.records(apiKey), [])
    }).pipe(Effect.provide(layer))
  )

  it.effect("an unknown or removed key: Request failed with status code 500; a bad API key: 401", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const ipns = yield* Ipns.Ipns
      const key = yield* ipns.generateKey(apiKey)
      yield* ipns.removeKey(apiKey, key.ipnsName)
      const twice = (yield* Effect.flip(ipns.removeKey(apiKey, key.ipnsName))) as RequestFailed
      assert.strictEqual(twice.message, "Request failed with status code 500")
      const unknown = (yield* Effect.flip(ipns.publishRecord(apiKey, { cid: CID, keyName: "nope" }))) as RequestFailed
      assert.strictEqual(unknown.message, "Request failed with status code 500")
      const badKey = (yield* Effect.flip(ipns.generateKey("wrong"))) as RequestFailed
      assert.strictEqual(badKey._tag, "RequestFailed")
      assert.strictEqual(badKey.status, 401)
      assert.strictEqual(badKey.message, "Request failed with status code 401")
    }).pipe(Effect.provide(layer))
  )

  it.effect("a key name is URL-encoded; an invalid CID is refused before sending", () =>
    Effect.gen(function* () {
      const apiKey = seed()
      const ipns = yield* Ipns.Ipns
      yield* Effect.flip(ipns.removeKey(apiKey, "a b&c"))
      assert.strictEqual(log[0]!.url.search, "?keyName=a+b%26c")
      log.length = 0
      const invalid = (yield* Effect.flip(ipns.publishRecord(apiKey, { cid: "bad", keyName: "k" }))) as InvalidCid
      assert.strictEqual(invalid.message, "Invalid CID")
      assert.strictEqual(log.length, 0)
    }).pipe(Effect.provide(layer))
  )
})
