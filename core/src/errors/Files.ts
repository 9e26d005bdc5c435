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
