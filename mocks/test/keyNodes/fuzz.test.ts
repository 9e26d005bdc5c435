/**
 * Arbitrary request bodies from an authenticated caller who owns nothing: every route answers a
 * JSON status the reference records (never a 500, never a crash), and the owner's records and the
 * nodes' release logs stay exactly as they were.
 */
import fc from "fast-check"
import { setupServer } from "msw/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeKeyNodes } from "../../src/keyNodes/index.ts"
import { call, cids, jwtFor, shard, wallets } from "../support/keyNodes.ts"

const keyNodes = makeKeyNodes()
const server = setupServer(...keyNodes.handlers)
let bobToken = ""

/** Alice's record on each node, as text. */
const aliceRecords = () => keyNodes.nodes.map((node) => JSON.stringify(node.files.get(cids.a)))

beforeAll(async () => {
  server.listen({ onUnhandledFrame: "error" })
  const { token } = await jwtFor(wallets.alice)
  for (let n = 1; n <= 5; n++) {
    const body = { address: wallets.alice.address, cid: cids.a, payload: shard(n), sharedTo: [wallets.carol.address] }
    expect((await call("POST", `/api/setSharedKey/${n}`, body, token)).status).toBe(200)
    const conditions = [
      { id: 1, chain: "Coreum_Devnet", method: "getBlockHeight", returnValueTest: { comparator: ">", value: 10 } }
    ]
    const update = { address: wallets.alice.address, cid: cids.a, conditions, chainType: "COREUM" }
    expect((await call("PUT", `/api/fileAccessConditions/${n}`, update, token)).status).toBe(200)
  }
  bobToken = (await jwtFor(wallets.bob)).token
})
afterAll(() => server.close())

const routes = [
  ["POST", "/api/setSharedKey/"],
  ["PUT", "/api/setSharedKey/"],
  ["DELETE", "/api/setSharedKey/"],
  ["POST", "/api/transferOwnership/"],
  ["POST", "/api/retrieveSharedKey/"],
  ["POST", "/api/fileAccessConditions/"],
  ["PUT", "/api/fileAccessConditions/"]
] as const

describe("arbitrary bodies", () => {
  it("are refused cleanly and change nothing of alice's", async () => {
    const before = aliceRecords()
    expect(before.every((record) => record !== undefined)).toBe(true)
    const field = fc.oneof(fc.jsonValue(), fc.constantFrom(cids.a, wallets.bob.address, wallets.alice.address, "ALL"))
    const body = fc.record(
      {
        address: fc.constant(wallets.bob.address),
        cid: fc.oneof(fc.constant(cids.a), fc.constant(cids.b), fc.string()),
        payload: fc.oneof(field, fc.constant(shard(7))),
        conditions: fc.oneof(field, fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 3 })),
        aggregator: field,
        chainType: fc.oneof(field, fc.constantFrom("EVM", "solana", "COREUM")),
        decryptionType: fc.oneof(field, fc.constantFrom("ADDRESS", "ACCESS_CONDITIONS")),
        shareTo: field,
        revokeTo: field,
        newOwner: field,
        resetSharedTo: field,
        dynamicData: field
      },
      { requiredKeys: ["address"] }
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.integer({ min: 0, max: 6 }),
        body,
        async ([method, path], n, b) => {
          const answer = await call(method, `${path}${n}`, b, bobToken)
          expect([200, 400, 403, 404]).toContain(answer.status)
          expect(typeof answer.body).toBe("object")
          // Bob may create records under fresh CIDs, but never touches alice's or gets a shard of hers.
          expect(aliceRecords()).toEqual(before)
          expect(keyNodes.nodes.flatMap((node) => node.released).filter((r) => r.cid === cids.a)).toEqual([])
        }
      ),
      { numRuns: 300 }
    )
  })
})
