/**
 * Auth errors. Signing in to the key nodes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The node would not issue a JWT for this signature (or the call failed). */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return "Invalid Signature"
  }
}

/**
 * The key nodes' JWT has passed its `exp` (by the key node's word, or by its own claim) and there
 * is no signer to renew it with: the node's own text.
 */
export class TokenExpired extends Schema.TaggedError<TokenExpired>()("TokenExpired", {
  /** When it expired, in milliseconds since the epoch, when the token says. */
  expiredAt: Schema.optional(Schema.Number),
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return "jwt expired"
  }
}
