/**
 * `conditions apply|update|show` in process against the in-process mock network: the conditions
 * from a file or stdin reach all 5 key nodes, `show` prints what they hold, a file that is not a
 * conditions array is bad usage (exit 2) and a condition the library rejects fails with exit 1.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

let mock: RunningMockNetwork
beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error" })
})
afterAll(() => mock.close())

const base = { LIGHTHOUSE_NODE_POLICY: "concurrent" }
const password = "correct horse battery staple"

const balanceAtLeast = (id: number, wei: string) => ({
  id,
  chain: "Hardhat",
  method: "getBalance",
  standardContractType: "",
  parameters: [":userAddress"],
  returnValueTest: { comparator: ">=", value: wei }
})

/** A wallet, an API key and an encrypted upload (its key shards on the nodes). */
const encryptedFile = async () => {
  const home = await freshConfigHome()
  const env = { ...base, XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: password }
  const created = await run(["wallet", "create", "--json"], env)
  expect(created.code, created.stderr).toBe(0)
  expect((await run(["api-key"], env)).code).toBe(0)
  const uploaded = await run(["upload", "-", "--encrypted", "--json"], env, "guarded\n")
  expect(uploaded.code, uploaded.stderr).toBe(0)
  const { address } = json(created) as { address: string }
  return { env, home, address, cid: (json(uploaded) as { cid: string }).cid }
}

describe("conditions", () => {
  it("applies conditions from a file, updates them from stdin, shows what the 5 nodes hold", async () => {
    const { env, home, address, cid } = await encryptedFile()
    const before = await run(["conditions", "show", cid, "--json"], env)
    expect(before.code, before.stderr).toBe(0)
    expect(json(before)).toMatchObject({ cid, owner: address, sharedTo: [], conditions: [] })

    const rules = join(home, "rules.json")
    const two = [balanceAtLeast(1, "1"), balanceAtLeast(2, "2")]
    await writeFile(rules, JSON.stringify(two))
    const applied = await run(
      ["conditions", "apply", cid, "-c", rules, "--aggregator", "([1] or [2])", "--chain-type", "evm", "--json"],
      env
    )
    expect(applied.code, applied.stderr).toBe(0)
    expect(json(applied)).toMatchObject({ cid, conditions: 2 })
    expect((json(applied) as { nodes: { answers: ReadonlyArray<unknown> } }).nodes.answers).toHaveLength(5)
    for (const node of mock.network.state.keyNodes.nodes) expect(node.files.get(cid)?.conditions).toEqual(two)
    const shown = await run(["conditions", "show", cid, "--json"], env)
    expect(json(shown)).toMatchObject({ cid, owner: address, conditions: two, aggregator: "([1] or [2])" })

    const one = [balanceAtLeast(1, "5")]
    const updated = await run(["conditions", "update", cid, "--conditions", "-"], env, JSON.stringify(one))
    expect(updated).toMatchObject({ code: 0, stdout: `1 condition on ${cid}, held by all 5 key nodes\n`, stderr: "" })
    const text = await run(["conditions", "show", cid], env)
    expect(text).toMatchObject({ code: 0, stderr: "" })
    expect(text.stdout).toBe(
      [
        `owner       ${address}`,
        "shared to   -",
        "aggregator  -",
        "chain type  -",
        `conditions  ${JSON.stringify(one)}`,
        ""
      ].join("\n")
    )
  })

  it("a file that is not an array of conditions exits 2; a condition the library rejects exits 1", async () => {
    const { env, cid } = await encryptedFile()
    const notArray = await run(["conditions", "apply", cid, "-c", "-", "--json"], env, '{"id":1}')
    expect(notArray.code).toBe(2)
    expect(json(notArray)).toMatchObject({ error: { _tag: "UsageError" } })
    expect(notArray.stderr).toMatch(/^stdin: not a JSON array of conditions \(/)
    const missing = await run(["conditions", "apply", cid], env)
    expect(missing).toMatchObject({ code: 2, stdout: "" })
    expect(missing.stderr).toContain("conditions")

    const two = JSON.stringify([balanceAtLeast(1, "1"), balanceAtLeast(2, "2")])
    const noAggregator = await run(["conditions", "apply", cid, "-c", "-", "--json"], env, two)
    expect(noAggregator.code).toBe(1)
    expect(json(noAggregator)).toMatchObject({ error: { _tag: "ConditionValidationError" } })
    expect(noAggregator.stderr).toBe(`${(json(noAggregator) as { error: { message: string } }).error.message}\n`)
    const unknown = await run(["conditions", "show", "not-a-cid", "--json"], env)
    expect(unknown).toMatchObject({ code: 1, stderr: "Invalid CID\n" })
  })
})
