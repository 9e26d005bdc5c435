/**
 * Files errors. Files stored with the provider: deal proofs and refused uploads.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

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

/** The API host could not reach the content of a CID it was asked to pin. */
export class ContentUnreachable extends Schema.TaggedError<ContentUnreachable>()("ContentUnreachable", {
  cid: Schema.String
}) {
  override get message() {
    return `Content not reachable: ${this.cid}`
  }
}

/** The file is bigger than a PDP deal may be (the provider's limit is 100 MB); no request was made. */
export class PdpSizeLimitExceeded extends Schema.TaggedError<PdpSizeLimitExceeded>()("PdpSizeLimitExceeded", {
  cid: Schema.String,
  size: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `File too large for a PDP deal: ${this.size} bytes, the limit is ${this.limit}`
  }
}

/** No completed PDP deal for the CID appeared within the wait. */
export class PdpDealTimedOut extends Schema.TaggedError<PdpDealTimedOut>()("PdpDealTimedOut", {
  cid: Schema.String,
  waitedMillis: Schema.Number
}) {
  override get message() {
    return `No PDP deal for ${this.cid} after ${this.waitedMillis} ms`
  }
}
