/**
 * Radix conditions on the key nodes: validation on the wire, evaluation against the in-memory Radix
 * ledger (fungible balances as exact decimals, non-fungible counts, the caller as the account), and
 * the refusal of an empty condition list.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeRadixLedger, parseRadixDecimal } from "../../src/keyNodes/RadixLedger.ts"
import { call, cids, createAsAlice, jwtFor, serveKeyNodes, shard, wallets } from "../support/keyNodes.ts"

const { keyNodes } = serveKeyNodes()

const { alice, bob } = wallets
const accessDenied = { message: { message: { message: "Access Denied" } } }
const xrd = "resource_rdx1tknxxxxxxxxxradxrdxxxxxxxxx009923554798xxxxxxxxxradxrd"
const badge = "resource_rdx1nfxxxxxxxxxxbadgexxxxxxxxx000000000000xxxxxxxxxbadge"

const radix = (
  id: number,
  method: string,
  resourceAddress: string,
  returnValueTest: { readonly comparator: string; readonly value: unknown }
) => ({ id, chain: "Radix_Mainnet", method, standardContractType: "", resourceAddress, returnValueTest })

/** Alice creates `cid` on all 5 nodes with these Radix conditions; returns her token. */
const create = (cid: string, fields: Record<string, unknown>) => createAsAlice(cid, { chainType: "RADIX", ...fields })

const retrieve = async (cid: string, dynamicData: unknown = {}) => {
  const { token } = await jwtFor(bob)
  return call("POST", "/api/retrieveSharedKey/2", { address: bob.address, cid, dynamicData }, token)
}

describe("Radix conditions on the wire", () => {
  it.each([
    [
      "another Radix network",
      { ...radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: 1 }), chain: "Radix_Stokenet" },
      'Condition validation error: "conditions[0].chain" must be [Radix_Mainnet]'
    ],
    [
      "a contract address",
      { ...radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: 1 }), contractAddress: xrd },
      'Condition validation error: "conditions[0].contractAddress" is not allowed'
    ],
    [
      "parameters",
      { ...radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: 1 }), parameters: [":userAddress"] },
      'Condition validation error: "conditions[0].parameters" is not allowed'
    ],
    [
      "no resource address",
      { id: 1, chain: "Radix_Mainnet", method: "getFtsByAddress", returnValueTest: { comparator: ">=", value: 1 } },
      'Condition validation error: "conditions[0].resourceAddress" is required'
    ]
  ])("refuses %s with 400 and stores nothing", async (_, condition, message) => {
    const { token } = await jwtFor(alice)
    const answer = await call(
      "POST",
      "/api/fileAccessConditions/1",
      { address: alice.address, cid: cids.a, payload: shard(1), chainType: "RADIX", conditions: [condition] },
      token
    )
    expect(answer).toEqual({ status: 400, body: { message } })
    expect(keyNodes.nodes[0].files.size).toBe(0)
  })

  it("stores Radix conditions in `conditions`, with chain type RADIX, as sent", async () => {
    const conditions = [radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: "1.5" })]
    await create(cids.a, { chainType: "radix", conditions })
    for (const node of keyNodes.nodes) expect(node.files.get(cids.a)?.chainType).toBe("RADIX")
    const { body } = await call("GET", `/api/fileAccessConditions/get/${cids.a}`)
    expect(body).toEqual({
      aggregator: "",
      conditions,
      conditionsSolana: [],
      sharedTo: [],
      owner: alice.address.toLowerCase(),
      cid: cids.a
    })
  })

  it("getFtsByAddress: the caller's balance of the resource, compared exactly as a decimal", async () => {
    await create(cids.a, { conditions: [radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: "1.5" })] })
    expect(await retrieve(cids.a)).toEqual({ status: 403, body: accessDenied })
    keyNodes.ledger.radix.setFungibleBalance(bob.address, xrd, "1.499999999999999999")
    expect((await retrieve(cids.a)).status).toBe(403)
    // Another resource, or another account's balance, does not count.
    keyNodes.ledger.radix.setFungibleBalance(bob.address, badge, "100")
    keyNodes.ledger.radix.setFungibleBalance(alice.address, xrd, "100")
    expect((await retrieve(cids.a)).status).toBe(403)
    keyNodes.ledger.radix.setFungibleBalance(bob.address.toUpperCase().replace("0X", "0x"), xrd, "1.5")
    expect(await retrieve(cids.a)).toEqual({ status: 200, body: { message: "success", payload: shard(2) } })
    expect(keyNodes.nodes[1].released.map((r) => [r.to, r.right])).toEqual([[bob.address.toLowerCase(), "conditions"]])
  })

  it("getNftsByAddress: how many units of a non-fungible resource; combined by the aggregator", async () => {
    const conditions = [
      radix(1, "getNftsByAddress", badge, { comparator: ">=", value: 2 }),
      radix(2, "getFtsByAddress", xrd, { comparator: ">", value: 0 }),
      radix(3, "getNFTByAddress", badge, { comparator: "==", value: "1" })
    ]
    await create(cids.b, { conditions, aggregator: "([1] and [2]) or [3]" })
    const ledger = keyNodes.ledger.radix
    ledger.setNftCount(bob.address, badge, 2)
    expect((await retrieve(cids.b)).status).toBe(403)
    ledger.setFungibleBalance(bob.address, xrd, "0.000000000000000001")
    expect((await retrieve(cids.b)).status).toBe(200)
    ledger.setFungibleBalance(bob.address, xrd, 0)
    ledger.setNftCount(bob.address, badge, 1)
    expect((await retrieve(cids.b)).status).toBe(200)
  })

  it("an unknown method, an expected value that is no decimal or has 19 places never grant", async () => {
    keyNodes.ledger.radix.setFungibleBalance(bob.address, xrd, "1000")
    await create(cids.c, { conditions: [radix(1, "getStake", xrd, { comparator: ">=", value: 0 })] })
    await create(cids.d, { conditions: [radix(1, "getFtsByAddress", xrd, { comparator: "!=", value: "lots" })] })
    await create(cids.e, {
      conditions: [radix(1, "getFtsByAddress", xrd, { comparator: ">", value: "0.0000000000000000001" })]
    })
    for (const cid of [cids.c, cids.d, cids.e]) expect((await retrieve(cid)).status).toBe(403)
  })

  it("`dynamicData` fills a placeholder in the expected value", async () => {
    await create(cids.a, { conditions: [radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: ":minimum" })] })
    keyNodes.ledger.radix.setFungibleBalance(bob.address, xrd, "10")
    expect((await retrieve(cids.a)).status).toBe(403)
    expect((await retrieve(cids.a, { minimum: "10.5" })).status).toBe(403)
    expect((await retrieve(cids.a, { "1.minimum": "9.75" })).status).toBe(200)
  })
})

describe("clearing conditions with an empty list", () => {
  it("is refused like any invalid list: 400, the conditions stay", async () => {
    const conditions = [radix(1, "getFtsByAddress", xrd, { comparator: ">=", value: 1 })]
    const token = await create(cids.a, { conditions })
    for (const chainType of ["RADIX", "EVM"]) {
      const answer = await call(
        "PUT",
        "/api/fileAccessConditions/1",
        { address: alice.address, cid: cids.a, conditions: [], chainType },
        token
      )
      expect(answer).toEqual({
        status: 400,
        body: { message: 'Condition validation error: "conditions" must contain at least 1 items' }
      })
    }
    expect(keyNodes.nodes[0].files.get(cids.a)?.conditions).toEqual(conditions)
    expect(keyNodes.nodes[0].files.get(cids.a)?.chainType).toBe("RADIX")
  })
})

describe("the Radix ledger", () => {
  /** A decimal with up to 18 places and its value in units of 10⁻¹⁸. */
  const decimal = fc
    .record({ whole: fc.bigInt({ min: 0n, max: 10n ** 30n }), fraction: fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }) })
    .chain(({ whole, fraction }) =>
      fc.integer({ min: 0, max: 18 }).map((places) => {
        const digits = fraction.toString().padStart(18, "0").slice(0, places)
        const text = places === 0 ? whole.toString() : `${whole}.${digits}`
        const units = whole * 10n ** 18n + BigInt(digits.padEnd(18, "0") || "0")
        return { text, units }
      })
    )

  it("reads any decimal with up to 18 places exactly, and its negation", () => {
    fc.assert(
      fc.property(decimal, ({ text, units }) => {
        expect(parseRadixDecimal(text)).toBe(units)
        expect(parseRadixDecimal(`-${text}`)).toBe(-units)
        expect(parseRadixDecimal(`${text}${text.includes(".") ? "" : "."}0000000000000000001`)).toBeUndefined()
      }),
      { numRuns: 500 }
    )
  })

  it.each([["1e3"], ["0x10"], [""], ["1.2.3"], [" "], [Number.NaN], [true], [null]])("%j is no decimal", (value) => {
    expect(parseRadixDecimal(value)).toBeUndefined()
  })

  it("keeps balances per account and resource; refuses negative and fractional counts", () => {
    const ledger = makeRadixLedger()
    ledger.setFungibleBalance("account_rdx1abc", xrd, 2n)
    ledger.setNftCount("account_rdx1abc", badge, 3)
    expect(ledger.fungibleBalanceOf("account_rdx1abc", xrd)).toBe(2n * 10n ** 18n)
    expect(ledger.fungibleBalanceOf("account_rdx1ABC", xrd)).toBe(0n)
    expect(ledger.nftCountOf("account_rdx1abc", badge)).toBe(3n)
    expect(() => ledger.setFungibleBalance("a", xrd, "-1")).toThrow("amount must be a non-negative decimal, got -1")
    expect(() => ledger.setNftCount("a", badge, 1.5)).toThrow("count must be a non-negative integer, got 1.5")
    ledger.reset()
    expect(ledger.nftCountOf("account_rdx1abc", badge)).toBe(0n)
  })
})
