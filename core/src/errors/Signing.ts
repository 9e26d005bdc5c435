/**
 * Signing and key-node quorum errors. The signer and the quorum of key nodes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The signer could not sign (wallet refused, provider gone, no account). Never holds the key. */
export class SignerError extends Schema.TaggedError<SignerError>()("SignerError", {
  /** What was being done: `signMessage`, `requestAddresses`… */
  operation: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return `Signer failed to ${this.operation}`
  }
}

/**
 * Fewer key nodes than needed handed out their shard because the others were unreachable or
 * failing (transport errors, time-outs, 5xx). `failures` says which nodes failed and why.
 */
export class KeyNodesUnavailable extends Schema.TaggedError<KeyNodesUnavailable>()("KeyNodesUnavailable", {
  cid: Schema.String,
  needed: Schema.Number,
  received: Schema.Number,
  failures: Schema.Array(
    Schema.Struct({ nodeId: Schema.Number, statusCode: Schema.Number, nodeMessage: Schema.String })
  )
}) {
  get isRetryable() {
    return true
  }
  override get message() {
    const why = this.failures.map((f) => `node ${f.nodeId}: ${f.nodeMessage}`).join(", ")
    return `Only ${this.received} of ${this.needed} key shards could be retrieved (${why})`
  }
}
