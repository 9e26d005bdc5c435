/**
 * Threshold (Shamir) sharing of a file's master key over the BLS12-381 scalar field, in the
 * provider's key-shard format (that of `@lighthouse-web3/kavach`): every scalar is 32 bytes
 * big-endian written as 64 lower-case hex characters, a shard is `{ key, index }` where `index`
 * is a random non-zero x-coordinate, and the master key is the polynomial's constant term.
 * Shards made here recover with the provider's `recoverKey` and the other way round.
 *
 * What differs from the provider, on purpose:
 * - `shardKey` builds a polynomial of degree `threshold - 1`, so `threshold` shards recover the
 *   key (the provider's needs `threshold + 1`; `recoverKey` without a threshold still reads those).
 * - Hex is parsed strictly. Upper case and `0x` are refused rather than normalised: the master
 *   key's hex *text* is the file cipher's password, so a different spelling is a different key.
 * - Zero keys, zero or duplicate indices, values ≥ the field order and degenerate parameters are
 *   typed errors, not wrong keys.
 * - Given a threshold and more shards than it, recovery checks that all shards lie on one
 *   polynomial and names the ones that do not, instead of returning a wrong key.
 * - Random scalars are uniform over [1, r) by rejection sampling (the provider's are biased).
 *
 * The master key is returned as `Redacted<string>`: `Redacted.value` gives the provider's 64-hex
 * form, and it stays out of logs, spans and error messages. Shards are plain: one shard alone
 * says nothing about the key, and they go to the nodes as JSON.
 *
 * @since 0.1.0
 */
import { Field } from "@noble/curves/abstract/modular.js"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import {
  CannotRecoverKey,
  InvalidKeySplit,
  InvalidMasterKey,
  KeyShardsDisagree,
  KeyVectorLengthMismatch,
  ThresholdExceedsKeyCount
} from "../Errors.ts"
import type { KeyShard } from "../schema/KeyShard.ts"

// =============================================================================
// Field
// =============================================================================

/** r, the order of the BLS12-381 scalar field (about 2^254.86). */
export const FIELD_ORDER = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n

/** The provider's scheme is 3 of 5: `recoverKey` without a threshold needs at least this many shards. */
export const DEFAULT_THRESHOLD = 3

/** The most shards one split may produce; also bounds the work a recovery may be asked to do. */
export const MAX_KEY_COUNT = 255

const Fr = Field(FIELD_ORDER)

const HEX64 = /^[0-9a-f]{64}$/

const toHex = (n: bigint): string => n.toString(16).padStart(64, "0")

/** A scalar from the provider's encoding, or why it is not one. Never echoes the value. */
const decodeScalar = (hex: unknown): Result.Result<bigint, string> => {
  if (typeof hex !== "string" || !HEX64.test(hex)) return Result.fail("is not 64 lower-case hex characters")
  const n = BigInt(`0x${hex}`)
  return n < FIELD_ORDER ? Result.succeed(n) : Result.fail("is not below the field order")
}

// 32 random bytes with the top bit cleared are below 2^255 < 2r, so about 90 % are accepted.
const randomScalars = (count: number): Array<bigint> => {
  const out: Array<bigint> = []
  const seen = new Set<bigint>()
  const bytes = new Uint8Array(32 * (count + 4))
  while (out.length < count) {
    crypto.getRandomValues(bytes)
    for (let offset = 0; offset < bytes.length && out.length < count; offset += 32) {
      let n = BigInt(bytes[offset]! & 0x7f)
      for (let i = offset + 1; i < offset + 32; i++) n = (n << 8n) | BigInt(bytes[i]!)
      // Distinct values matter for indices; for coefficients a repeat has probability ~2^-254 anyway.
      if (n !== 0n && n < FIELD_ORDER && !seen.has(n)) {
        seen.add(n)
        out.push(n)
      }
    }
  }
  bytes.fill(0)
  return out
}

/** Horner evaluation of the polynomial with coefficients `coeffs` (constant first) at `x`. */
const evaluatePolynomial = (coeffs: ReadonlyArray<bigint>, x: bigint): bigint => {
  let acc = Fr.ZERO
  for (let i = coeffs.length - 1; i >= 0; i--) acc = Fr.add(Fr.mul(acc, x), coeffs[i]!)
  return acc
}

/**
 * The interpolating polynomial through `(xs[i], ys[i])`, kept in Lagrange form: barycentric
 * weights are computed once (one batched inversion), then each evaluation costs O(k²) products.
 */
const interpolate = (xs: ReadonlyArray<bigint>, ys: ReadonlyArray<bigint>) => {
  const k = xs.length
  const denominators = xs.map((xi, i) => {
    let d = Fr.ONE
    for (let j = 0; j < k; j++) if (j !== i) d = Fr.mul(d, Fr.sub(xi, xs[j]!))
    return d
  })
  const weights = Fr.invertBatch(denominators).map((w, i) => Fr.mul(w, ys[i]!))
  return (at: bigint): bigint => {
    let sum = Fr.ZERO
    for (let i = 0; i < k; i++) {
      let term = weights[i]!
      for (let j = 0; j < k; j++) if (j !== i) term = Fr.mul(term, Fr.sub(at, xs[j]!))
      sum = Fr.add(sum, term)
    }
    return sum
  }
}

// =============================================================================
// Split
// =============================================================================

/** A fresh master key and its shards, as the provider's `generate` returns them. */
export interface GeneratedKey {
  /** The 64-hex master key, redacted. */
  readonly masterKey: Redacted.Redacted<string>
  readonly keyShards: ReadonlyArray<KeyShard>
}

// The error's fields are numbers: anything else a JavaScript caller passed shows as NaN.
const asNumber = (u: unknown): number => (typeof u === "number" ? u : Number.NaN)

const checkSplit = Effect.fnUntraced(function* (
  threshold: unknown,
  keyCount: unknown
): Effect.fn.Return<void, ThresholdExceedsKeyCount | InvalidKeySplit> {
  if (typeof threshold !== "number" || typeof keyCount !== "number") {
    return yield* new InvalidKeySplit({
      threshold: asNumber(threshold),
      keyCount: asNumber(keyCount),
      reason: "threshold and keyCount must be numbers"
    })
  }
  // Checked first and on any numbers, as the provider does: its message is the catalogue's.
  if (threshold > keyCount) return yield* new ThresholdExceedsKeyCount({ threshold, keyCount })
  const invalid = (reason: string) => new InvalidKeySplit({ threshold, keyCount, reason })
  if (!Number.isInteger(threshold) || !Number.isInteger(keyCount)) {
    return yield* invalid("threshold and keyCount must be integers")
  }
  if (threshold < 2) return yield* invalid("threshold must be at least 2, or every shard is the key")
  if (keyCount > MAX_KEY_COUNT) return yield* invalid(`keyCount must be at most ${MAX_KEY_COUNT}`)
})

const split = (coeffs: ReadonlyArray<bigint>, keyCount: number): Array<KeyShard> =>
  randomScalars(keyCount).map((x) => ({ key: toHex(evaluatePolynomial(coeffs, x)), index: toHex(x) }))

/**
 * Draws a uniform random master key and splits it into `keyCount` shards, any `threshold` of
 * which recover it.
 *
 * **Gotchas** `threshold` may equal `keyCount`; it must be an integer of at least 2.
 */
export const generate = Effect.fn("Shamir.generate")(function* (
  threshold: number = 3,
  keyCount: number = 5
): Effect.fn.Return<GeneratedKey, ThresholdExceedsKeyCount | InvalidKeySplit> {
  yield* checkSplit(threshold, keyCount)
  const coeffs = randomScalars(threshold)
  return { masterKey: Redacted.make(toHex(coeffs[0]!)), keyShards: split(coeffs, keyCount) }
})

/**
 * Splits an existing master key (64 lower-case hex, non-zero, below the field order) into
 * `keyCount` shards, any `threshold` of which recover it.
 */
export const shardKey = Effect.fn("Shamir.shardKey")(function* (
  key: string | Redacted.Redacted<string>,
  threshold: number = 3,
  keyCount: number = 5
): Effect.fn.Return<ReadonlyArray<KeyShard>, ThresholdExceedsKeyCount | InvalidKeySplit | InvalidMasterKey> {
  yield* checkSplit(threshold, keyCount)
  const secret = decodeScalar(Redacted.isRedacted(key) ? Redacted.value(key) : key)
  if (Result.isFailure(secret)) return yield* new InvalidMasterKey({ reason: `the key ${secret.failure}` })
  if (secret.success === 0n) return yield* new InvalidMasterKey({ reason: "the key is zero" })
  return split([secret.success, ...randomScalars(threshold - 1)], keyCount)
})

// =============================================================================
// Recover
// =============================================================================

/** Options of {@link recoverKey}. */
export interface RecoverOptions {
  /**
   * The split's threshold. When given, fewer shards are refused, and extra shards are checked
   * against the polynomial through the first `threshold`. When omitted, at least 3 shards (the
   * provider's 3 of 5) are needed and all of them are interpolated, as the provider does (this
   * also reads its `shardKey` shards, which need threshold + 1), and nothing can be verified.
   */
  readonly threshold?: number | undefined
}

// Above this many threshold-subsets, a disagreement is reported without naming the bad shards.
const MAX_SUBSETS = 5_000

const binomial = (n: number, k: number): number => {
  let c = 1
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i
  return c
}

function* subsets(n: number, k: number): Generator<Array<number>> {
  const pick = Array.from({ length: k }, (_, i) => i)
  while (true) {
    yield pick.slice()
    let i = k - 1
    while (i >= 0 && pick[i] === n - k + i) i--
    if (i < 0) return
    pick[i]!++
    for (let j = i + 1; j < k; j++) pick[j] = pick[j - 1]! + 1
  }
}

/**
 * The shards off the polynomial that the most shards agree on, when that polynomial is unique
 * and backed by more than `threshold` shards (so it is not just any `threshold` points); else [].
 */
const locateBadShards = (xs: ReadonlyArray<bigint>, ys: ReadonlyArray<bigint>, threshold: number) => {
  const n = xs.length
  if (n < threshold + 2 || binomial(n, threshold) > MAX_SUBSETS) return []
  let best: Array<number> = []
  let tie = false
  for (const pick of subsets(n, threshold)) {
    // Each agreeing set of ≥ threshold+1 shards is found once per subset inside it: keep the first.
    if (best.length > 0 && pick.every((i) => best.includes(i))) continue
    const p = interpolate(
      pick.map((i) => xs[i]!),
      pick.map((i) => ys[i]!)
    )
    const agree = xs.flatMap((x, i) => (Fr.eql(p(x), ys[i]!) ? [i] : []))
    if (agree.length > best.length) {
      best = agree
      tie = false
    } else if (agree.length === best.length && agree.length > threshold) tie = true
  }
  if (tie || best.length <= threshold) return []
  return xs.flatMap((_, i) => (best.includes(i) ? [] : [i]))
}

/**
 * Recovers the master key from shards by Lagrange interpolation at 0.
 *
 * **Details** With `threshold`, fewer shards fail with `KeyVectorLengthMismatch`, and more
 * shards must all lie on one polynomial of degree `threshold - 1`, or it fails with
 * `KeyShardsDisagree` naming the shards off it (when at least `threshold + 2` are given).
 * Without it, at least {@link DEFAULT_THRESHOLD} (the provider's 3 of 5) are needed, else it
 * fails with `CannotRecoverKey` (the provider's client returns a wrong key there); all shards are
 * interpolated and the result cannot be checked: altered shards give a wrong key, as with the
 * provider's client.
 */
export const recoverKey = Effect.fn("Shamir.recoverKey")(function* (
  shards: ReadonlyArray<KeyShard>,
  options?: RecoverOptions
): Effect.fn.Return<
  Redacted.Redacted<string>,
  CannotRecoverKey | KeyVectorLengthMismatch | KeyShardsDisagree | InvalidKeySplit
> {
  if (!Array.isArray(shards)) return yield* new CannotRecoverKey({ reason: "the shards are not an array" })
  const threshold: unknown = options?.threshold
  if (
    threshold !== undefined &&
    (typeof threshold !== "number" || !Number.isInteger(threshold) || threshold < 2 || threshold > MAX_KEY_COUNT)
  ) {
    return yield* new InvalidKeySplit({
      threshold: asNumber(threshold),
      keyCount: shards.length,
      reason: `threshold must be an integer from 2 to ${MAX_KEY_COUNT}`
    })
  }
  if (threshold === undefined && shards.length < DEFAULT_THRESHOLD) {
    // Interpolating fewer shards than the split's threshold gives a wrong key without any sign of it.
    return yield* new CannotRecoverKey({
      reason: `${shards.length} shards, and the provider's splits need ${DEFAULT_THRESHOLD}: pass { threshold } to recover a split with a lower one`
    })
  }
  if (typeof threshold === "number" && shards.length < threshold) {
    return yield* new KeyVectorLengthMismatch({ expected: threshold, received: shards.length })
  }
  if (shards.length > MAX_KEY_COUNT) {
    return yield* new CannotRecoverKey({ reason: `more than ${MAX_KEY_COUNT} shards` })
  }
  const xs: Array<bigint> = []
  const ys: Array<bigint> = []
  const positions = new Map<bigint, number>()
  for (const [i, shard] of shards.entries()) {
    const x = decodeScalar(shard?.index)
    if (Result.isFailure(x)) return yield* new CannotRecoverKey({ reason: `shard ${i}: index ${x.failure}` })
    if (x.success === 0n) return yield* new CannotRecoverKey({ reason: `shard ${i}: index is zero` })
    const y = decodeScalar(shard?.key)
    if (Result.isFailure(y)) return yield* new CannotRecoverKey({ reason: `shard ${i}: key ${y.failure}` })
    const twin = positions.get(x.success)
    if (twin !== undefined)
      return yield* new CannotRecoverKey({ reason: `shards ${twin} and ${i} have the same index` })
    positions.set(x.success, i)
    xs.push(x.success)
    ys.push(y.success)
  }
  const degreePlusOne = typeof threshold === "number" ? threshold : xs.length
  const p = interpolate(xs.slice(0, degreePlusOne), ys.slice(0, degreePlusOne))
  for (let i = degreePlusOne; i < xs.length; i++) {
    if (!Fr.eql(p(xs[i]!), ys[i]!)) {
      return yield* new KeyShardsDisagree({
        threshold: degreePlusOne,
        received: xs.length,
        badShards: locateBadShards(xs, ys, degreePlusOne)
      })
    }
  }
  return Redacted.make(toHex(p(Fr.ZERO)))
})
