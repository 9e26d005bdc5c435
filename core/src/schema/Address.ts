/**
 * Account identifiers: EVM addresses, the public keys the key nodes accept
 * (a lower-cased EVM address or a 44-character base58 Solana key), and
 * private keys, which are only ever held as `Redacted`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { InvalidPrivateKey, InvalidPublicKey } from "../Errors.ts"
import { describeInput } from "./describeInput.ts"

const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/
const base58KeyPattern = /^[1-9A-HJ-NP-Za-km-z]{44}$/
const privateKeyPattern = /^(0x)?[0-9a-fA-F]{64}$/

/** `0x` followed by 40 hex digits, any case (checksums are not enforced, as on the provider). */
export const EvmAddress = Schema.String.check(Schema.isPattern(evmAddressPattern)).pipe(Schema.brand("EvmAddress"))
export type EvmAddress = typeof EvmAddress.Type

/** A key-node identity: an EVM address (lower-cased) or a 44-character base58 key. */
export const PublicKey = Schema.String.check(
  Schema.makeFilter((s: string) => evmAddressPattern.test(s) || base58KeyPattern.test(s), {
    expected: "a valid EVM address or a 44-character base58 key"
  })
).pipe(Schema.brand("PublicKey"))
export type PublicKey = typeof PublicKey.Type

/** Checks a public key and lower-cases it when it is an EVM address. */
export const parsePublicKey = (input: string): Effect.Effect<PublicKey, InvalidPublicKey> => {
  if (typeof input !== "string") return Effect.fail(new InvalidPublicKey({ publicKey: describeInput(input) }))
  if (evmAddressPattern.test(input)) return Effect.succeed(input.toLowerCase() as PublicKey)
  if (base58KeyPattern.test(input)) return Effect.succeed(input as PublicKey)
  return Effect.fail(new InvalidPublicKey({ publicKey: input }))
}

/** An EVM address in the lower-cased form the key nodes compare on. */
export const isEvmAddress = (input: string): input is EvmAddress => evmAddressPattern.test(input)

/** A secp256k1 private key: 64 hex digits with an optional `0x`. */
export type PrivateKey = Redacted.Redacted<`0x${string}`>

/** Checks a private key and wraps it, `0x`-prefixed, in `Redacted`: it never shows in logs or errors. */
export const parsePrivateKey = (
  input: string | Redacted.Redacted<string>
): Effect.Effect<PrivateKey, InvalidPrivateKey> => {
  const raw = Redacted.isRedacted(input) ? Redacted.value(input) : input
  if (!privateKeyPattern.test(raw)) return Effect.fail(new InvalidPrivateKey({}))
  const hex = (raw.startsWith("0x") ? raw : `0x${raw}`) as `0x${string}`
  return Effect.succeed(Redacted.make(hex, { label: "PrivateKey" }))
}
