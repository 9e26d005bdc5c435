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
