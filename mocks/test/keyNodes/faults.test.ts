/**
 * Fault injection on the key nodes, through the mock network's fault registry: every fault
 * (down, slow, 500, 404, inconsistent) on every node, on the wire; then what the provider's
 * kavach makes of them (partial writes, retried 404s, disagreeing answers).
 */
import kavach from "@lighthouse-web3/kavach"
import { beforeEach, describe, expect, it, vi } from "vitest"
import { makeFaults } from "../../src/faults/index.ts"
import { type NodeId, nodeIds } from "../../src/keyNodes/index.ts"
import { call, cids, jwtFor, serveKeyNodes, settle, shard, wallets } from "../support/keyNodes.ts"

const faults = makeFaults()
const { keyNodes } = serveKeyNodes({ faults })

const { alice, bob } = wallets

type Outcome =
  | { readonly kind: "answer"; readonly status: number; readonly body: unknown; readonly ms: number }
  | { readonly kind: "network error" }

/** Saves a shard on each node in turn, recording each node's outcome. */
const saveEverywhere = async (token: string): Promise<Array<Outcome>> => {
  const outcomes: Array<Outcome> = []
  for (const n of nodeIds) {
    const started = performance.now()
    try {
      const answer = await call(
        "POST",
        `/api/setSharedKey/${n}`,
        { address: alice.address, cid: cids.a, payload: shard(n) },
        token
      )
      outcomes.push({ kind: "answer", ...answer, ms: performance.now() - started })
    } catch {
      outcomes.push({ kind: "network error" })
    }
  }
  return outcomes
}

const healthy = {
  kind: "answer",
  status: 200,
  body: { message: "success", data: { cid: cids.a, owner: alice.address.toLowerCase(), sharedTo: [] } }
}

const faultCases = nodeIds.flatMap((node) =>
  (["down", "slow", "500", "404", "inconsistent"] as const).map((fault) => ({ node, fault }))
)

describe("each fault on each node, on the wire", () => {
  it.each(faultCases)("$fault on node $node", async ({ node, fault }: { node: NodeId; fault: string }) => {
    const { token } = await jwtFor(alice)
    const scope = { host: "encryption" as const, node }
    if (fault === "down") faults.down(scope)
    if (fault === "slow") faults.slow(scope, 60)
    if (fault === "500") faults.status(scope, 500)
    if (fault === "404") faults.notFound(scope)
    if (fault === "inconsistent") faults.inconsistent(scope)

    const outcomes = await saveEverywhere(token)
    for (const [i, outcome] of outcomes.entries()) {
      const id = (i + 1) as NodeId
      const stored = keyNodes.nodes[i]?.files.get(cids.a)
      if (id !== node) {
        expect(outcome).toMatchObject(healthy)
        expect(stored?.shard).toEqual(shard(id))
        continue
      }
      switch (fault) {
        case "down":
          expect(outcome).toEqual({ kind: "network error" })
          expect(stored).toBeUndefined()
          break
        case "slow":
          expect(outcome).toMatchObject(healthy)
          if (outcome.kind === "answer") expect(outcome.ms).toBeGreaterThanOrEqual(55)
          expect(stored?.shard).toEqual(shard(id))
          break
        case "500":
          expect(outcome).toMatchObject({ kind: "answer", status: 500, body: { error: "Internal Server Error" } })
          expect(stored).toBeUndefined()
          break
        case "404":
          expect(outcome).toMatchObject({ kind: "answer", status: 404 })
          expect(stored).toBeUndefined()
          break
        case "inconsistent":
          // The node did the work but its answer differs from the other four.
          expect(outcome).toMatchObject({ kind: "answer", status: 200 })
          if (outcome.kind === "answer") expect(outcome.body).not.toEqual(healthy.body)
          expect(stored?.shard).toEqual(shard(id))
          break
      }
    }
    // Once the fault is cleared the node serves again.
    faults.clear()
    const retry = await call(
      "POST",
      `/api/setSharedKey/${node}`,
      { address: alice.address, cid: cids.a, payload: shard(node) },
      token
    )
    expect(retry.status).toBe(200)
  })

  it("faults at host level reach the auth routes; node 1's faults reach getAccessCondition", async () => {
    faults.status({ host: "encryption", path: /^\/api\/message\// }, 503, { times: 1 })
    expect((await call("GET", `/api/message/${alice.address}`)).status).toBe(503)
    expect((await call("GET", `/api/message/${alice.address}`)).status).toBe(200)

    const { token } = await jwtFor(alice)
    await saveEverywhere(token)
    faults.down({ host: "encryption", node: 1 })
    await expect(call("GET", `/api/fileAccessConditions/get/${cids.a}`)).rejects.toThrow()
    faults.clear({ node: 1 })
    faults.down({ host: "encryption", node: 2 })
    expect((await call("GET", `/api/fileAccessConditions/get/${cids.a}`)).status).toBe(200)
  })
})

describe("what kavach makes of node faults", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout"] })
  })

  const signed = async (account: typeof alice) => {
    const { message } = await kavach.getAuthMessage(account.address)
    return account.signMessage({ message: message as string })
  }

  it("saveShards stops at a down node 3: nodes 1–2 hold their shard, 3–5 nothing", async () => {
    faults.down({ host: "encryption", node: 3 })
    const { keyShards } = await kavach.generate()
    const result = await settle(kavach.saveShards(alice.address, cids.a, await signed(alice), keyShards))
    expect(result.isSuccess).toBe(false)
    expect(keyNodes.nodes.map((n) => n.files.has(cids.a))).toEqual([true, true, false, false, false])
  })

  it("a 404 once on node 4 is retried by kavach and recovery succeeds", async () => {
    const { masterKey, keyShards } = await kavach.generate()
    await settle(kavach.saveShards(alice.address, cids.b, await signed(alice), keyShards))
    faults.notFound({ host: "encryption", node: 4 }, { times: 1 })
    const { shards, error } = await settle(kavach.recoverShards(alice.address, cids.b, await signed(alice), 5))
    expect(error).toBe(null)
    expect((await kavach.recoverKey(shards)).masterKey).toBe(masterKey)
    expect(faults.active()).toEqual([])
  })

  it("a 500 on node 2 fails recovery with the node's body and status; a slow node only delays", async () => {
    const { keyShards } = await kavach.generate()
    await settle(kavach.saveShards(alice.address, cids.c, await signed(alice), keyShards))
    faults.slow({ host: "encryption", node: 5 }, 3000)
    faults.status({ host: "encryption", node: 2 }, 500)
    const failed = await settle(kavach.recoverShards(alice.address, cids.c, await signed(alice), 5))
    expect(failed).toEqual({ shards: [], error: { error: "Internal Server Error", statusCode: 500 } })
    faults.clear({ node: 2 })
    // Time creeps forward during requests so the slow node's 3 s pass (in 30 steps of 100 ms).
    const slow = await settle(kavach.recoverShards(alice.address, cids.c, await signed(alice), 5), {
      inflightStepMs: 100
    })
    expect(slow.error).toBe(null)
    expect(slow.shards).toEqual(keyShards)
  })

  it("an inconsistent node 5 makes shareToAddress report failure although every node applied it", async () => {
    const { keyShards } = await kavach.generate()
    await settle(kavach.saveShards(alice.address, cids.d, await signed(alice), keyShards))
    faults.inconsistent({ host: "encryption", node: 5 })
    const shared = await settle(kavach.shareToAddress(alice.address, cids.d, await signed(alice), [bob.address]))
    expect(shared).toEqual({ isSuccess: false, error: null })
    expect(keyNodes.nodes.every((n) => n.files.get(cids.d)?.sharedTo.includes(bob.address.toLowerCase()))).toBe(true)
  })
})
