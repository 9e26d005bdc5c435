/**
 * A secret the caller hands to the library: an API key, a JWT, a signed message, a refresh
 * token. Given as a plain string or as Effect's `Redacted`; the library keeps it `Redacted`
 * and reveals it only on the wire, never in logs, spans or errors.
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/** A `Redacted` whose value is a string. */
const RedactedString = Schema.declare(
  (u: unknown): u is Redacted.Redacted<string> => Redacted.isRedacted(u) && typeof Redacted.value(u) === "string",
  { expected: "Redacted<string>" }
)

/**
 * A secret: a string or a `Redacted` string.
 *
 * @category schemas
 */
export const Credential = Schema.Union([Schema.String, RedactedString])

/**
 * A secret: a string or a `Redacted` string.
 *
 * @category models
 */
export type Credential = typeof Credential.Type
