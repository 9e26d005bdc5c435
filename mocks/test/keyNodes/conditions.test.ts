/**
 * Access conditions on the wire: server-side validation, Solana and Coreum conditions against the
 * in-memory ledgers (including a Solana caller signing in with ed25519), `dynamicData`
 * placeholders, aggregators, `ACCESS_CONDITIONS` files, chain-type changes, and unknown routes.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { base58btc } from "multiformats/bases/base58"
import { describe, expect, it } from "vitest"
import { zeroAddress } from "../../src/keyNodes/index.ts"
import {
  blockNumberAtLeast,
  call,
  cids,
  createAsAlice as create,
  jwtFor,
  serveKeyNodes,
  shard,
  wallets
} from "../support/keyNodes.ts"

const { keyNodes } = serveKeyNodes()

const { alice, bob } = wallets
const accessDenied = { message: { message: { message: "Access Denied" } } }

/** A Solana keypair whose base58 public key has the 44 characters the nodes accept. */
const solanaKeypair = (() => {
  for (let seed = 1; ; seed++) {
    const secretKey = new Uint8Array(32).fill(seed)
    const address = base58btc.baseEncode(ed25519.getPublicKey(secretKey))
    if (address.length === 44) return { secretKey, address }
  }
})()

/** A JWT for the Solana key: its ed25519 signature of the node's message, base58-encoded. */
const solanaJwt = async (): Promise<string> => {
  const { body } = await call("GET", `/api/message/${solanaKeypair.address}`)
  const signature = base58btc.baseEncode(
    ed25519.sign(new TextEncoder().encode(body[0].message), solanaKeypair.secretKey)
  )
  const answer = await call("POST", "/api/message/get-jwt", { address: solanaKeypair.address, signature })
  expect(answer.status).toBe(200)
  return answer.body.token
}

const retrieve = (address: string, cid: string, token: string, dynamicData: unknown = {}, node = 3) =>
  call("POST", `/api/retrieveSharedKey/${node}`, { address, cid, dynamicData }, token)

const solanaBalance = (parameters: ReadonlyArray<string>, value: string) => ({
  id: 1,
  chain: "MAINNET",
  method: "getBalance",
  standardContractType: "",
  parameters,
  pdaInterface: { offset: 0 },
  returnValueTest: { comparator: ">=", value }
})

describe("condition validation on the nodes", () => {
  const valid = [
    {
      id: 1,
      chain: "Polygon",
      method: "getBlockNumber",
      standardContractType: "",
      returnValueTest: { comparator: ">", value: 0 }
    },
    {
      id: 2,
      chain: "Polygon",
      method: "getBalance",
      standardContractType: "",
      returnValueTest: { comparator: ">", value: 0 }
    }
  ]

  it.each([
    ["no aggregator for two conditions", { conditions: valid }, 'Condition validation error: "aggregator" is required'],
    [
      "an aggregator without and/or",
      { conditions: valid, aggregator: "[1]&&[2]" },
      'Condition validation error: "aggregator" with value "[1]&&[2]" fails to match the required pattern: /( and | or )/i'
    ],
    [
      "an unknown chain type",
      { conditions: valid, aggregator: "[1] or [2]", chainType: "TRON" },
      /"chainType" must be one of/
    ],
    [
      "an unknown decryption type",
      { conditions: valid, aggregator: "[1] or [2]", decryptionType: "SOCIAL" },
      /"decryptionType"/
    ],
    [
      "a bad comparator",
      { conditions: [{ ...valid[0], returnValueTest: { comparator: "=~", value: 1 } }] },
      /^Condition validation error: "conditions\[0\]\.returnValueTest\.comparator"/
    ],
    [
      "duplicate ids",
      { conditions: [valid[0], valid[0]], aggregator: "[1] and [1]" },
      /^Condition validation error: "conditions\[1\]" contains a duplicate value/
    ],
    [
      "a Solana method of the wrong kind",
      { conditions: [{ ...solanaBalance([], "1"), method: "getSlot" }], chainType: "SOLANA" },
      /^Condition validation error: "conditions\[0\]\.method"/
    ]
  ])("refuses %s with 400 and stores nothing", async (_, fields, message) => {
    const { token } = await jwtFor(alice)
    const answer = await call(
      "POST",
      "/api/fileAccessConditions/1",
      { address: alice.address, cid: cids.a, payload: shard(1), ...fields },
      token
    )
    expect(answer.status).toBe(400)
    if (typeof message === "string") expect(answer.body).toEqual({ message })
    else expect(answer.body.message).toMatch(message)
    expect(keyNodes.nodes[0].files.size).toBe(0)
  })

  it("refuses an invalid CID and a missing shard", async () => {
    const { token } = await jwtFor(alice)
    const base = { address: alice.address, conditions: [valid[0]] }
    expect(
      await call("POST", "/api/fileAccessConditions/1", { ...base, cid: "cid", payload: shard(1) }, token)
    ).toEqual({
      status: 400,
      body: { message: "Invalid CID" }
    })
    const noShard = await call("POST", "/api/fileAccessConditions/1", { ...base, cid: cids.a }, token)
    expect(noShard.status).toBe(400)
    expect(keyNodes.nodes[0].files.size).toBe(0)
  })
})

describe("Solana and Coreum conditions", () => {
  it("a Solana caller signs in with ed25519; `:userAddress` is its key; lamports decide", async () => {
    const token = await create(cids.a, {
      chainType: "SOLANA",
      conditions: [solanaBalance([":userAddress"], "1000000000")]
    })
    const record = keyNodes.nodes[2].files.get(cids.a)
    expect(record?.conditions).toEqual([])
    expect(record?.conditionsSolana).toHaveLength(1)
    expect(token).toMatch(/^jwt:/)

    const solana = await solanaJwt()
    keyNodes.ledger.solana.setBalance(solanaKeypair.address, 999_999_999n)
    expect(await retrieve(solanaKeypair.address, cids.a, solana)).toEqual({ status: 403, body: accessDenied })
    keyNodes.ledger.solana.setBalance(solanaKeypair.address, 1_000_000_000n)
    expect((await retrieve(solanaKeypair.address, cids.a, solana)).body).toEqual({
      message: "success",
      payload: shard(3)
    })
  })

  it("`dynamicData` fills placeholders by `<id>.<name>` or `<name>`; a missing one denies", async () => {
    const wallet = solanaKeypair.address
    await create(cids.b, { chainType: "solana", conditions: [solanaBalance([":wallet"], "5")] })
    keyNodes.ledger.solana.setBalance(wallet, 5n)
    const { token } = await jwtFor(bob)
    expect((await retrieve(bob.address, cids.b, token, {})).status).toBe(403)
    expect((await retrieve(bob.address, cids.b, token, { "2.wallet": wallet })).status).toBe(403)
    expect((await retrieve(bob.address, cids.b, token, { "1.wallet": wallet })).status).toBe(200)
    expect((await retrieve(bob.address, cids.b, token, { wallet })).status).toBe(200)
    expect((await retrieve(bob.address, cids.b, token, { wallet: "8".repeat(44) })).status).toBe(403)
  })

  it("Solana block height and time, combined by the aggregator", async () => {
    const conditions = [
      { ...solanaBalance([], "100"), id: 1, method: "getBlockHeight" },
      { ...solanaBalance([], "1700000000"), id: 2, method: "getLastBlockTime" }
    ]
    await create(cids.c, { chainType: "SOLANA", conditions, aggregator: "[1] and [2]" })
    const { token } = await jwtFor(bob)
    keyNodes.ledger.solana.setBlockHeight(100)
    expect((await retrieve(bob.address, cids.c, token)).status).toBe(403)
    keyNodes.ledger.solana.setBlockTime(1_700_000_000)
    expect((await retrieve(bob.address, cids.c, token)).status).toBe(200)
  })

  it("Coreum balances, NFT classes and block height under `([1] and [2]) or [3]`", async () => {
    const test = (value: string) => ({ comparator: ">=", value })
    const conditions = [
      {
        id: 1,
        chain: "Coreum_Testnet",
        method: "getBalance",
        denom: "ucore",
        parameters: [":userAddress"],
        returnValueTest: test("1000")
      },
      { id: 2, chain: "Coreum_Testnet", method: "getNftBalance", classid: "badges-core1", returnValueTest: test("1") },
      {
        id: 3,
        chain: "coreum_testnet",
        method: "getBlockHeight",
        standardContractType: "",
        returnValueTest: test("5000")
      }
    ]
    await create(cids.d, { chainType: "COREUM", conditions, aggregator: "([1] and [2]) or [3]" })
    expect((await call("GET", `/api/fileAccessConditions/get/${cids.d}`)).body.conditions).toEqual(conditions)
    const { token } = await jwtFor(bob)
    const coreum = keyNodes.ledger.coreum

    coreum.setBalance(bob.address, "ucore", 1000)
    expect((await retrieve(bob.address, cids.d, token)).status).toBe(403)
    coreum.setNftCount(bob.address, "badges-core1", 1)
    expect((await retrieve(bob.address, cids.d, token)).status).toBe(200)

    coreum.setBalance(bob.address, "ucore", 0)
    expect((await retrieve(bob.address, cids.d, token)).status).toBe(403)
    coreum.setBlockHeight(5000)
    expect((await retrieve(bob.address, cids.d, token)).status).toBe(200)
    expect(keyNodes.nodes[2].released.map((r) => r.right)).toEqual(["conditions", "conditions"])
  })

  it("an unknown Coreum method never grants", async () => {
    const conditions = [
      {
        id: 1,
        chain: "Coreum_Mainnet",
        method: "getStake",
        denom: "ucore",
        returnValueTest: { comparator: ">=", value: 0 }
      }
    ]
    await create(cids.e, { chainType: "COREUM", conditions })
    const { token } = await jwtFor(bob)
    expect((await retrieve(bob.address, cids.e, token)).status).toBe(403)
  })

  it("EVM conditions with no chain configured never grant", async () => {
    const conditions = [blockNumberAtLeast("Polygon")]
    await create(cids.a, { conditions })
    const { token } = await jwtFor(bob)
    expect((await retrieve(bob.address, cids.a, token)).status).toBe(403)
  })
})

describe("records", () => {
  it("ACCESS_CONDITIONS gives the file to the zero address: only conditions open it, nobody can change them", async () => {
    const token = await create(cids.a, {
      decryptionType: "access_conditions",
      chainType: "COREUM",
      conditions: [
        { id: 1, chain: "Coreum_Devnet", method: "getBlockHeight", returnValueTest: { comparator: ">", value: 10 } }
      ]
    })
    const view = await call("GET", `/api/fileAccessConditions/get/${cids.a}`)
    expect(view.body).toMatchObject({ owner: zeroAddress, cid: cids.a, sharedTo: [], conditionsSolana: [] })
    expect(keyNodes.nodes.every((n) => n.files.get(cids.a)?.decryptionType === "ACCESS_CONDITIONS")).toBe(true)

    expect(await retrieve(alice.address, cids.a, token)).toEqual({ status: 403, body: accessDenied })
    const update = await call(
      "PUT",
      "/api/fileAccessConditions/1",
      { address: alice.address, cid: cids.a, conditions: [], chainType: "COREUM" },
      token
    )
    expect(update).toEqual({ status: 403, body: accessDenied })
    keyNodes.ledger.coreum.setBlockHeight(11)
    expect((await retrieve(alice.address, cids.a, token)).status).toBe(200)
  })

  it("an update with another chain type moves the conditions to the other list", async () => {
    const evm = [blockNumberAtLeast("Polygon")]
    const token = await create(cids.b, { conditions: evm })
    for (let n = 1; n <= 5; n++) {
      const answer = await call(
        "PUT",
        `/api/fileAccessConditions/${n}`,
        { address: alice.address, cid: cids.b, conditions: [solanaBalance([], "1")], chainType: "SOLANA" },
        token
      )
      expect(answer.status).toBe(200)
    }
    const { body } = await call("GET", `/api/fileAccessConditions/get/${cids.b}`)
    expect(body).toEqual({
      aggregator: "",
      conditions: [],
      conditionsSolana: [solanaBalance([], "1")],
      sharedTo: [],
      owner: alice.address.toLowerCase(),
      cid: cids.b
    })
    // Shards are untouched by an update.
    expect(keyNodes.nodes[4].files.get(cids.b)?.shard).toEqual(shard(5))
    expect(
      await call(
        "PUT",
        "/api/fileAccessConditions/1",
        { address: alice.address, cid: cids.unknown, conditions: evm },
        token
      )
    ).toEqual({ status: 400, body: { message: "cid not found", data: null } })
  })

  it("unknown node ids, paths and methods are 404s", async () => {
    const { token } = await jwtFor(alice)
    const body = { address: alice.address, cid: cids.a, payload: shard(1) }
    for (const node of ["0", "6", "x", "01"]) {
      expect((await call("POST", `/api/setSharedKey/${node}`, body, token)).status).toBe(404)
    }
    expect((await call("GET", "/api/setSharedKey/1")).status).toBe(404)
    expect((await call("PATCH", "/api/retrieveSharedKey/1", body, token)).status).toBe(404)
    expect((await call("GET", "/api/nothing/here")).status).toBe(404)
    expect((await call("GET", "/api/message/0x1234/extra")).status).toBe(404)
    expect(keyNodes.nodes.every((n) => n.files.size === 0)).toBe(true)
  })
})
