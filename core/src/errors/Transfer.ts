/**
 * Transfers errors. Uploads and downloads: refused inputs, unreadable files, encrypted uploads whose shards were not all saved.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { causeSummary } from "./Describe.ts"

/**
 * A key shard's fields, `{ key, index }` as 64-hex strings. The wire format is checked by
 * `schema/KeyShard.ts` where shards are made and read; errors sit below every other module.
 */
const KeyShardFields = Schema.Struct({ key: Schema.String, index: Schema.String })

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
 * The upload node reset the connection before its answer could be read, while the request body
 * was being sent. A node that refuses an upload early (401, 402 over the quota, 413) and closes
 * the connection at once, instead of reading on, loses its answer with the connection: this says
 * so, rather than passing it off as a bare `Network error`. `code` is the transport's (`EPIPE`,
 * `ECONNRESET`); nothing the node may have answered is known.
 */
export class UploadConnectionReset extends Schema.TaggedError<UploadConnectionReset>()("UploadConnectionReset", {
  url: Schema.String,
  code: Schema.String,
  cause: Schema.Defect()
}) {
  /** A refusal stays one when retried; a reset on a bad link may not. */
  get isRetryable() {
    return true
  }
  override get message() {
    return (
      `The upload node reset the connection before its answer was read (${this.code}): ` +
      "an answer given while the upload was being sent, such as a refusal (401, 402 over the quota, 413), is lost with it"
    )
  }
}

/**
 * An encrypted upload reached the node, but the key shards of some of its files could not be
 * saved: those files are stored and cannot be decrypted by anyone until their shards are saved.
 * The catalogue's `Error encrypting file`, followed by the first failed file's cause (`Error
 * encrypting file: Invalid Signature`), with the whole picture: every uploaded entry, the CIDs
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
        keyShards: Schema.Redacted(Schema.Array(KeyShardFields))
      })
    )
  }
) {
  /** Why the first failed file's shards were not saved, on one line. */
  get firstCause(): string | undefined {
    const first = this.failed[0]
    if (first === undefined) return undefined
    return first.cause === undefined ? first.reason : causeSummary(first.cause)
  }
  override get message() {
    const cause = this.firstCause
    return cause === undefined ? "Error encrypting file" : `Error encrypting file: ${cause}`
  }
}

/**
 * Another download into the same file is running (in this process or another): two resumed
 * downloads of one path would write into one partial file. `toFile` holds `<path>.lock` (the
 * holder's process id inside) while it writes; a lock whose process is gone is taken over.
 */
export class DownloadInProgress extends Schema.TaggedError<DownloadInProgress>()("DownloadInProgress", {
  /** The download's target. */
  path: Schema.String,
  /** The lock file. */
  lock: Schema.String,
  /** The process holding it. */
  pid: Schema.Number
}) {
  override get message() {
    return `Another download into ${this.path} is in progress (process ${this.pid} holds ${this.lock})`
  }
}

/**
 * A download will not write through what is at one of its paths: a symbolic link (which could
 * point anywhere), a folder, a device. Only a regular file is resumed, adopted or replaced.
 */
export class NotARegularFile extends Schema.TaggedError<NotARegularFile>()("NotARegularFile", {
  path: Schema.String,
  /** What is there (`SymbolicLink`, `Directory`, …). */
  found: Schema.String
}) {
  override get message() {
    return `Refusing to download through ${this.path}: it is a ${this.found}, not a regular file`
  }
}

/** A folder's download was asked of content that is not a folder (a file, a symlink…). */
export class NotAFolder extends Schema.TaggedError<NotAFolder>()("NotAFolder", {
  cid: Schema.String,
  /** What the CID is (`file`, `symlink`, …). */
  found: Schema.String
}) {
  override get message() {
    return `${this.cid} is a ${this.found}, not a folder: download it as a file`
  }
}

/** A folder's download was asked into a path that is not a folder (a file, a link…). */
export class NotADirectoryTarget extends Schema.TaggedError<NotADirectoryTarget>()("NotADirectoryTarget", {
  path: Schema.String,
  /** What is there (`File`, `SymbolicLink`, …). */
  found: Schema.String
}) {
  override get message() {
    return `Refusing to download a folder into ${this.path}: it is a ${this.found}, not a folder`
  }
}

/** A file's download (its bytes, `cat`) was asked of a folder: it is downloaded into a directory, or listed. */
export class FolderNotAFile extends Schema.TaggedError<FolderNotAFile>()("FolderNotAFile", {
  /** The CID, with the path inside it when one was given. */
  address: Schema.String
}) {
  override get message() {
    return `${this.address} is a folder, not a file: download it into a directory, or list it`
  }
}

/** `Upload.sync` could not read or write its index of a folder (in the state directory). */
export class SyncIndexFailed extends Schema.TaggedError<SyncIndexFailed>()("SyncIndexFailed", {
  /** `read` or `write`. */
  operation: Schema.String,
  /** The index file. */
  location: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return `The sync index could not ${this.operation} ${this.location}`
  }
}

/** A file changed between the two reads of `Upload.sync` (its CID, then its blocks); nothing was stored. */
export class SyncSourceChanged extends Schema.TaggedError<SyncSourceChanged>()("SyncSourceChanged", {
  /** Its path inside the synced folder. */
  path: Schema.String
}) {
  override get message() {
    return `"${this.path}" changed while it was being synced; run the sync again`
  }
}

/**
 * Another `Upload.sync` of the same folder is running, in this process or another: two at once
 * could tear its index and history. `sync` holds `<index>.lock` (the holder's process id inside)
 * while it runs; a lock whose process is gone is taken over.
 */
export class SyncInProgress extends Schema.TaggedError<SyncInProgress>()("SyncInProgress", {
  /** The folder being synced. */
  directory: Schema.String,
  /** The lock file, beside the folder's index in the state directory. */
  lock: Schema.String,
  /** The process holding it. */
  pid: Schema.Number
}) {
  override get message() {
    return `Another sync of ${this.directory} is running (process ${this.pid} holds ${this.lock}); run this one once it has ended`
  }
}
