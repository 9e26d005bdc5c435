/**
 * What a signer is: its service shape, the schema that checks an input has that shape, and the
 * `Signer` tag. Apart from `Signer.ts` (which re-exports them) because that module's constructors
 * are built over viem, and the modules that only check a signer's shape (upload and download
 * options) must not bring viem into a bundle that never builds a signer from a key or a wallet.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SignerError } from "../Errors.ts"

/**
 * A lower-cased EVM address.
 *
 * @category models
 */
export type Address = `0x${string}`

/** @category models */
export interface Service {
  /** The signer's EVM address, lower-cased. */
  readonly address: Address
  /** Signs `message` as EIP-191 `personal_sign` (the `\x19Ethereum Signed Message:\n` prefix); 0x-hex. */
  readonly signMessage: (message: string) => Effect.Effect<`0x${string}`, SignerError>
}

/**
 * A value that can sign, as an input schema: an object with a string `address` and a
 * `signMessage` function. It checks the shape only; signing is what tells a working signer.
 *
 * @category schemas
 */
export const ServiceSchema = Schema.declare(
  (u: unknown): u is Service =>
    typeof u === "object" &&
    u !== null &&
    typeof (u as { address?: unknown }).address === "string" &&
    typeof (u as { signMessage?: unknown }).signMessage === "function",
  { expected: "a signer ({ address, signMessage })" }
)

/**
 * Who signs: the wallet behind every auth message, JWT, API key and one-time token.
 *
 * @category services
 */
export class Signer extends Context.Service<Signer, Service>()("lighthouse-effect/Signer") {}
