/**
 * Verification errors: content whose bytes do not match the CID it was stored or asked under.
 *
 * The client computes the CID of what it uploads and checks every block it downloads against the
 * CID it asked for, so a node or gateway that answers wrongly (a bad disk, a bug, a lie) is caught
 * and named instead of its bytes reaching the caller.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The upload node answered a CID other than the one the uploaded bytes have. The upload is
 * stored under the node's CID, but that CID does not address what was sent.
 */
export class CidMismatch extends Schema.TaggedError<CidMismatch>()("CidMismatch", {
  /** The entry's path in the upload (`""` for the wrapping directory). */
  path: Schema.String,
  /** The CID of the bytes sent, computed while sending them. */
  expected: Schema.String,
  /** The CID the node answered. */
  answered: Schema.String,
  /**
   * The IPIP-499 profile whose layout gives the bytes the answered CID, when it is one; `"unknown"`
   * when the bytes could not be read again to tell (a one-shot stream, an encrypted upload).
   */
  layout: Schema.optional(Schema.String)
}) {
  override get message() {
    const what = this.path === "" ? "the upload" : `"${this.path}"`
    const mismatch = `The node answered CID ${this.answered} for ${what}, but the bytes sent have CID ${this.expected}`
    if (this.layout === undefined) return mismatch
    return this.layout === "unknown"
      ? `${mismatch}: the layout the node used is unknown (the bytes cannot be read again to tell)`
      : `${mismatch}: the node appears to have laid them out with the ${this.layout} profile instead`
  }
}

/** What was wrong with an answer that failed verification. */
export const VerificationProblem = Schema.Literals([
  /** A block's bytes do not hash to its CID. */
  "block-hash-mismatch",
  /** A block the content needs was not in the answer. */
  "missing-block",
  /** A block arrived that is not the next block of the content. */
  "unexpected-block",
  /** Blocks followed the last block of the content. */
  "extra-block",
  /** The answer ended inside a block or its header. */
  "truncated",
  /** The answer is rooted at another CID than the one asked for. */
  "wrong-root",
  /** A block does not decode as the UnixFS node its CID and place say it is. */
  "malformed-block",
  /** A block is larger than any IPFS node accepts (2 MiB). */
  "block-too-large",
  /** The CID uses a hash function the client does not check. */
  "unsupported-hash",
  /** The CID (or the path in it) is not a file. */
  "not-a-file",
  /** The path names no entry of the folder. */
  "path-not-found"
])
export type VerificationProblem = typeof VerificationProblem.Type

/** Downloaded content failed verification; none of its unverified bytes were given out. */
export class ContentVerificationFailed extends Schema.TaggedError<ContentVerificationFailed>()(
  "ContentVerificationFailed",
  {
    /** The CID asked for. */
    cid: Schema.String,
    problem: VerificationProblem,
    /** The block concerned, when there is one. */
    block: Schema.optional(Schema.String),
    detail: Schema.String
  }
) {
  override get message() {
    return `Content ${this.cid} failed verification (${this.problem}): ${this.detail}`
  }
}

/** The gateway does not answer in a form the client can verify (a CAR or raw blocks). */
export class VerificationUnsupported extends Schema.TaggedError<VerificationUnsupported>()("VerificationUnsupported", {
  /** The URL asked. */
  url: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `The gateway cannot serve verifiable content: ${this.detail}`
  }
}

/**
 * A download that must be verified (the default, `verification: "required"`) met a gateway that
 * cannot answer verifiably (a refusal of `?format=car` or `?format=raw`, or an answer in another
 * format); no unverified byte was read. The message says how to accept unverified bytes instead.
 */
export class UnverifiableGateway extends Schema.TaggedError<UnverifiableGateway>()("UnverifiableGateway", {
  /** The URL asked. */
  url: Schema.String,
  /** What the gateway answered instead: a status (`406`) or a content type. */
  answer: Schema.String,
  /** The trustless format asked for (`car`, `raw`). */
  format: Schema.String
}) {
  override get message() {
    return (
      `The gateway cannot serve verifiable content (${this.answer} to ?format=${this.format}); ` +
      'pass verification: "if-supported" (CLI: --unverified) to accept unverified bytes'
    )
  }
}

/**
 * A resumed download's file on disk no longer matches its CID at the moment it would be published
 * (its size or its blocks differ: something else wrote to it meanwhile); it was left where it was,
 * not renamed into place.
 */
export class PublishCheckFailed extends Schema.TaggedError<PublishCheckFailed>()("PublishCheckFailed", {
  /** The CID downloaded. */
  cid: Schema.String,
  /** The file checked (`<path>.partial`). */
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `The download of ${this.cid} in ${this.path} does not match its CID and was not published: ${this.detail}`
  }
}
