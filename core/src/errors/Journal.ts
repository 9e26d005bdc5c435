/**
 * Journal errors: the caller-side record of encrypted uploads whose key shards are not yet saved
 * on all 5 key nodes (`PendingKeys`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The journal could not be read or written (a file system failure, a store that refused). */
export class JournalFailed extends Schema.TaggedError<JournalFailed>()("JournalFailed", {
  /** `write`, `remove`, `list`. */
  operation: Schema.String,
  /** Where: the file or the store. */
  location: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return `The key journal could not ${this.operation} ${this.location}`
  }
}

/**
 * An entry sealed for a signer could not be opened: another signer, or one whose signatures are
 * not deterministic. The entry is left where it is.
 */
export class JournalEntrySealed extends Schema.TaggedError<JournalEntrySealed>()("JournalEntrySealed", {
  id: Schema.String
}) {
  override get message() {
    return `The journal entry ${this.id} is sealed for another signer`
  }
}

/**
 * Before an encrypted upload, the journal held entries of the account that could not be finished
 * (the key nodes or the API unreachable, a sealed entry): nothing was sent. `lighthouse-effect
 * repair` (`Upload.repair`) finishes them once the cause is gone.
 */
export class PendingKeysUnfinished extends Schema.TaggedError<PendingKeysUnfinished>()("PendingKeysUnfinished", {
  entries: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      name: Schema.String,
      /** Empty when the upload node never acknowledged the upload. */
      cid: Schema.String,
      reason: Schema.String
    })
  )
}) {
  override get message() {
    const first = this.entries[0]
    const what =
      first === undefined ? "" : `: ${first.name}${first.cid === "" ? "" : ` (${first.cid})`}, ${first.reason}`
    return `${this.entries.length} earlier encrypted upload(s) of this account could not be finished${what}; run \`lighthouse-effect repair\` (Upload.repair)`
  }
}
