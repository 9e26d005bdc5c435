/**
 * Input validation errors. Inputs refused before any request is made: CIDs, key shards, conditions, keys, file names, tokens, folder entries.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A CID that matches none of the four accepted forms, or does not decode. */
export class InvalidCid extends Schema.TaggedError<InvalidCid>()("InvalidCid", {
  cid: Schema.String
}) {
  override get message() {
    return "Invalid CID"
  }
}

/** Creating conditions or saving shards needs exactly 5 shards (0 when updating). */
export class InvalidKeyShards extends Schema.TaggedError<InvalidKeyShards>()("InvalidKeyShards", {
  count: Schema.Number
}) {
  override get message() {
    return "keyShards must be an array of 5 objects"
  }
}

/** An access condition (or the request around it) breaks one of the provider's rules for conditions. */
export class ConditionValidationError extends Schema.TaggedError<ConditionValidationError>()(
  "ConditionValidationError",
  {
    /** Field path and what is wrong, e.g. `"conditions[0].id" must be greater than or equal to 1`. */
    detail: Schema.String
  }
) {
  override get message() {
    return `Condition validation error: ${this.detail}`
  }
}

/** Neither a lower-cased EVM address nor a 44-character base58 key. */
export class InvalidPublicKey extends Schema.TaggedError<InvalidPublicKey>()("InvalidPublicKey", {
  publicKey: Schema.String
}) {
  override get message() {
    return "Invalid public Key"
  }
}

/** A private key that is not 64 hex characters. The value itself is never kept. */
export class InvalidPrivateKey extends Schema.TaggedError<InvalidPrivateKey>()("InvalidPrivateKey", {}) {
  override get message() {
    return "Private key must be 64 hex characters"
  }
}

/**
 * Two files of one encrypted upload share a name. The field is `fileName`, not `name`,
 * which would shadow `Error.prototype.name` (`String(error)` would read `a.txt: …`).
 */
export class DuplicateFileName extends Schema.TaggedError<DuplicateFileName>()("DuplicateFileName", {
  fileName: Schema.String
}) {
  override get message() {
    return `Duplicate file name found: ${this.fileName}`
  }
}

/** Encrypting more than one file needs a JWT (a raw `0x` signature is single-use). */
export class AuthTokenMustBeJwt extends Schema.TaggedError<AuthTokenMustBeJwt>()("AuthTokenMustBeJwt", {}) {
  override get message() {
    return "auth_token must be a JWT"
  }
}

/**
 * A JavaScript caller of the Promise facade passed an argument of the wrong shape (a number for a
 * CID, no options, a signer without `signMessage`). Names the argument, never its value.
 */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  /** `service.method`, e.g. `files.fileInfo`. */
  method: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `Invalid argument to ${this.method}: ${this.detail}`
  }
}

/**
 * Why an entry of a folder on disk cannot be read: a symbolic link that leads back into a folder
 * it is in (or into a chain of links without end), one whose target does not exist, or an entry
 * the process may not read.
 */
export const UnreadableReason = Schema.Literals(["symlink loop", "broken link", "permission denied"])
/** @category models */
export type UnreadableReason = typeof UnreadableReason.Type

/**
 * An entry of a folder being uploaded or quoted cannot be read; nothing was sent. `path` is the
 * entry's path inside the folder, `/`-separated. A folder input made with `skipUnreadable: true`
 * skips such entries instead and lists them.
 */
export class UnreadableEntry extends Schema.TaggedError<UnreadableEntry>()("UnreadableEntry", {
  path: Schema.String,
  reason: UnreadableReason
}) {
  override get message() {
    return `Unreadable entry in folder: ${this.path} (${this.reason})`
  }
}
