import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Schema } from "effect"
import fc from "fast-check"
import { EvmAddress, isEvmAddress, PublicKey, parsePrivateKey, parsePublicKey } from "../../src/schema/Address.ts"

const checksummed = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
const solanaKey = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV6"
const privateHex = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

/** Schemas that double as generators for `it.effect.prop`. */
const Hex40 = Schema.String.check(Schema.isPattern(/^[0-9a-fA-F]{40}$/))
const Hex64 = Schema.String.check(Schema.isPattern(/^[0-9a-fA-F]{64}$/))
const Base58Of44 = Schema.String.check(Schema.isPattern(/^[1-9A-HJ-NP-Za-km-z]{44}$/))

describe("Address", () => {
  describe("parsePublicKey", () => {
    it.effect("lower-cases an EVM address", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* parsePublicKey(checksummed), "0x5fbdb2315678afecb367f032d93f642f64180aa3")
        assert.strictEqual(
          yield* parsePublicKey("0xABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD"),
          "0xabcdefabcdefabcdefabcdefabcdefabcdefabcd"
        )
      })
    )

    it.effect("accepts a 44-character base58 key as given", () =>
      Effect.gen(function* () {
        assert.strictEqual(solanaKey.length, 44)
        assert.strictEqual(yield* parsePublicKey(solanaKey), solanaKey)
      })
    )

    it.effect.each<readonly [string, string]>([
      ["empty", ""],
      ["0x + 39 hex", "0x5FbDB2315678afecb367f032d93F642f64180aa"],
      ["0x + 41 hex", "0x5FbDB2315678afecb367f032d93F642f64180aa3a"],
      ["no 0x", "5FbDB2315678afecb367f032d93F642f64180aa3"],
      ["0X prefix", "0X5FbDB2315678afecb367f032d93F642f64180aa3"],
      ["non-hex digit", "0x5FbDB2315678afecb367f032d93F642f64180aaG"],
      ["43-character base58", solanaKey.slice(1)],
      ["45-character base58", `${solanaKey}1`],
      ["base58 with 0", `0${solanaKey.slice(1)}`],
      ["base58 with O", `O${solanaKey.slice(1)}`],
      ["base58 with I", `I${solanaKey.slice(1)}`],
      ["base58 with l", `l${solanaKey.slice(1)}`],
      ["padded address", ` ${checksummed}`],
      ["ENS name", "vitalik.eth"]
    ])("rejects %s with Invalid public Key", ([, input]) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(parsePublicKey(input))
        assert.strictEqual(error._tag, "InvalidPublicKey")
        assert.strictEqual(error.message, "Invalid public Key")
        assert.strictEqual(error.publicKey, input)
      })
    )

    it.effect.prop("property: any 0x + 40 hex is accepted and lower-cased", [Hex40], ([digits]) =>
      Effect.gen(function* () {
        const key = yield* parsePublicKey(`0x${digits}`)
        assert.strictEqual(key, `0x${digits.toLowerCase()}`)
        assert.isTrue(isEvmAddress(key))
      })
    )

    it.effect.prop("property: any 44 base58 characters are accepted unchanged", [Base58Of44], ([key]) =>
      Effect.gen(function* () {
        assert.strictEqual(yield* parsePublicKey(key), key)
      })
    )

    it.effect("property: a non-string from JavaScript fails with InvalidPublicKey naming its kind, not a defect", () =>
      Effect.sync(() => {
        fc.assert(
          fc.property(fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.func(fc.jsonValue())), (input) => {
            fc.pre(typeof input !== "string")
            const exit = Effect.runSyncExit(parsePublicKey(input as unknown as string))
            const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
            return (
              reason?._tag === "Fail" &&
              reason.error._tag === "InvalidPublicKey" &&
              reason.error.publicKey.startsWith("(")
            )
          }),
          { numRuns: 300 }
        )
      })
    )

    it.effect("property: anything else fails with InvalidPublicKey, never throws", () =>
      Effect.sync(() => {
        fc.assert(
          fc.property(fc.string({ maxLength: 60 }), (input) => {
            const exit = Effect.runSyncExit(parsePublicKey(input))
            const valid = /^0x[0-9a-fA-F]{40}$/.test(input) || /^[1-9A-HJ-NP-Za-km-z]{44}$/.test(input)
            if (Exit.isSuccess(exit)) return valid
            const reason = exit.cause.reasons[0]
            return !valid && reason?._tag === "Fail" && reason.error.message === "Invalid public Key"
          }),
          { numRuns: 2000 }
        )
      })
    )
  })

  describe("schemas", () => {
    it.effect("EvmAddress keeps the case; PublicKey takes both forms", () =>
      Effect.sync(() => {
        assert.strictEqual(Schema.decodeUnknownSync(EvmAddress)(checksummed), checksummed)
        assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(EvmAddress)(solanaKey)))
        assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(EvmAddress)("0x123")))
        assert.strictEqual(Schema.decodeUnknownSync(PublicKey)(solanaKey), solanaKey)
        assert.strictEqual(Schema.decodeUnknownSync(PublicKey)(checksummed), checksummed)
        assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(PublicKey)("nope")))
        assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(PublicKey)(42)))
        assert.isTrue(isEvmAddress(checksummed))
        assert.isFalse(isEvmAddress(solanaKey))
      })
    )
  })

  describe("parsePrivateKey", () => {
    it.effect("wraps 64 hex digits, with or without 0x, as a 0x-prefixed Redacted", () =>
      Effect.gen(function* () {
        const bare = yield* parsePrivateKey(privateHex)
        const prefixed = yield* parsePrivateKey(`0x${privateHex}`)
        assert.isTrue(Redacted.isRedacted(bare))
        assert.strictEqual(Redacted.value(bare), `0x${privateHex}`)
        assert.strictEqual(Redacted.value(prefixed), `0x${privateHex}`)
        const upper = yield* parsePrivateKey(privateHex.toUpperCase())
        assert.strictEqual(Redacted.value(upper), `0x${privateHex.toUpperCase()}`)
      })
    )

    it.effect("accepts a Redacted input", () =>
      Effect.gen(function* () {
        const key = yield* parsePrivateKey(Redacted.make(privateHex))
        assert.strictEqual(Redacted.value(key), `0x${privateHex}`)
      })
    )

    it.effect("never reveals the key: String, template, JSON, inspect", () =>
      Effect.gen(function* () {
        const key = yield* parsePrivateKey(privateHex)
        const shown = [
          String(key),
          `${key}`,
          JSON.stringify(key),
          JSON.stringify({ key }),
          inspect(key),
          inspect({ key })
        ]
        assert.deepStrictEqual(shown, [
          "<redacted:PrivateKey>",
          "<redacted:PrivateKey>",
          `"<redacted:PrivateKey>"`,
          `{"key":"<redacted:PrivateKey>"}`,
          "<redacted:PrivateKey>",
          "{ key: <redacted:PrivateKey> }"
        ])
        for (const text of shown) assert.notInclude(text.toLowerCase(), privateHex.slice(0, 16))
      })
    )

    it.effect.each<readonly [string, string]>([
      ["empty", ""],
      ["63 hex", privateHex.slice(1)],
      ["65 hex", `${privateHex}0`],
      ["0x + 63 hex", `0x${privateHex.slice(1)}`],
      ["non-hex", `${privateHex.slice(1)}g`],
      ["0X prefix", `0X${privateHex}`],
      ["spaces", ` ${privateHex}`],
      ["a mnemonic", "test test test test test test test test test test test junk"]
    ])("rejects %s, without keeping the value", ([, input]) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(parsePrivateKey(input))
        assert.strictEqual(error._tag, "InvalidPrivateKey")
        assert.strictEqual(error.message, "Private key must be 64 hex characters")
        assert.deepStrictEqual(Object.keys(error), ["_tag"])
        if (input.length > 8) {
          assert.notInclude(JSON.stringify(error), input.slice(2, 30))
          assert.notInclude(inspect(error), input.slice(2, 30))
        }
      })
    )

    it.effect.prop(
      "property: any 64 hex digits round-trip through Redacted",
      [Hex64, Schema.Boolean],
      ([digits, prefix]) =>
        Effect.gen(function* () {
          const key = yield* parsePrivateKey(prefix ? `0x${digits}` : digits)
          assert.strictEqual(Redacted.value(key), `0x${digits}`)
          assert.strictEqual(String(key), "<redacted:PrivateKey>")
        })
    )

    it.effect("property: other strings fail with InvalidPrivateKey, never throw", () =>
      Effect.sync(() => {
        fc.assert(
          fc.property(fc.string({ maxLength: 70 }), (input) => {
            const exit = Effect.runSyncExit(parsePrivateKey(input))
            const valid = /^(0x)?[0-9a-fA-F]{64}$/.test(input)
            if (Exit.isSuccess(exit)) return valid
            const reason = exit.cause.reasons[0]
            return !valid && reason?._tag === "Fail" && reason.error._tag === "InvalidPrivateKey"
          }),
          { numRuns: 2000 }
        )
      })
    )
  })
})
