/**
 * The contract's cases, shared by the Node test (core/test/contract/Network.test.ts, the served
 * network over real sockets) and the browser story (the network under msw, where the Promise
 * facade runs): a client generated from the contract (`HttpApiClient`, requests encoded by its
 * schemas) calls every endpoint of the API host, the upload node, the gateway, x402 and the key
 * nodes, and every answer is decoded by the contract's schemas: the successes, and the declared
 * error answers (status and body). Each case returns its rows (`ContractCheck`); the caller
 * asserts them. Cases run in this order on one network, which needs `x402` terms
 * (`x402FacilitatorNowhere`) and keeps its accounts between cases.
 *
 * @since 0.1.0
 */
import { Effect, Stream } from "effect"
import type { HttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import * as Contract from "lighthouse-effect/contract"
import { CID } from "multiformats/cid"
import type { MockNetwork } from "../MockNetwork.ts"
import { type ContractCheck, ContractChecks } from "./ContractChecks.ts"
import { carHeader, carSection } from "./Trustless.ts"
import { testCids, testWallets } from "./Wallets.ts"

/** Where the case runs: the network's state (to seed and advance it) and each host's base URL. */
export interface ContractCaseContext {
  readonly network: MockNetwork
  readonly urls: Readonly<Record<Contract.HostName, string>>
}

export interface ContractCase {
  readonly name: string
  readonly run: (
    context: ContractCaseContext
  ) => Effect.Effect<ReadonlyArray<ContractCheck>, never, HttpClient.HttpClient>
}

const { alice, bob, carol } = testWallets
const apiKey = "contract-key"
const bearer = { authorization: `Bearer ${apiKey}` }
const text = new TextEncoder().encode("the contract, declared once\n")
const shard = (n: number) => ({ key: n.toString(16).padStart(64, "0"), index: (n + 16).toString(16).padStart(64, "0") })

const concat = (chunks: Iterable<Uint8Array>): Uint8Array<ArrayBuffer> => {
  const all = [...chunks]
  const joined = new Uint8Array(all.reduce((total, chunk) => total + chunk.byteLength, 0))
  let at = 0
  for (const chunk of all) {
    joined.set(chunk, at)
    at += chunk.byteLength
  }
  return joined
}
const bytesOf = <E, R>(stream: Stream.Stream<Uint8Array, E, R>) => Stream.runCollect(stream).pipe(Effect.map(concat))

/** One client per host, generated from the contract. */
const clientsAt = Effect.fnUntraced(function* (urls: ContractCaseContext["urls"]) {
  const at = (host: Contract.HostName) => HttpApiClient.make(Contract.LighthouseApi, { baseUrl: urls[host] })
  return {
    api: yield* at("api"),
    node: yield* at("node"),
    gateway: yield* at("gateway"),
    keys: yield* at("encryption")
  }
})
type Clients = Effect.Success<ReturnType<typeof clientsAt>>

/** The declared error an effect failed with (a decoded body); an unexpected success fails the case. */
const declared = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flip(effect) as Effect.Effect<unknown, A, R>

const hasError = (body: unknown) => typeof body === "object" && body !== null && "error" in body

/** `text` uploaded by the account of `apiKey` (CID v1, one raw block) as `contract.txt`: its CID. */
const upload = Effect.fnUntraced(function* (clients: Clients, checks: ContractChecks, key = apiKey) {
  const form = new FormData()
  form.append("file", new Blob([text]), "contract.txt")
  const entry = yield* clients.node.uploadNode.add({
    headers: { authorization: `Bearer ${key}` },
    query: { "cid-version": "1" },
    payload: form
  })
  checks.equal("uploadNode.add", (entry as { Name: unknown }).Name, "contract.txt")
  return String((entry as { Hash: unknown }).Hash)
})

/** Runs a case body with fresh clients and checks; a failure (an undeclared answer) is a row that differs. */
const contractCase = (
  name: string,
  body: (
    context: ContractCaseContext,
    clients: Clients,
    checks: ContractChecks
  ) => Effect.Effect<void, unknown, HttpClient.HttpClient>
): ContractCase => ({
  name,
  run: (context) => {
    const checks = new ContractChecks()
    return clientsAt(context.urls).pipe(
      Effect.flatMap((clients) => body(context, clients, checks)),
      Effect.catchCause((cause) =>
        Effect.sync(() => checks.that(name, "every call answers as declared", String(cause), () => false))
      ),
      Effect.map(() => checks.rows)
    )
  }
})

const signIn = contractCase("auth: sign-in messages and API keys", (_context, { api }, checks) =>
  Effect.gen(function* () {
    const message = yield* api.auth.getAuthMessage({ query: { publicKey: bob.address } })
    const signedMessage = yield* Effect.promise(() => bob.signMessage({ message }))
    checks.that(
      "auth.createApiKey",
      "a string",
      yield* api.auth.createApiKey({ payload: { publicKey: bob.address, signedMessage } }),
      (key) => typeof key === "string"
    )
    checks.equal(
      "auth.createApiKey",
      yield* declared(api.auth.createApiKey({ payload: { publicKey: bob.address, signedMessage } })),
      { error: "No auth message issued for this public key" }
    )
    checks.that(
      "auth.getMessage",
      "a string",
      yield* api.auth.getMessage({ query: { publicKey: bob.address } }),
      (value) => typeof value === "string"
    )
    checks.equal(
      "auth.getApiKey",
      yield* declared(api.auth.getApiKey({ payload: { publicKey: bob.address, signedMessage } })),
      {
        error: "Invalid signature"
      }
    )
    checks.equal("auth.getAuthMessage", yield* declared(api.auth.getAuthMessage({ query: { publicKey: "0x12" } })), {
      error: "Invalid public key"
    })
  })
)

const account = contractCase("account: usage and the uploads page", ({ network }, clients, checks) =>
  Effect.gen(function* () {
    // An account of its own: its usage is this case's one upload.
    const own = "contract-account-key"
    network.seedAccount(carol.address, { apiKey: own })
    const headers = { authorization: `Bearer ${own}` }
    const cid = yield* upload(clients, checks, own)
    const { api } = clients
    checks.equal("account.userDataUsage", (yield* api.account.userDataUsage({ headers })).dataUsed, text.byteLength)
    checks.equal(
      "account.userDataUsage",
      yield* declared(api.account.userDataUsage({ headers: { authorization: "Bearer no" } })),
      {
        error: "Authentication failed"
      }
    )
    const page = yield* api.account.filesUploaded({ headers, query: { lastKey: "null" } })
    checks.equal("account.filesUploaded", page.fileList[0]?.cid, cid)
    checks.equal(
      "account.filesUploaded",
      yield* declared(api.account.filesUploaded({ headers, query: { lastKey: "nope" } })),
      {
        error: "Invalid lastKey"
      }
    )
  })
)

const files = contractCase("files: info, deals, proofs, Walrus, pins, PDP, prices", ({ network }, clients, checks) =>
  Effect.gen(function* () {
    network.seedAccount(alice.address, { apiKey })
    const cid = yield* upload(clients, checks)
    const { api } = clients
    checks.equal("files.fileInfo", (yield* api.files.fileInfo({ query: { cid } })).fileName, "contract.txt")
    checks.equal("files.dealStatus", yield* api.files.dealStatus({ query: { cid } }), [])
    checks.equal("files.getProof", yield* declared(api.files.getProof({ query: { cid } })), {
      error: "Proof Doesn't exist yet"
    })
    yield* Effect.promise(() => network.simulateDeal(cid))
    checks.equal("files.dealStatus", (yield* api.files.dealStatus({ query: { cid } })).length, 1)
    checks.equal("files.getProof", (yield* api.files.getProof({ query: { cid } })).dealInfo.length, 1)
    checks.equal("files.walrusBlobs", yield* declared(api.files.walrusBlobs({ query: { cid } })), {
      error: "File not found"
    })
    const pinned = yield* api.files.pin({ headers: bearer, payload: { cid, fileName: "again.txt" } })
    checks.equal("files.pin", pinned.data.fileName, "again.txt")
    checks.equal(
      "files.pdpDealRequest",
      yield* api.files.pdpDealRequest({ headers: bearer, query: { cid } }),
      "Success"
    )
    checks.equal("files.pdpDealStatus", yield* api.files.pdpDealStatus({ query: { cid } }), [])
    checks.equal("files.getTicker", yield* api.files.getTicker({ query: { symbol: "FIL" } }), 5)
    checks.equal("files.getTicker", yield* declared(api.files.getTicker({ query: { symbol: "" } })), {
      error: "symbol is required"
    })
  })
)

const ipns = contractCase("IPNS: keys and records", ({ network }, clients, checks) =>
  Effect.gen(function* () {
    network.seedAccount(alice.address, { apiKey })
    const cid = yield* upload(clients, checks)
    const { api } = clients
    const key = yield* api.ipns.generateKey({ headers: bearer })
    const published = yield* api.ipns.publishRecord({ headers: bearer, query: { cid, keyName: key.ipnsName } })
    checks.equal("ipns.publishRecord", published.Value, `/ipfs/${cid}`)
    checks.equal("ipns.getIpnsRecords", (yield* api.ipns.getIpnsRecords({ headers: bearer }))[0]?.cid, cid)
    const removed = yield* api.ipns.removeKey({ headers: bearer, query: { keyName: key.ipnsName } })
    checks.equal("ipns.removeKey", removed.Keys.length, 1)
    const again = yield* declared(api.ipns.removeKey({ headers: bearer, query: { keyName: key.ipnsName } }))
    checks.that("ipns.removeKey", "an error body", again, hasError)
  })
)

const deletes = contractCase("account: deletes; x402: the unpaid upload's terms", ({ network }, clients, checks) =>
  Effect.gen(function* () {
    network.seedAccount(alice.address, { apiKey })
    const cid = yield* upload(clients, checks)
    const { api } = clients
    const page = yield* api.account.filesUploaded({ headers: bearer, query: { lastKey: "null" } })
    const id = page.fileList.find((file) => file.cid === cid)?.id ?? ""
    checks.equal(
      "account.deleteFileWalrus",
      yield* declared(api.account.deleteFileWalrus({ headers: bearer, query: { id } })),
      {
        error: "File not found"
      }
    )
    checks.equal("account.deleteFile", yield* api.account.deleteFile({ headers: bearer, query: { id } }), {
      message: "File deleted successfully."
    })
    checks.equal("account.deleteFile", yield* declared(api.account.deleteFile({ headers: bearer, query: { id } })), {
      error: "File not found"
    })
    const unpaid = new FormData()
    unpaid.append("file", new Blob([text]), "paid.txt")
    const terms = (yield* declared(
      api.x402.upload({ headers: {}, payload: unpaid })
    )) as typeof Contract.X402PaymentRequiredV1.Type
    checks.equal(
      "x402.upload",
      { version: terms.x402Version, payTo: terms.accepts[0]?.payTo },
      {
        version: 1,
        payTo: "0x1111111111111111111111111111111111111111"
      }
    )
  })
)

const gateway = contractCase(
  "upload node and gateway: CAR import, cat, path and trustless answers, IPNS, routing",
  ({ network }, clients, checks) =>
    Effect.gen(function* () {
      network.seedAccount(alice.address, { apiKey })
      const cid = yield* upload(clients, checks)
      const { api, node } = clients
      const root = CID.parse(cid)
      const car = new FormData()
      car.append(
        "file",
        new Blob([concat([yield* Effect.promise(() => carHeader([root])), carSection({ cid: root, bytes: text })])]),
        "contract.car"
      )
      const imported = yield* node.uploadNode.dagImport({ headers: bearer, payload: car })
      checks.equal("uploadNode.dagImport", String((imported as { Root: { Cid: { "/": unknown } } }).Root.Cid["/"]), cid)
      yield* readBack(clients, checks, cid)
      const key = yield* api.ipns.generateKey({ headers: bearer })
      yield* api.ipns.publishRecord({ headers: bearer, query: { cid, keyName: key.ipnsName } })
      yield* namedAndRouted(clients, checks, cid, key.ipnsId)
    })
)

/** The gateway's path and trustless answers of `cid`, and a CID it does not hold. */
const readBack = Effect.fnUntraced(function* ({ gateway }: Clients, checks: ContractChecks, cid: string) {
  checks.equal("gateway.cat", yield* bytesOf(yield* gateway.gateway.cat({ params: { cid } })), text)
  const raw = yield* gateway.gateway.ipfs({ params: { cid }, query: { format: "raw" }, headers: {} })
  checks.equal("gateway.ipfs", yield* bytesOf(raw), text)
  const asCar = yield* bytesOf(yield* gateway.gateway.ipfs({ params: { cid }, query: { format: "car" }, headers: {} }))
  checks.that("gateway.ipfs", "a CAR longer than the file", asCar.byteLength, (length) => length > text.byteLength)
  checks.that(
    "gateway.cat",
    "an error body",
    yield* declared(gateway.gateway.cat({ params: { cid: testCids.c } })),
    hasError
  )
})

/** The gateway's IPNS answers for `name` (a record of `cid`) and its routing answers. */
const namedAndRouted = Effect.fnUntraced(function* (
  { gateway }: Clients,
  checks: ContractChecks,
  cid: string,
  name: string
) {
  checks.equal("gateway.ipns", yield* bytesOf(yield* gateway.gateway.ipns({ params: { name }, query: {} })), text)
  const record = yield* bytesOf(yield* gateway.gateway.ipnsRecord({ params: { name } }))
  checks.that("gateway.ipnsRecord", "a record", record.byteLength, (length) => length > 0)
  const garbage = Stream.make(new Uint8Array([1, 2, 3]))
  checks.that(
    "gateway.publishIpnsRecord",
    "an error body",
    yield* declared(gateway.gateway.publishIpnsRecord({ params: { name }, payload: garbage })),
    hasError
  )
  const providers = (yield* gateway.gateway.providers({ params: { cid }, query: {} })) as typeof Contract.Providers.Type
  checks.equal("gateway.providers", providers.Providers[0]?.Schema, "peer")
  checks.that(
    "gateway.providers",
    "an error body",
    yield* declared(gateway.gateway.providers({ params: { cid: "not-a-cid" }, query: {} })),
    hasError
  )
})

const keyNodeAuth = contractCase(
  "key nodes: sign-in, shards on each node, sharing, conditions",
  ({ network }, clients, checks) =>
    Effect.gen(function* () {
      network.seedAccount(alice.address, { apiKey })
      const cid = yield* upload(clients, checks)
      const { keys } = clients
      const none = { authorization: "" }
      const [{ message }] = yield* keys.keyNodeAuth.authMessage({ params: { address: alice.address }, headers: none })
      const signature = yield* Effect.promise(() => alice.signMessage({ message }))
      const first = yield* keys.keyNodeAuth.getJwt({ headers: none, payload: { address: alice.address, signature } })
      const refresh = { headers: none, payload: { address: alice.address, refreshToken: first.refreshToken } }
      const pair = yield* keys.keyNodeAuth.refreshJwt(refresh)
      checks.equal("keyNodeAuth.refreshJwt", yield* declared(keys.keyNodeAuth.refreshJwt(refresh)), {
        message: "Invalid Refresh Token"
      })
      const headers = { authorization: `Bearer ${pair.token}` }
      const address = alice.address
      for (const node of Contract.NodeId.literals) {
        const saved = yield* keys.keyNodes.saveShard({
          params: { node },
          headers,
          payload: { address, cid, payload: shard(Number(node)) }
        })
        checks.equal("keyNodes.saveShard", saved.message, "success")
      }
      const one = { params: { node: "1" as const }, headers }
      yield* keys.keyNodes.share({ ...one, payload: { address, cid, shareTo: [bob.address] } })
      yield* keys.keyNodes.revoke({ ...one, payload: { address, cid, revokeTo: [bob.address] } })
      const retrieved = yield* keys.keyNodes.retrieveShard({ ...one, payload: { address, cid, dynamicData: {} } })
      checks.equal("keyNodes.retrieveShard", retrieved.payload, shard(1))
      checks.equal(
        "keyNodes.getConditions",
        (yield* keys.keyNodes.getConditions({ params: { cid }, headers: none })).owner,
        address.toLowerCase()
      )
      checks.equal(
        "keyNodes.getConditions",
        yield* declared(keys.keyNodes.getConditions({ params: { cid: testCids.c }, headers: none })),
        {
          message: "cid not found",
          data: null
        }
      )
      yield* conditionsAndOwnership(clients, checks, cid, headers)
    })
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

/** Access conditions set and changed on node 1, all files delegated, then `cid` given to bob. */
const conditionsAndOwnership = Effect.fnUntraced(function* (
  { keys }: Clients,
  checks: ContractChecks,
  cid: string,
  headers: { readonly authorization: string }
) {
  const address = alice.address
  const one = { params: { node: "1" as const }, headers }
  const guarded = testCids.b
  const payload = {
    address,
    cid: guarded,
    conditions,
    aggregator: "",
    chainType: "EVM",
    decryptionType: "ADDRESS",
    payload: shard(9)
  }
  yield* keys.keyNodes.createConditions({ ...one, payload })
  yield* keys.keyNodes.updateConditions({ ...one, payload: { address, cid: guarded, conditions, chainType: "EVM" } })
  const delegated = yield* keys.keyNodes.delegateAllFiles({
    ...one,
    payload: { address, allFilesAccess: [bob.address] }
  })
  checks.equal("keyNodes.delegateAllFiles", delegated.message, "success")
  yield* keys.keyNodes.transferOwnership({ ...one, payload: { address, cid, newOwner: bob.address } })
  // Node 1's record is bob's now: alice is refused, nested as the provider nests it.
  checks.equal(
    "keyNodes.share",
    yield* declared(keys.keyNodes.share({ ...one, payload: { address, cid, shareTo: [] } })),
    {
      message: { message: { message: "Access Denied" } }
    }
  )
})

/** Every case, in the order they run. */
export const contractCases: ReadonlyArray<ContractCase> = [signIn, account, files, ipns, deletes, gateway, keyNodeAuth]
