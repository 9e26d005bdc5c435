import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import fc from "fast-check"
import { base16upper } from "multiformats/bases/base16"
import { base32, base32upper } from "multiformats/bases/base32"
import { base58btc } from "multiformats/bases/base58"
import { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"
import { Cid, isValidCid, parseCid } from "../../src/schema/Cid.ts"

const digest = await sha256.digest(new TextEncoder().encode("hello lighthouse"))
const dagPb = 0x70
const raw = 0x55

/** CIDv0: `Qm` + 44 base58btc characters. */
const v0 = CID.create(0, dagPb, digest).toString()
/** CIDv1 (raw, sha2-256) in base32: `b` + 58. */
const v1 = CID.create(1, raw, digest)
const v1Base32 = v1.toString(base32)
const v1Base32Upper = v1.toString(base32upper)
/** The same CIDv1 in base58btc: 36 bytes give `z` + 48 characters. */
const v1Base58 = v1.toString(base58btc)
/** A 25-byte CIDv1 (raw, identity hash of 21 bytes) in base16upper: `F` + 50 hex digits. */
const small = CID.create(1, raw, identity.digest(new Uint8Array(21).fill(0xab)))
const v1Base16 = small.toString(base16upper)

describe("Cid", () => {
  it.effect("the constructed examples have the lengths of the accepted forms", () =>
    Effect.sync(() => {
      assert.strictEqual(v0, "QmRvQkhdHFRKHHgiqYvfJgXiZbqYM13WZ5dxBsETrSUrfH")
      assert.strictEqual(v0.length, 2 + 44)
      assert.strictEqual(v1Base32, "bafkreibvhedw3scmu3qb76fzulsgfydgzf5jybs7w5dmjgkrb2lhj7rv7a")
      assert.strictEqual(v1Base32.length, 1 + 58)
      assert.strictEqual(v1Base32Upper, "BAFKREIBVHEDW3SCMU3QB76FZULSGFYDGZF5JYBS7W5DMJGKRB2LHJ7RV7A")
      assert.strictEqual(v1Base58, "zb2rhaE3EkqX6gLEUYGpegwzavBKsZ34VNFTrS2VY83ciT2s1")
      assert.strictEqual(v1Base58.length, 1 + 48)
      assert.strictEqual(small.bytes.length, 25)
      assert.strictEqual(v1Base16, "F01550015ABABABABABABABABABABABABABABABABABABABABAB")
      assert.strictEqual(v1Base16.length, 1 + 50)
    })
  )

  it.effect.each<readonly [string, string]>([
    ["CIDv0 Qm…", v0],
    ["CIDv1 base32 b…", v1Base32],
    ["CIDv1 base32upper B…", v1Base32Upper],
    ["CIDv1 base58btc z…", v1Base58],
    ["CIDv1 base16upper F…", v1Base16],
    ["a real upload hash", "QmWATWQ7fVPP2EFGu71UkfnqhYXDYH566qy47CnJDgvs8u"],
    ["a dag-pb CIDv1", CID.create(1, dagPb, digest).toString()]
  ])("accepts %s", ([, cid]) =>
    Effect.gen(function* () {
      assert.isTrue(isValidCid(cid))
      assert.strictEqual(yield* parseCid(cid), cid)
      assert.strictEqual(Schema.decodeUnknownSync(Cid)(cid), cid)
      // The accepted text really is a CID, and re-encodes to itself.
      const base = cid.startsWith("F")
        ? base16upper
        : cid.startsWith("B")
          ? base32upper
          : cid.startsWith("z")
            ? base58btc
            : cid.startsWith("b")
              ? base32
              : undefined
      const decoded = CID.parse(cid, base)
      assert.strictEqual(base === undefined ? decoded.toString() : decoded.toString(base), cid)
    })
  )

  const rejected: ReadonlyArray<readonly [string, string]> = [
    ["empty string", ""],
    ["the provider's unanchored match: garbage around a CIDv0", `garbage/${v0}/more`],
    ['"b" + "a"×58: matches the provider\'s pattern, decodes to nothing', `b${"a".repeat(58)}`],
    ["a 65-letter lower-case run with a b", `x${"b".repeat(58)}cdefgh`],
    ["Qm + 44 × '1': right shape, not a multihash", `Qm${"1".repeat(44)}`],
    ["B + A×58", `B${"A".repeat(58)}`],
    ["z + 48 × '1'", `z${"1".repeat(48)}`],
    ["F + 50 zeros", `F${"0".repeat(50)}`],
    ["F + a 25-byte CID whose multihash length lies", `F0155001F${"AB".repeat(21)}`],
    ["leading space", ` ${v0}`],
    ["trailing newline", `${v0}\n`],
    ["CIDv0 one character short", v0.slice(0, -1)],
    ["CIDv0 one character long", `${v0}a`],
    ["base32 one character short", v1Base32.slice(0, -1)],
    ["mixed-case base32", `b${v1Base32Upper.slice(1)}`],
    ["base16 lower-case", `F${v1Base16.slice(1).toLowerCase()}`],
    ["base16 with prefix f", `f${v1Base16.slice(1).toLowerCase()}`],
    [
      "z form of a 35-byte CID (47 characters)",
      CID.create(1, raw, identity.digest(new Uint8Array(31).fill(7))).toString(base58btc)
    ],
    ["a path", `/ipfs/${v0}`],
    ["a gateway URL", `https://gateway.lighthouse.storage/ipfs/${v0}`],
    ["base58 with a forbidden 0", `Qm${"0".repeat(44)}`]
  ]

  it.effect.each(rejected)("rejects %s with Invalid CID", ([, input]) =>
    Effect.gen(function* () {
      assert.isFalse(isValidCid(input))
      const error = yield* Effect.flip(parseCid(input))
      assert.strictEqual(error._tag, "InvalidCid")
      assert.strictEqual(error.message, "Invalid CID")
      assert.strictEqual(error.cid, input)
      assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(Cid)(input)))
    })
  )

  it.effect("the Cid schema rejects non-strings and names what it expects", () =>
    Effect.gen(function* () {
      for (const input of [null, 42, undefined, { cid: v0 }, [v0]])
        assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(Cid)(input)))
      const error = yield* Effect.flip(Schema.decodeUnknownEffect(Cid)("nope"))
      assert.strictEqual(error.message, "Expected a CID (Qm…, b…, B…, z… or F…)")
    })
  )

  it.effect("property: random strings never throw, only fail with InvalidCid", () =>
    Effect.sync(() => {
      const loose = Effect.runSyncExit(parseCid(123 as unknown as string))
      const reason = Exit.isFailure(loose) ? loose.cause.reasons[0] : undefined
      assert.deepStrictEqual(reason?._tag === "Fail" && [reason.error._tag, reason.error.cid], [
        "InvalidCid",
        "(a number)"
      ])
      for (const input of [undefined, null, {}, ["Qm"], () => "Qm"]) {
        const exit = Effect.runSyncExit(parseCid(input as unknown as string))
        assert.isTrue(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail")
      }
      const alphabets = fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.string({ unit: "binary", maxLength: 80 }),
        fc.stringMatching(/^(Qm|b|B|z|F)[1-9A-HJ-NP-Za-km-z2-7]{40,60}$/)
      )
      fc.assert(
        fc.property(alphabets, (input) => {
          const exit = Effect.runSyncExit(parseCid(input))
          if (Exit.isSuccess(exit)) return exit.value === input && isValidCid(input)
          const error = exit.cause.reasons[0]
          return (
            exit.cause.reasons.length === 1 &&
            error?._tag === "Fail" &&
            error.error._tag === "InvalidCid" &&
            error.error.message === "Invalid CID" &&
            !isValidCid(input)
          )
        }),
        { numRuns: 2000 }
      )
    })
  )

  it.effect("property: every real CID of the four forms is accepted, and unanchored extras are not", () =>
    Effect.sync(() => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 0, maxLength: 64 }),
          fc.string({ minLength: 1, maxLength: 5 }),
          (bytes, junk) => {
            const d = sha256.digest(bytes)
            if (d instanceof Promise) throw new Error("sha256 is synchronous in Node")
            const cid = CID.create(1, raw, d)
            for (const text of [
              CID.create(0, dagPb, d).toString(),
              cid.toString(base32),
              cid.toString(base32upper),
              cid.toString(base58btc)
            ]) {
              if (!isValidCid(text)) return false
              if (isValidCid(`${junk}${text}`) && junk !== "") return false
              if (isValidCid(`${text}${junk}`)) return false
            }
            return true
          }
        ),
        { numRuns: 200 }
      )
    })
  )
})
