/**
 * Key shards errors. Splitting, saving, fetching and recovering a file's master key.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { causeSummary } from "./Describe.ts"

/** A split asked for more shards to be needed than there are. */
export class ThresholdExceedsKeyCount extends Schema.TaggedError<ThresholdExceedsKeyCount>()(
  "ThresholdExceedsKeyCount",
  { threshold: Schema.Number, keyCount: Schema.Number }
) {
  override get message() {
    return "keyCount must be greater then threshold"
  }
}

/** The shards given to a split or a recovery are not `threshold` long, or are malformed. */
export class KeyVectorLengthMismatch extends Schema.TaggedError<KeyVectorLengthMismatch>()("KeyVectorLengthMismatch", {
  expected: Schema.Number,
  received: Schema.Number
}) {
  override get message() {
    return "key vector Length don't match"
  }
}

/** The shards do not recover a key: malformed, duplicated, too few, or disagreeing. */
export class CannotRecoverKey extends Schema.TaggedError<CannotRecoverKey>()("CannotRecoverKey", {
  /** Why, for logs: never contains key material. */
  reason: Schema.String
}) {
  override get message() {
    return "can't recover Key"
  }
}

/** No node holds shards for this CID (or would say so): the provider's `null` message. */
export class CidNotFound extends Schema.TaggedError<CidNotFound>()("CidNotFound", {
  cid: Schema.String
}) {
  override get message() {
    return "cid not found"
  }
}

/**
 * Saving the shards of a freshly encrypted file failed on a node. The catalogue's `Error
 * encrypting file`, followed by the cause (`Error encrypting file: Invalid Signature`).
 */
export class EncryptionFailed extends Schema.TaggedError<EncryptionFailed>()("EncryptionFailed", {
  cause: Schema.Defect()
}) {
  /** The failure underneath, on one line: a node's message, or where and why a request failed. */
  get firstCause(): string {
    return causeSummary(this.cause)
  }
  override get message() {
    return `Error encrypting file: ${this.firstCause}`
  }
}

/** A node refused to hand out a shard: the caller is not owner, shared, or condition holder. */
export class AccessDenied extends Schema.TaggedError<AccessDenied>()("AccessDenied", {
  nodeId: Schema.Number,
  cid: Schema.String
}) {
  override get message() {
    return "Access Denied"
  }
}

/** Ciphertext failed authentication: wrong key, or the bytes were changed. */
export class DecryptionFailed extends Schema.TaggedError<DecryptionFailed>()("DecryptionFailed", {
  reason: Schema.String
}) {
  override get message() {
    return `Decryption failed: ${this.reason}`
  }
}

/** A split asked for parameters that give no protection or no shards: not integers, threshold < 2, too many shards. */
export class InvalidKeySplit extends Schema.TaggedError<InvalidKeySplit>()("InvalidKeySplit", {
  threshold: Schema.Number,
  keyCount: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid key split: ${this.reason}`
  }
}

/** A key given to `shardKey` is not a non-zero scalar written as 64 lower-case hex. Never holds the key. */
export class InvalidMasterKey extends Schema.TaggedError<InvalidMasterKey>()("InvalidMasterKey", {
  reason: Schema.String
}) {
  override get message() {
    return `Invalid master key: ${this.reason}`
  }
}

/**
 * More shards than the threshold were given and they do not lie on one polynomial, so any key
 * recovered from them could be wrong. `badShards` are the positions (in the input) of the shards
 * off the polynomial the others agree on; empty when there are too few shards to tell which.
 */
export class KeyShardsDisagree extends Schema.TaggedError<KeyShardsDisagree>()("KeyShardsDisagree", {
  threshold: Schema.Number,
  received: Schema.Number,
  badShards: Schema.Array(Schema.Number)
}) {
  override get message() {
    return "can't recover Key"
  }
}
