import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as kavach from "@lighthouse-web3/kavach"
import { bls12_381 } from "@noble/curves/bls12-381.js"
import { Arbitrary, Effect, Redacted, Schema } from "effect"
import { FIELD_ORDER, generate, recoverKey, shardKey } from "../../src/crypto/Shamir.ts"
import { Hex64, KeyShard } from "../../src/schema/KeyShard.ts"

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

/** Shards made by the provider's own package (`npm run vectors` writes them from `@lighthouse-web3/kavach`). */
const Vectors = Schema.Array(
  Schema.Struct({
    masterKey: Hex64,
    threshold: Schema.Int,
    keyCount: Schema.Int,
    shards: Schema.Array(KeyShard),
    recoverFrom: Schema.Array(Schema.Int),
    recovered: Hex64,
    recoveredEqualsMaster: Schema.Boolean,
    source: Schema.String,
    note: Schema.String
  })
)
const vectors = Schema.decodeUnknownSync(Vectors)(
  JSON.parse(readFileSync(new URL("./vectors/kavach-shards.json", import.meta.url), "utf8"))
)
const vector = (i: number) => vectors[i]!

const hex = (n: bigint) => n.toString(16).padStart(64, "0")
const pick = <A>(items: ReadonlyArray<A>, positions: ReadonlyArray<number>) => positions.map((i) => items[i]!)
/** A shard's key moved by one in the field: still well-formed, no longer on the polynomial. */
const tamper = (shard: KeyShard): KeyShard => ({ ...shard, key: hex((BigInt(`0x${shard.key}`) + 1n) % FIELD_ORDER) })

const int = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
/** Positions 0..n-1 in the order given by random sort keys: a random permutation. */
const permutation = (n: number, keys: ReadonlyArray<number>) =>
  Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b)
/** threshold, keyCount, and a random order of the shards. */
const splitCase = int(2, 7).pipe(
  Arbitrary.flatMap((threshold) =>
    Arbitrary.all({
      threshold: Arbitrary.Constant(threshold),
      keyCount: int(threshold, 9),
      keys: Arbitrary.array(int(0, 1_000_000), { minLength: 9, maxLength: 9 })
    })
  )
)

// ---------------------------------------------------------------------------

describe("Shamir", () => {
  it("uses the BLS12-381 scalar field order", () => {
    assert.strictEqual(FIELD_ORDER, bls12_381.fields.Fr.ORDER)
  })

  describe("the provider's vectors", () => {
    it.effect.each(vectors.map((v, i) => [i + 1, v] as const))(
      "vector %s recovers what the provider recovered",
      ([, v]) =>
        Effect.gen(function* () {
          const shards = pick(v.shards, v.recoverFrom)
          // Fewer than the provider's 3 need the threshold said out loud (the refusal is tested below).
          const key = yield* recoverKey(shards, shards.length < 3 ? { threshold: shards.length } : undefined)
          // Byte for byte what kavach returned, including the negative vector's wrong key.
          assert.strictEqual(Redacted.value(key), v.recovered)
        })
    )

    it.effect("all shards of a generate() split recover the master key, verified against the threshold", () =>
      Effect.gen(function* () {
        for (const v of vectors.filter((v) => v.source.startsWith("generate"))) {
          const key = yield* recoverKey(v.shards, { threshold: v.threshold })
          assert.strictEqual(Redacted.value(key), v.masterKey)
        }
      })
    )

    it.effect("the negative vector: too few shards are refused once the threshold is known", () =>
      Effect.gen(function* () {
        const v = vector(4)
        assert.isFalse(v.recoveredEqualsMaster)
        const error = yield* Effect.flip(recoverKey(pick(v.shards, v.recoverFrom), { threshold: v.threshold }))
        assert.strictEqual(error._tag, "KeyVectorLengthMismatch")
        assert.strictEqual(error.message, "key vector Length don't match")
        // Given one more shard, the same two give the real key.
        const key = yield* recoverKey(pick(v.shards, [...v.recoverFrom, 0]), { threshold: v.threshold })
        assert.strictEqual(Redacted.value(key), v.masterKey)
      })
    )

    it.effect("the negative vector: 2 shards without a threshold are refused, not a wrong key", () =>
      Effect.gen(function* () {
        const v = vector(4)
        assert.strictEqual(v.recoverFrom.length, 2)
        const error = yield* Effect.flip(recoverKey(pick(v.shards, v.recoverFrom)))
        assert.strictEqual(error._tag, "CannotRecoverKey")
        assert.strictEqual(error.message, "can't recover Key")
        assert.strictEqual(
          error._tag === "CannotRecoverKey" && error.reason,
          "2 shards, and the provider's splits need 3: pass { threshold } to recover a split with a lower one"
        )
      })
    )

    it.effect("the negative vector: its wrong key is caught when more shards than the threshold are given", () =>
      Effect.gen(function* () {
        const v = vector(4)
        // A caller who believes threshold 2 would get kavach's wrong key from shards 1 and 3;
        // with a third shard the disagreement shows.
        const error = yield* Effect.flip(recoverKey(pick(v.shards, [1, 3, 0]), { threshold: 2 }))
        assert.strictEqual(error._tag, "KeyShardsDisagree")
        assert.strictEqual(error.message, "can't recover Key")
      })
    )

    it.effect("the provider's shardKey shards (degree = threshold) need threshold + 1 and are not mistaken", () =>
      Effect.gen(function* () {
        const v = vector(3)
        assert.strictEqual(Redacted.value(yield* recoverKey(v.shards, { threshold: v.threshold + 1 })), v.masterKey)
        const error = yield* Effect.flip(recoverKey(v.shards, { threshold: v.threshold }))
        assert.strictEqual(error._tag, "KeyShardsDisagree")
      })
    )
  })

  describe("interoperability with @lighthouse-web3/kavach", () => {
    it.effect("shards made here recover with kavach from any threshold subset", () =>
      Effect.gen(function* () {
        for (const [threshold, keyCount, positions] of [
          [3, 5, [4, 0, 2]],
          [2, 3, [1, 2]],
          [5, 5, [0, 1, 2, 3, 4]]
        ] as const) {
          const { keyShards, masterKey } = yield* generate(threshold, keyCount)
          const theirs = yield* Effect.promise(() => kavach.recoverKey(pick(keyShards, positions)))
          assert.deepStrictEqual(theirs, { masterKey: Redacted.value(masterKey), error: null })
        }
        const key = vector(0).masterKey
        const shards = yield* shardKey(key, 3, 5)
        const theirs = yield* Effect.promise(() => kavach.recoverKey(pick(shards, [1, 3, 4])))
        assert.strictEqual(theirs.masterKey, key)
      })
    )

    it.effect("kavach's shards recover here", () =>
      Effect.gen(function* () {
        const made = yield* Effect.promise(() => kavach.generate(3, 5))
        const master = made.masterKey
        assert.isString(master)
        if (master === null) return
        assert.strictEqual(Redacted.value(yield* recoverKey(pick(made.keyShards, [3, 1, 4]))), made.masterKey)
        assert.strictEqual(Redacted.value(yield* recoverKey(made.keyShards, { threshold: 3 })), made.masterKey)
        // Its shardKey needs threshold + 1 shards; without a threshold all of them are used.
        const legacy = yield* Effect.promise(() => kavach.shardKey(master, 3, 5))
        assert.isTrue(legacy.isShardable)
        assert.strictEqual(Redacted.value(yield* recoverKey(legacy.keyShards)), made.masterKey)
      })
    )
  })

  describe("generate and shardKey", () => {
    it.effect("make the provider's shapes: 64 lower-case hex, distinct non-zero indices", () =>
      Effect.gen(function* () {
        const { keyShards, masterKey } = yield* generate()
        assert.match(Redacted.value(masterKey), /^[0-9a-f]{64}$/)
        assert.strictEqual(keyShards.length, 5)
        for (const shard of keyShards) {
          assert.deepStrictEqual(Schema.decodeUnknownSync(KeyShard)(shard), shard)
          assert.notStrictEqual(BigInt(`0x${shard.index}`), 0n)
        }
        assert.strictEqual(new Set(keyShards.map((s) => s.index)).size, 5)
        // The key stays out of logs.
        assert.notInclude(String(masterKey), Redacted.value(masterKey))
      })
    )

    it.effect("draw master keys uniformly: no excess in the range the provider's sampler doubles", () =>
      Effect.gen(function* () {
        // kavach folds values ≥ r back by clearing bit 254, so [r - 2^254, 2^254) comes up twice as
        // often: ~18.9 % of keys instead of ~10.4 %. Out of 2000 uniform keys ~208 land there
        // (sd ≈ 14); 290 is six deviations above that and six below the biased mean.
        const low = FIELD_ORDER - 2n ** 254n
        let inRange = 0
        for (let i = 0; i < 2000; i++) {
          const n = BigInt(`0x${Redacted.value((yield* generate(2, 2)).masterKey)}`)
          assert.isTrue(n > 0n && n < FIELD_ORDER)
          if (n >= low && n < 2n ** 254n) inRange++
        }
        assert.isBelow(inRange, 290)
        assert.isAbove(inRange, 130)
      })
    )

    it.effect("refuse a threshold above the key count with the catalogue's message", () =>
      Effect.gen(function* () {
        for (const [t, n] of [
          [6, 5],
          [2, 1],
          [3, 0]
        ] as const) {
          const error = yield* Effect.flip(generate(t, n))
          assert.strictEqual(error._tag, "ThresholdExceedsKeyCount")
          assert.strictEqual(error.message, "keyCount must be greater then threshold")
          assert.strictEqual((yield* Effect.flip(shardKey(vector(0).masterKey, t, n)))._tag, "ThresholdExceedsKeyCount")
        }
      })
    )

    it.effect("refuse degenerate parameters", () =>
      Effect.gen(function* () {
        for (const [t, n] of [
          [1, 5],
          [0, 5],
          [-1, 5],
          [Number.NaN, 5],
          [2.5, 5],
          [3, 5.5],
          [3, 256]
        ] as const) {
          const error = yield* Effect.flip(generate(t, n))
          assert.strictEqual(error._tag, "InvalidKeySplit", `generate(${t}, ${n})`)
        }
      })
    )

    it.effect("shardKey refuses keys the provider would corrupt or could not split, without echoing them", () =>
      Effect.gen(function* () {
        const good = vector(3).masterKey
        for (const key of [
          `${good.slice(0, 62)}zz`,
          `0g${good.slice(2)}`,
          good.toUpperCase(),
          `0x${good}`,
          good.slice(0, 62),
          "",
          "f".repeat(64),
          hex(FIELD_ORDER),
          hex(0n)
        ]) {
          const error = yield* Effect.flip(shardKey(key))
          assert.strictEqual(error._tag, "InvalidMasterKey", key)
          if (key.length > 0) assert.notInclude(error.message, key)
        }
        // r - 1 is the largest key there is.
        const top = hex(FIELD_ORDER - 1n)
        assert.strictEqual(Redacted.value(yield* recoverKey(yield* shardKey(Redacted.make(top)))), top)
      })
    )

    it.effect.prop("any threshold shards of a generate() split recover its key", [splitCase], ([c]) =>
      Effect.gen(function* () {
        const { keyShards, masterKey } = yield* generate(c.threshold, c.keyCount)
        const order = permutation(c.keyCount, c.keys)
        const exact = pick(keyShards, order.slice(0, c.threshold))
        const stated = c.threshold < 3 ? { threshold: c.threshold } : undefined
        assert.strictEqual(Redacted.value(yield* recoverKey(exact, stated)), Redacted.value(masterKey))
        // And any larger subset, verified.
        const more = pick(keyShards, order)
        assert.strictEqual(
          Redacted.value(yield* recoverKey(more, { threshold: c.threshold })),
          Redacted.value(masterKey)
        )
      })
    )

    it.effect.prop(
      "shardKey: any threshold shards recover the key it was given",
      [
        splitCase,
        Arbitrary.schema(Schema.BigInt.check(Schema.isBetweenBigInt({ minimum: 1n, maximum: FIELD_ORDER - 1n })))
      ],
      ([c, secret]) =>
        Effect.gen(function* () {
          const key = hex(secret)
          const shards = yield* shardKey(key, c.threshold, c.keyCount)
          const subset = pick(shards, permutation(c.keyCount, c.keys).slice(0, c.threshold))
          assert.strictEqual(Redacted.value(yield* recoverKey(subset, { threshold: c.threshold })), key)
        })
    )
  })

  describe("recoverKey", () => {
    it.effect.prop("fewer shards than the threshold are refused", [splitCase], ([c]) =>
      Effect.gen(function* () {
        const { keyShards } = yield* generate(c.threshold, c.keyCount)
        const fewer = pick(keyShards, permutation(c.keyCount, c.keys).slice(0, c.threshold - 1))
        const error = yield* Effect.flip(recoverKey(fewer, { threshold: c.threshold }))
        assert.strictEqual(error._tag, "KeyVectorLengthMismatch")
      })
    )

    it.effect.prop(
      "an understated threshold does not succeed silently when there are shards to check with",
      [splitCase],
      ([c]) =>
        Effect.gen(function* () {
          const { keyShards } = yield* generate(c.threshold, c.keyCount)
          if (c.threshold < 3) return
          const error = yield* Effect.flip(recoverKey(keyShards, { threshold: c.threshold - 1 }))
          assert.strictEqual(error._tag, "KeyShardsDisagree")
        })
    )

    it.effect.prop("a tampered shard is detected, and named when enough others agree", [splitCase], ([c]) =>
      Effect.gen(function* () {
        const { keyShards } = yield* generate(c.threshold, c.keyCount)
        if (c.keyCount === c.threshold) return
        const bad = permutation(c.keyCount, c.keys)[0]!
        const shards = keyShards.map((s, i) => (i === bad ? tamper(s) : s))
        const error = yield* Effect.flip(recoverKey(shards, { threshold: c.threshold }))
        assert.strictEqual(error._tag, "KeyShardsDisagree")
        if (error._tag !== "KeyShardsDisagree") return
        // With only threshold + 1 shards, every threshold of them fits: nobody can tell which is off.
        assert.deepStrictEqual(error.badShards, c.keyCount >= c.threshold + 2 ? [bad] : [])
      })
    )

    it.effect("two tampered shards among five (threshold 2) are both named", () =>
      Effect.gen(function* () {
        const { keyShards } = yield* generate(2, 5)
        const shards = keyShards.map((s, i) => (i === 1 || i === 3 ? tamper(s) : s))
        const error = yield* Effect.flip(recoverKey(shards, { threshold: 2 }))
        assert.deepStrictEqual(error._tag === "KeyShardsDisagree" && error.badShards, [1, 3])
      })
    )

    it.effect("malformed shards are errors that name the shard, not zeros or wrong keys", () =>
      Effect.gen(function* () {
        const { keyShards } = yield* generate(3, 5)
        const [a, b, c] = keyShards as [KeyShard, KeyShard, KeyShard]
        const cases: ReadonlyArray<readonly [string, ReadonlyArray<KeyShard>, string]> = [
          ["duplicate index", [a, b, { ...c, index: a.index }], "shards 0 and 2 have the same index"],
          ["same shard twice", [a, a, b], "shards 0 and 1 have the same index"],
          ["zero index", [a, { ...b, index: hex(0n) }, c], "shard 1: index is zero"],
          [
            "non-hex key",
            [a, b, { ...c, key: `${c.key.slice(0, 62)}zz` }],
            "shard 2: key is not 64 lower-case hex characters"
          ],
          [
            "upper-case index",
            [{ ...a, index: a.index.toUpperCase() }, b, c],
            "shard 0: index is not 64 lower-case hex characters"
          ],
          [
            "0x prefix",
            [a, { ...b, key: `0x${b.key.slice(2)}` }, c],
            "shard 1: key is not 64 lower-case hex characters"
          ],
          ["short", [a, b, { key: "1", index: "1" }], "shard 2: index is not 64 lower-case hex characters"],
          ["key ≥ r", [a, { ...b, key: hex(FIELD_ORDER) }, c], "shard 1: key is not below the field order"],
          ["index ≥ r", [a, b, { ...c, index: "f".repeat(64) }], "shard 2: index is not below the field order"]
        ]
        for (const [name, shards, reason] of cases) {
          const error = yield* Effect.flip(recoverKey(shards, { threshold: 3 }))
          assert.strictEqual(error._tag, "CannotRecoverKey", name)
          assert.strictEqual(error.message, "can't recover Key")
          if (error._tag === "CannotRecoverKey") assert.strictEqual(error.reason, reason, name)
        }
      })
    )

    it.effect("needs the provider's 3 shards without a threshold, and refuses a nonsensical threshold", () =>
      Effect.gen(function* () {
        const { keyShards, masterKey } = yield* generate(3, 5)
        for (const fewer of [[], keyShards.slice(0, 1), keyShards.slice(0, 2)]) {
          const error = yield* Effect.flip(recoverKey(fewer))
          assert.strictEqual(error._tag, "CannotRecoverKey")
          assert.strictEqual(error.message, "can't recover Key")
        }
        assert.strictEqual(Redacted.value(yield* recoverKey(keyShards.slice(2))), Redacted.value(masterKey))
        const one = yield* Effect.flip(recoverKey(keyShards.slice(0, 1), { threshold: 2 }))
        assert.deepStrictEqual(one._tag === "KeyVectorLengthMismatch" && [one.expected, one.received], [2, 1])
        for (const threshold of [0, 1, 2.5, 256]) {
          assert.strictEqual((yield* Effect.flip(recoverKey(keyShards, { threshold })))._tag, "InvalidKeySplit")
        }
      })
    )

    it.effect("a JavaScript caller's wrong types are typed errors, not defects", () =>
      Effect.gen(function* () {
        const { keyShards } = yield* generate(3, 5)
        const loose = recoverKey as (shards: unknown, options?: unknown) => ReturnType<typeof recoverKey>
        for (const threshold of ["3", null, {}, [3], true]) {
          const error = yield* Effect.flip(loose(keyShards, { threshold }))
          assert.strictEqual(error._tag, "InvalidKeySplit")
          assert.isTrue(error._tag === "InvalidKeySplit" && Number.isNaN(error.threshold))
        }
        for (const shards of ["abc", 5, null, { length: 3 }, [null, 1, "x"]]) {
          assert.strictEqual((yield* Effect.flip(loose(shards)))._tag, "CannotRecoverKey")
        }
        const looseGenerate = generate as (threshold?: unknown, keyCount?: unknown) => ReturnType<typeof generate>
        assert.strictEqual((yield* Effect.flip(looseGenerate("3", 5)))._tag, "InvalidKeySplit")
        assert.strictEqual((yield* Effect.flip(looseGenerate(3, null)))._tag, "InvalidKeySplit")
      })
    )
  })
})
