// The committed ABI modules match the build, and the ABI is compatible with the provider's contract.
import assert from "node:assert/strict"
import { readFileSync } from "node:fs"
import { describe, it } from "node:test"
import hre from "hardhat"
import { constantPrefix, exportedContracts, readArtifact } from "../../scripts/export-abi.ts"
import { lighthousePaymentAbi } from "../abi/index.ts"

interface AbiParam {
  readonly name: string
  readonly type: string
  readonly internalType?: string
  readonly indexed?: boolean
  readonly components?: ReadonlyArray<AbiParam>
}
interface AbiEntry {
  readonly type: string
  readonly name?: string
  readonly inputs?: ReadonlyArray<AbiParam>
  readonly outputs?: ReadonlyArray<AbiParam>
  readonly stateMutability?: string
  readonly anonymous?: boolean
}

// The provider SDK's ABI of its payment contract, as published on npm in @lighthouse-web3/sdk@0.4.3
// (dist/Lighthouse/payPerDeal/fund/abi/lighthouseContract.js, the last release with `fund`).
const sdkAbi = JSON.parse(
  readFileSync(new URL("./fixtures/sdk-abi.json", import.meta.url), "utf8")
) as ReadonlyArray<AbiEntry>

/** Everything that defines an entry's encoding and decoding, in a comparable form. */
const signature = (e: AbiEntry): string =>
  JSON.stringify({
    type: e.type,
    name: e.name ?? null,
    inputs: (e.inputs ?? []).map((p) => [p.name, p.type, p.internalType ?? null, p.indexed ?? null]),
    outputs: (e.outputs ?? []).map((p) => [p.name, p.type, p.internalType ?? null]),
    stateMutability: e.stateMutability ?? null,
    anonymous: e.anonymous ?? null
  })

const key = (e: AbiEntry) => `${e.type} ${e.name ?? ""}`

// `hardhat test --coverage` builds instrumented bytecode: only the ABIs are comparable then.
const coverage = hre.globalOptions.coverage === true

describe("contracts/abi modules", () => {
  for (const { name, source, dir } of exportedContracts) {
    const load = async () => ({
      artifact: readArtifact(source, name),
      module: (await import(`../abi/${dir}/${name}.ts`)) as Record<string, unknown>
    })
    it(`${name}'s ABI matches the Hardhat build (run \`npm run compile\` if not)`, async () => {
      const { artifact, module } = await load()
      assert.deepEqual(module[`${constantPrefix(name)}Abi`], artifact.abi)
    })
    it(`${name}'s bytecode matches the Hardhat build`, {
      skip: coverage && "instrumented coverage build"
    }, async () => {
      const { artifact, module } = await load()
      assert.equal(module[`${constantPrefix(name)}Bytecode`], artifact.bytecode)
    })
  }
})

describe("LighthousePayment ABI compatibility with the provider's contract", () => {
  const ours = new Map((lighthousePaymentAbi as ReadonlyArray<AbiEntry>).map((e) => [key(e), e]))

  it("has every entry of the provider's ABI, identical (names, types, order, mutability, indexed flags)", () => {
    // constructor, 15 functions, receive, fallback, 3 events, 9 errors
    assert.equal(sdkAbi.length, 30)
    for (const entry of sdkAbi) {
      const mine = ours.get(key(entry))
      assert.ok(mine, `missing ${key(entry)}`)
      assert.equal(signature(mine), signature(entry), key(entry))
    }
  })

  it("adds only the documented entries", () => {
    const theirs = new Set(sdkAbi.map(key))
    const added = [...ours.keys()].filter((k) => !theirs.has(k)).sort()
    assert.deepEqual(added, [
      "error FUNCTION_NOT_FOUND",
      "error INVALID_AMOUNT",
      "error RENOUNCE_DISABLED",
      "error ReentrancyGuardReentrantCall",
      "event EndowmentUpdated",
      "event FilForwarded",
      "event FilForwarderUpdated",
      "event TokenStatusUpdated",
      "function paymentCount"
    ])
  })
})
