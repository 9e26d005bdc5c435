/**
 * The contract against the simulated network, over real sockets: a client generated from the
 * contract (`HttpApiClient`, requests encoded by its schemas) calls every endpoint of the API
 * host, the upload node, the gateway, x402 and the key nodes, and every answer is decoded by the
 * contract's schemas: the successes, and the declared error answers (status and body).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import * as Contract from "lighthouse-effect/contract"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { carHeader, carSection, testCids } from "lighthouse-effect/mocks/testing"
import { CID } from "multiformats/cid"
import { createPublicClient, createWalletClient, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { afterAll, beforeAll } from "vitest"
import { alice, bob } from "../support/accounts.ts"

const nowhere = http("http://127.0.0.1:9", { retryCount: 0 })
const x402 = {
  publicClient: createPublicClient({ chain: hardhat, transport: nowhere }),
  settler: createWalletClient({
    account: privateKeyToAccount(`0x${"11".repeat(32)}`),
    chain: hardhat,
    transport: nowhere
  }),
  asset: "0x2222222222222222222222222222222222222222",
  payTo: "0x1111111111111111111111111111111111111111"
} as const

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork({ x402 })
})
afterAll(() => served.close())

/** One client per host, generated from the contract. */
const clients = Effect.gen(function* () {
  const at = (host: Contract.HostName) => HttpApiClient.make(Contract.LighthouseApi, { baseUrl: served.urls[host] })
  return {
    api: yield* at("api"),
    node: yield* at("node"),
    gateway: yield* at("gateway"),
    keys: yield* at("encryption")
  }
}).pipe(Effect.provide(FetchHttpClient.layer))

const apiKey = "contract-key"
const bearer = { authorization: `Bearer ${apiKey}` }
const text = new TextEncoder().encode("the contract, declared once\n")
const shard = (n: number) => ({ key: n.toString(16).padStart(64, "0"), index: (n + 16).toString(16).padStart(64, "0") })
const bytesOf = <E, R>(stream: Stream.Stream<Uint8Array, E, R>) =>
  Stream.runCollect(stream).pipe(Effect.map((chunks) => Buffer.concat([...chunks])))

/** `text` uploaded as alice (CID v1, one raw block), and its CID. */
const uploaded = Effect.gen(function* () {
  served.network.seedAccount(alice.address, { apiKey })
  const { node } = yield* clients
  const form = new FormData()
  form.append("file", new Blob([text]), "contract.txt")
  const entry = yield* node.uploadNode.add({ headers: bearer, query: { "cid-version": "1" }, payload: form })
  return String((entry as { Hash: unknown }).Hash)
})

/** The declared error an effect failed with (a decoded body), or the failure if it is not one. */
const declared = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flip(effect) as Effect.Effect<unknown, A, R>

describe("the contract against the simulated network", () => {
  it.effect("API host: sign-in, account, files, pins, PDP, prices, IPNS; each answer decoded", () =>
    Effect.gen(function* () {
      served.network.seedAccount(alice.address, { apiKey })
      const { api, node } = yield* clients
      const form = new FormData()
      form.append("file", new Blob([text]), "contract.txt")
      const entry = yield* node.uploadNode.add({ headers: bearer, query: { "cid-version": "1" }, payload: form })
      assert.strictEqual((entry as { Name: string }).Name, "contract.txt")
      const cid = String((entry as { Hash: unknown }).Hash)

      const message = yield* api.auth.getAuthMessage({ query: { publicKey: bob.address } })
      const signedMessage = yield* Effect.promise(() => bob.signMessage({ message }))
      assert.isString(yield* api.auth.createApiKey({ payload: { publicKey: bob.address, signedMessage } }))
      assert.deepStrictEqual(
        yield* declared(api.auth.createApiKey({ payload: { publicKey: bob.address, signedMessage } })),
        {
          error: "No auth message issued for this public key"
        }
      )
      assert.isString(yield* api.auth.getMessage({ query: { publicKey: bob.address } }))
      assert.deepStrictEqual(
        yield* declared(api.auth.getApiKey({ payload: { publicKey: bob.address, signedMessage } })),
        {
          error: "Invalid signature"
        }
      )
      assert.deepStrictEqual(yield* declared(api.auth.getAuthMessage({ query: { publicKey: "0x12" } })), {
        error: "Invalid public key"
      })

      const usage = yield* api.account.userDataUsage({ headers: bearer })
      assert.strictEqual(usage.dataUsed, text.byteLength)
      assert.deepStrictEqual(yield* declared(api.account.userDataUsage({ headers: { authorization: "Bearer no" } })), {
        error: "Authentication failed"
      })
      const page = yield* api.account.filesUploaded({ headers: bearer, query: { lastKey: "null" } })
      assert.strictEqual(page.fileList[0]!.cid, cid)
      assert.deepStrictEqual(
        yield* declared(api.account.filesUploaded({ headers: bearer, query: { lastKey: "nope" } })),
        {
          error: "Invalid lastKey"
        }
      )

      assert.strictEqual((yield* api.files.fileInfo({ query: { cid } })).fileName, "contract.txt")
      assert.deepStrictEqual(yield* api.files.dealStatus({ query: { cid } }), [])
      assert.deepStrictEqual(yield* declared(api.files.getProof({ query: { cid } })), {
        error: "Proof Doesn't exist yet"
      })
      yield* Effect.promise(() => served.network.simulateDeal(cid))
      assert.strictEqual((yield* api.files.dealStatus({ query: { cid } })).length, 1)
      assert.strictEqual((yield* api.files.getProof({ query: { cid } })).dealInfo.length, 1)
      assert.deepStrictEqual(yield* declared(api.files.walrusBlobs({ query: { cid } })), { error: "File not found" })
      const pinned = yield* api.files.pin({ headers: bearer, payload: { cid, fileName: "again.txt" } })
      assert.strictEqual(pinned.data.fileName, "again.txt")
      assert.strictEqual(yield* api.files.pdpDealRequest({ headers: bearer, query: { cid } }), "Success")
      assert.deepStrictEqual(yield* api.files.pdpDealStatus({ query: { cid } }), [])
      assert.strictEqual(yield* api.files.getTicker({ query: { symbol: "FIL" } }), 5)
      assert.deepStrictEqual(yield* declared(api.files.getTicker({ query: { symbol: "" } })), {
        error: "symbol is required"
      })

      const key = yield* api.ipns.generateKey({ headers: bearer })
      const published = yield* api.ipns.publishRecord({ headers: bearer, query: { cid, keyName: key.ipnsName } })
      assert.strictEqual(published.Value, `/ipfs/${cid}`)
      assert.strictEqual((yield* api.ipns.getIpnsRecords({ headers: bearer }))[0]!.cid, cid)
      assert.strictEqual(
        (yield* api.ipns.removeKey({ headers: bearer, query: { keyName: key.ipnsName } })).Keys.length,
        1
      )
      assert.property(
        yield* declared(api.ipns.removeKey({ headers: bearer, query: { keyName: key.ipnsName } })),
        "error"
      )

      const id = page.fileList[0]!.id
      assert.deepStrictEqual(yield* declared(api.account.deleteFileWalrus({ headers: bearer, query: { id } })), {
        error: "File not found"
      })
      assert.deepStrictEqual(yield* api.account.deleteFile({ headers: bearer, query: { id } }), {
        message: "File deleted successfully."
      })
      assert.deepStrictEqual(yield* declared(api.account.deleteFile({ headers: bearer, query: { id } })), {
        error: "File not found"
      })

      const unpaid = new FormData()
      unpaid.append("file", new Blob([text]), "paid.txt")
      const terms = (yield* declared(
        api.x402.upload({ headers: {}, payload: unpaid })
      )) as typeof Contract.X402PaymentRequiredV1.Type
      assert.strictEqual(terms.x402Version, 1)
      assert.strictEqual(terms.accepts[0]!.payTo, x402.payTo)
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it.effect("upload node and gateway: CAR import, cat, path and trustless answers, IPNS, routing", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const { api, node, gateway } = yield* clients
      const car = new FormData()
      const root = CID.parse(cid)
      const carBytes = Buffer.concat([
        yield* Effect.promise(() => carHeader([root])),
        carSection({ cid: root, bytes: text })
      ])
      car.append("file", new Blob([carBytes]), "contract.car")
      const imported = yield* node.uploadNode.dagImport({ headers: bearer, payload: car })
      assert.strictEqual(String((imported as { Root: { Cid: { "/": unknown } } }).Root.Cid["/"]), cid)

      assert.deepStrictEqual(yield* bytesOf(yield* gateway.gateway.cat({ params: { cid } })), Buffer.from(text))
      const raw = yield* gateway.gateway.ipfs({ params: { cid }, query: { format: "raw" }, headers: {} })
      assert.deepStrictEqual(yield* bytesOf(raw), Buffer.from(text))
      const asCar = yield* bytesOf(
        yield* gateway.gateway.ipfs({ params: { cid }, query: { format: "car" }, headers: {} })
      )
      assert.isAbove(asCar.byteLength, text.byteLength)
      assert.property(yield* declared(gateway.gateway.cat({ params: { cid: testCids.c } })), "error")

      const key = yield* api.ipns.generateKey({ headers: bearer })
      yield* api.ipns.publishRecord({ headers: bearer, query: { cid, keyName: key.ipnsName } })
      const named = yield* gateway.gateway.ipns({ params: { name: key.ipnsId }, query: {} })
      assert.deepStrictEqual(yield* bytesOf(named), Buffer.from(text))
      const record = yield* bytesOf(yield* gateway.gateway.ipnsRecord({ params: { name: key.ipnsId } }))
      assert.isAbove(record.byteLength, 0)
      const garbage = Stream.make(new Uint8Array([1, 2, 3]))
      assert.property(
        yield* declared(gateway.gateway.publishIpnsRecord({ params: { name: key.ipnsId }, payload: garbage })),
        "error"
      )

      const providers = yield* gateway.gateway.providers({ params: { cid }, query: {} })
      assert.strictEqual((providers as typeof Contract.Providers.Type).Providers[0]!.Schema, "peer")
      assert.property(yield* declared(gateway.gateway.providers({ params: { cid: "not-a-cid" }, query: {} })), "error")
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it.effect("key nodes: sign-in, shards on each node, sharing, conditions, delegation, transfer", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const { keys } = yield* clients
      const none = { authorization: "" }
      const [{ message }] = yield* keys.keyNodeAuth.authMessage({ params: { address: alice.address }, headers: none })
      const signature = yield* Effect.promise(() => alice.signMessage({ message }))
      const first = yield* keys.keyNodeAuth.getJwt({ headers: none, payload: { address: alice.address, signature } })
      const pair = yield* keys.keyNodeAuth.refreshJwt({
        headers: none,
        payload: { address: alice.address, refreshToken: first.refreshToken }
      })
      assert.deepStrictEqual(
        yield* declared(
          keys.keyNodeAuth.refreshJwt({
            headers: none,
            payload: { address: alice.address, refreshToken: first.refreshToken }
          })
        ),
        { message: "Invalid Refresh Token" }
      )
      const headers = { authorization: `Bearer ${pair.token}` }
      const address = alice.address
      for (const node of Contract.NodeId.literals) {
        const saved = yield* keys.keyNodes.saveShard({
          params: { node },
          headers,
          payload: { address, cid, payload: shard(Number(node)) }
        })
        assert.strictEqual(saved.message, "success")
      }
      const one = { params: { node: "1" as const }, headers }
      yield* keys.keyNodes.share({ ...one, payload: { address, cid, shareTo: [bob.address] } })
      yield* keys.keyNodes.revoke({ ...one, payload: { address, cid, revokeTo: [bob.address] } })
      const retrieved = yield* keys.keyNodes.retrieveShard({ ...one, payload: { address, cid, dynamicData: {} } })
      assert.deepStrictEqual(retrieved.payload, shard(1))
      assert.strictEqual(
        (yield* keys.keyNodes.getConditions({ params: { cid }, headers: none })).owner,
        address.toLowerCase()
      )
      assert.deepStrictEqual(
        yield* declared(keys.keyNodes.getConditions({ params: { cid: testCids.c }, headers: none })),
        {
          message: "cid not found",
          data: null
        }
      )

      const conditions = [
        {
          id: 1,
          chain: "Ethereum",
          method: "getBalance",
          standardContractType: "",
          returnValueTest: { comparator: ">=", value: "0" }
        }
      ]
      const guarded = testCids.b
      yield* keys.keyNodes.createConditions({
        ...one,
        payload: {
          address,
          cid: guarded,
          conditions,
          aggregator: "",
          chainType: "EVM",
          decryptionType: "ADDRESS",
          payload: shard(9)
        }
      })
      yield* keys.keyNodes.updateConditions({
        ...one,
        payload: { address, cid: guarded, conditions, chainType: "EVM" }
      })
      const delegated = yield* keys.keyNodes.delegateAllFiles({
        ...one,
        payload: { address, allFilesAccess: [bob.address] }
      })
      assert.strictEqual(delegated.message, "success")
      yield* keys.keyNodes.transferOwnership({ ...one, payload: { address, cid, newOwner: bob.address } })
      // Node 1's record is bob's now: alice is refused, nested as the provider nests it.
      assert.deepStrictEqual(yield* declared(keys.keyNodes.share({ ...one, payload: { address, cid, shareTo: [] } })), {
        message: { message: { message: "Access Denied" } }
      })
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
})
