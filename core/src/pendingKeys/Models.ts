/**
 * What the key journal keeps about an encrypted upload between the first byte sent and the last
 * shard saved: enough to finish the save (the shards, the owner, whom it is shared with) or to
 * find the stored file when the upload node never answered (its name, size, time and the salt at
 * the start of its ciphertext).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { KeyShard } from "../schema/KeyShard.ts"

/**
 * The shards as journaled: `plain` (the journal's own protection only: a 0600 file, the origin's
 * IndexedDB) or `sealed` for one signer: AES-256-GCM under a key derived by HKDF-SHA-256 from
 * that signer's EIP-191 signature of a fixed message (`Seal.ts`), base64 of IV ‖ ciphertext ‖ tag.
 *
 * @category schemas
 */
export const JournaledShards = Schema.Union([
  Schema.Struct({ plain: Schema.Array(KeyShard) }),
  Schema.Struct({ sealed: Schema.String })
])
/** @category models */
export type JournaledShards = typeof JournaledShards.Type

/**
 * One pending encrypted upload.
 *
 * @category schemas
 */
export const PendingEntry = Schema.Struct({
  version: Schema.Literal(1),
  /** Random; the journal's key for the entry. */
  id: Schema.String,
  /** The owner's address, lower-cased. */
  address: Schema.String,
  /** The name the file is stored under. */
  name: Schema.String,
  /** The plaintext's size, when known before sending (not for a stream). */
  size: Schema.NullOr(Schema.Number),
  shareTo: Schema.Array(Schema.String),
  /** Milliseconds since the epoch, before the first byte was sent. */
  createdAt: Schema.Number,
  /** The file's PBKDF2 salt (32 hex): the first 16 bytes of the stored ciphertext, how the file is recognised. */
  salt: Schema.String,
  /** The CID the upload node answered; absent until it did. */
  cid: Schema.optionalKey(Schema.String),
  shards: JournaledShards
}).annotate({ identifier: "PendingEntry" })
/** @category models */
export type PendingEntry = typeof PendingEntry.Type

/** The JSON text of an entry, as the journal stores it. */
export const PendingEntryJson = Schema.fromJsonString(PendingEntry)
