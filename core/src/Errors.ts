/**
 * The error catalogue of the specification (§8) as typed, schema-backed errors.
 *
 * Every class's `message` is the catalogue text to the letter, so code written
 * against the provider's strings keeps working, while Effect code matches on
 * `_tag` and reads the structured fields (status code, node id, detail).
 * Errors that a retry can cure say so through `isRetryable`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { KeyShard } from "./schema/KeyShard.ts"

// =============================================================================
// Input validation
// =============================================================================

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

/** An access condition (or the request around it) breaks a rule of spec §5. */
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

// =============================================================================
// Key shards
// =============================================================================

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

/** Saving the shards of a freshly encrypted file failed on a node. */
export class EncryptionFailed extends Schema.TaggedError<EncryptionFailed>()("EncryptionFailed", {
  cause: Schema.Defect()
}) {
  override get message() {
    return "Error encrypting file"
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

// =============================================================================
// Auth
// =============================================================================

/** The node would not issue a JWT for this signature (or the call failed). */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return "Invalid Signature"
  }
}

// =============================================================================
// Transport
// =============================================================================

/** A non-2xx answer from the API host (`Request failed with status code {n}`). */
export class RequestFailed extends Schema.TaggedError<RequestFailed>()("RequestFailed", {
  status: Schema.Number,
  url: Schema.String,
  /** The server's error text, when it sent one. */
  body: Schema.optional(Schema.String)
}) {
  get isRetryable() {
    return this.status >= 500 || this.status === 429
  }
  override get message() {
    return `Request failed with status code ${this.status}`
  }
}

/** A non-2xx answer where the spec uses the `HTTP error!` form (file info, gateway, ticker…). */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", {
  status: Schema.Number,
  url: Schema.String,
  body: Schema.optional(Schema.String)
}) {
  get isRetryable() {
    return this.status >= 500 || this.status === 429
  }
  override get message() {
    return `HTTP error! status ${this.status}`
  }
}

/** No answer at all: DNS, refused connection, reset. */
export class NetworkError extends Schema.TaggedError<NetworkError>()("NetworkError", {
  url: Schema.String,
  cause: Schema.Defect()
}) {
  get isRetryable() {
    return true
  }
  override get message() {
    return "Network error"
  }
}

/** No answer within the configured time-out. */
export class RequestTimedOut extends Schema.TaggedError<RequestTimedOut>()("RequestTimedOut", {
  url: Schema.String,
  timeoutMillis: Schema.Number
}) {
  get isRetryable() {
    return true
  }
  override get message() {
    return "Request timed out"
  }
}

/** The server answered 2xx with a body that is not what the endpoint promises. */
export class InvalidResponse extends Schema.TaggedError<InvalidResponse>()("InvalidResponse", {
  url: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `Invalid response from ${this.url}: ${this.detail}`
  }
}

/**
 * A key node answered with an error. `message` is the node's own message:
 * `fetch Error` for a 404 or an unreachable node, else the body's `message`.
 */
export class NodeError extends Schema.TaggedError<NodeError>()("NodeError", {
  nodeId: Schema.Number,
  /** 0 when no HTTP answer arrived. */
  statusCode: Schema.Number,
  /** The node's error body, as parsed JSON (or text). */
  body: Schema.Unknown,
  nodeMessage: Schema.String,
  /** In a call to several nodes: the nodes that had already accepted it, so a partial write is visible. */
  succeededNodes: Schema.optionalKey(Schema.Array(Schema.Number))
}) {
  /** The provider retries exactly the errors whose text contains `fetch`: 404s and transport failures. */
  get isRetryable() {
    return this.statusCode === 0 || this.statusCode === 404
  }
  override get message() {
    return this.nodeMessage
  }
}

/** The 5 nodes did not all answer the same, or did not all answer `success`. */
export class NodesDisagree extends Schema.TaggedError<NodesDisagree>()("NodesDisagree", {
  operation: Schema.String,
  answers: Schema.Array(Schema.Unknown)
}) {
  override get message() {
    return `The key nodes did not agree on ${this.operation}`
  }
}

// =============================================================================
// Files
// =============================================================================

/** The proof of a CID's deal is not there yet (the API answered 400). */
export class ProofNotFound extends Schema.TaggedError<ProofNotFound>()("ProofNotFound", {
  cid: Schema.String
}) {
  override get message() {
    return "Proof Doesn't exist yet"
  }
}

/** The upload node refused the upload: bad key, quota exceeded… `reason` is its `error` text. */
export class UploadRejected extends Schema.TaggedError<UploadRejected>()("UploadRejected", {
  status: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

// =============================================================================
// Payment
// =============================================================================

/** The ticker call failed; `detail` says why. */
export class TickerPriceFailed extends Schema.TaggedError<TickerPriceFailed>()("TickerPriceFailed", {
  detail: Schema.String
}) {
  override get message() {
    return `Failed to get ticker price: ${this.detail}`
  }
}

/** A network name that is not in the network table. */
export class UnsupportedNetwork extends Schema.TaggedError<UnsupportedNetwork>()("UnsupportedNetwork", {
  network: Schema.String
}) {
  override get message() {
    return "Unsupported Network!!!"
  }
}

/** A price or quote was asked for without a network. */
export class TokenNotProvided extends Schema.TaggedError<TokenNotProvided>()("TokenNotProvided", {}) {
  override get message() {
    return "Token not provided!!!"
  }
}

/** Funding was asked for without a private key or signer. */
export class PrivateKeyNotFound extends Schema.TaggedError<PrivateKeyNotFound>()("PrivateKeyNotFound", {}) {
  override get message() {
    return "Private Key not found!!!"
  }
}

/** The custom errors of the payment contract (reference/payment-contract.md §2.1) and Ownable's. */
export const ContractErrorName = Schema.Literals([
  "ENDOWMENT_TRANSFER_FAILED",
  "INSUFFICIENT_CONTRACT_BALANCE",
  "INSUFFICIENT_USER_BALANCE",
  "INVALID_ZERO_ADDRESS",
  "TOKEN_APPROVAL_FAILED",
  "TOKEN_NOT_SUPPORTED",
  "TOKEN_PAYMENT_FAILED",
  "OwnableUnauthorizedAccount",
  "OwnableInvalidOwner"
])
export type ContractErrorName = typeof ContractErrorName.Type

/** The payment contract reverted with one of its custom errors. */
export class ContractReverted extends Schema.TaggedError<ContractReverted>()("ContractReverted", {
  errorName: ContractErrorName,
  args: Schema.Array(Schema.Unknown)
}) {
  override get message() {
    return this.errorName
  }
}

/** Any other chain failure (RPC down, gas estimation, insufficient funds for gas). */
export class ChainError extends Schema.TaggedError<ChainError>()("ChainError", {
  shortMessage: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return this.shortMessage
  }
}

// =============================================================================
// Signing and key-node quorum
// =============================================================================

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
 * The caller aborted the call through its `AbortSignal` (the Promise facade's trailing
 * `{ signal }`): the call was interrupted and its requests cancelled. The message is the one
 * `fetch` rejects with.
 */
export class Aborted extends Schema.TaggedError<Aborted>()("Aborted", {}) {
  override get message() {
    return "This operation was aborted"
  }
}

// =============================================================================
// Transfers
// =============================================================================

/** An upload was asked for with inputs it cannot take (an empty folder, a CAR without `.car`…). */
export class InvalidUploadInput extends Schema.TaggedError<InvalidUploadInput>()("InvalidUploadInput", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** A file's bytes could not be read while it was being sent (the provider's `File stream error`). */
export class FileStreamError extends Schema.TaggedError<FileStreamError>()("FileStreamError", {
  /** The file's name in the upload (`fileName`: a `name` field would shadow `Error.prototype.name`). */
  fileName: Schema.String,
  detail: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return `File stream error: ${this.detail}`
  }
}

/**
 * An encrypted upload reached the node, but the key shards of some of its files could not be
 * saved: those files are stored and cannot be decrypted by anyone until their shards are saved.
 * The catalogue's `Error encrypting file`, with the whole picture: every uploaded entry, the CIDs
 * whose shards are on all 5 nodes, and each failed file with its reason.
 */
export class EncryptedUploadIncomplete extends Schema.TaggedError<EncryptedUploadIncomplete>()(
  "EncryptedUploadIncomplete",
  {
    uploaded: Schema.Array(Schema.Struct({ Name: Schema.String, Hash: Schema.String, Size: Schema.String })),
    /** CIDs whose shards were saved. */
    saved: Schema.Array(Schema.String),
    failed: Schema.Array(
      Schema.Struct({
        name: Schema.String,
        /** Empty when the node's answer had no entry for this file. */
        cid: Schema.String,
        reason: Schema.String,
        cause: Schema.optional(Schema.Defect()),
        /** The file's 5 shards, so the caller can retry `KeyShards.save`; redacted (3 of them give the key). */
        keyShards: Schema.Redacted(Schema.Array(KeyShard))
      })
    )
  }
) {
  override get message() {
    return "Error encrypting file"
  }
}

// =============================================================================
// Payment inputs and contract reverts
// =============================================================================

/** A price, quote or payment in a token the network does not list (or no token of that name at all). */
export class UnsupportedToken extends Schema.TaggedError<UnsupportedToken>()("UnsupportedToken", {
  network: Schema.String,
  token: Schema.String
}) {
  override get message() {
    return `Unsupported Token: ${this.token} on ${this.network}`
  }
}

/** A size or amount a payment cannot be made of: negative, fractional, or an amount of zero. */
export class InvalidPaymentInput extends Schema.TaggedError<InvalidPaymentInput>()("InvalidPaymentInput", {
  detail: Schema.String
}) {
  override get message() {
    return `Invalid payment input: ${this.detail}`
  }
}

/**
 * A contract reverted with a custom error outside `ContractErrorName`: one of the payment contract's
 * additive errors (`INVALID_AMOUNT`, `FUNCTION_NOT_FOUND`, `RENOUNCE_DISABLED`, the reentrancy guard's)
 * or a token's own (OpenZeppelin's `ERC20InsufficientBalance`…).
 */
export class OtherContractError extends Schema.TaggedError<OtherContractError>()("OtherContractError", {
  errorName: Schema.String,
  args: Schema.Array(Schema.Unknown)
}) {
  override get message() {
    return this.errorName
  }
}
