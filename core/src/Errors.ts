/**
 * The provider's error catalogue as typed, schema-backed errors, one module per domain in `errors/`.
 *
 * Every class's `message` is the catalogue text to the letter, so code written
 * against the provider's strings keeps working, while Effect code matches on
 * `_tag` and reads the structured fields (status code, node id, detail).
 * Errors that a retry can cure say so through `isRetryable`.
 *
 * @since 0.1.0
 */

export * from "./errors/Auth.ts"
export * from "./errors/Cipher.ts"
export * from "./errors/Config.ts"
export { describe } from "./errors/Describe.ts"
export * from "./errors/Files.ts"
export * from "./errors/Input.ts"
export * from "./errors/Journal.ts"
export * from "./errors/KeyShards.ts"
export * from "./errors/Payment.ts"
export * from "./errors/Signing.ts"
export * from "./errors/Sources.ts"
export * from "./errors/Transfer.ts"
export * from "./errors/Transport.ts"
export * from "./errors/Verification.ts"
export * from "./errors/X402.ts"
