/**
 * Regenerates `core/test/crypto/vectors/kavach-shards.json`: key shards made, and keys recovered,
 * by the provider's own `@lighthouse-web3/kavach` (a devDependency), which the Shamir tests check
 * this library against. Each run draws new random keys; the tests accept any set this writes.
 *
 *   npm run vectors
 */
import "../../tooling/requireNode.mjs"
import { writeFileSync } from "node:fs"
import { generate, recoverKey, shardKey } from "@lighthouse-web3/kavach"

/** The master key of kavach's README example for `shardKey`. */
const readmeKey = "554f886019b74852ab679258eb3cddf72f12f84dd6a946f8afc4283e48cc9467"

interface Shard {
  readonly key: string
  readonly index: string
}

interface Case {
  readonly source: string
  readonly make: () => Promise<{ masterKey: string; keyShards: Array<Shard> }>
  readonly threshold: number
  readonly keyCount: number
  readonly recoverFrom: ReadonlyArray<number>
  readonly note: string
}

const generated = (threshold: number, keyCount: number) => async () => {
  const { masterKey, keyShards } = await generate(threshold, keyCount)
  if (masterKey === null) throw new Error(`kavach's generate(${threshold}, ${keyCount}) returned no key`)
  return { masterKey, keyShards }
}

const cases: ReadonlyArray<Case> = [
  {
    source: "generate(3,5)",
    make: generated(3, 5),
    threshold: 3,
    keyCount: 5,
    recoverFrom: [0, 2, 4],
    note: "any 3 of 5 shards recover the master key"
  },
  {
    source: "generate(2,3)",
    make: generated(2, 3),
    threshold: 2,
    keyCount: 3,
    recoverFrom: [2, 0],
    note: "order of shards does not matter"
  },
  {
    source: "generate(5,5)",
    make: generated(5, 5),
    threshold: 5,
    keyCount: 5,
    recoverFrom: [0, 1, 2, 3, 4],
    note: "all shards required"
  },
  {
    source: "shardKey(README key,3,5)",
    make: async () => {
      const { keyShards } = await shardKey(readmeKey, 3, 5)
      return { masterKey: readmeKey, keyShards }
    },
    threshold: 3,
    keyCount: 5,
    recoverFrom: [0, 1, 3, 4],
    note: "shardKey builds a degree-threshold polynomial (master + threshold random coefficients), so threshold 3 needs 4 shards; 3 shards give a wrong key"
  },
  {
    source: "generate(3,5)",
    make: generated(3, 5),
    threshold: 3,
    keyCount: 5,
    recoverFrom: [1, 3],
    note: "NEGATIVE vector: fewer than threshold shards -> recoverKey returns a different, valid-looking key with error null (no exception)"
  }
]

const vectors = []
for (const { make, recoverFrom, ...rest } of cases) {
  const { masterKey, keyShards } = await make()
  const { masterKey: recovered } = await recoverKey(recoverFrom.map((i) => keyShards[i]!))
  if (recovered === null) throw new Error(`kavach's recoverKey failed for ${rest.source}`)
  vectors.push({
    masterKey,
    threshold: rest.threshold,
    keyCount: rest.keyCount,
    shards: keyShards.map(({ key, index }) => ({ key, index })),
    recoverFrom,
    recovered,
    recoveredEqualsMaster: recovered === masterKey,
    source: rest.source,
    note: rest.note
  })
}

const target = new URL("../../core/test/crypto/vectors/kavach-shards.json", import.meta.url)
writeFileSync(target, `${JSON.stringify(vectors, null, 2)}\n`)
console.log(`wrote ${vectors.length} vectors to ${target.pathname}`)
