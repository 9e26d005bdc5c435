/**
 * What uploads take and how they fail: options of every kind of upload, the deal parameters,
 * the body mode and the failure unions.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type { PlatformError } from "effect/PlatformError"
import * as Schema from "effect/Schema"
import type { SignInFailure } from "../auth/Models.ts"
import type {
  AuthTokenMustBeJwt,
  CidMismatch,
  DuplicateFileName,
  EncryptedUploadIncomplete,
  FileStreamError,
  InvalidPublicKey,
  InvalidUploadInput,
  JournalFailed,
  PendingKeysUnfinished,
  RequestFailed,
  TransportFailure,
  UnreadableEntry,
  UploadConnectionReset,
  UploadRejected
} from "../Errors.ts"
import { UnreadableReason } from "../Errors.ts"
import { isNode } from "../internal/runtime.ts"
import { Credential } from "../schema/Credential.ts"
import { owned } from "../schema/Owner.ts"
import { StorageType } from "../schema/Walrus.ts"
import type * as Progress from "./Progress.ts"
import type * as Response from "./Response.ts"

/** One entry of the node's answer: `{ Name, Hash, Size }` (`Size` is a decimal string). */
export type UploadedEntry = Response.UploadedEntry

/**
 * An entry of a folder on disk left out of an upload because it cannot be read (a folder input
 * made with `skipUnreadable: true`): its path inside the folder, `/`-separated, and why.
 *
 * @category schemas
 */
export const SkippedEntry = Schema.Struct({ path: Schema.String, reason: UnreadableReason })
/** @category models */
export type SkippedEntry = typeof SkippedEntry.Type

/**
 * What `Upload.folder` answers: the folder's entry and, when the folder on disk was given with
 * `skipUnreadable: true`, the entries left out (`[]` when none were).
 */
export type FolderEntry = UploadedEntry & { readonly skipped?: ReadonlyArray<SkippedEntry> }

/** One root of a CAR import: `{ Root: { Cid: { "/": cid } } }` (and `Name`, `Hash`, `Size` when the node adds them). */
export type CarRoot = Response.CarRoot

/**
 * Deal parameters, sent as the `X-Deal-Parameter` header as JSON (`null` when none are given).
 *
 * @category schemas
 */
export const DealParameters = Schema.Struct({
  miner: Schema.optional(Schema.Array(Schema.String)),
  num_copies: Schema.optional(Schema.Number),
  repair_threshold: Schema.optional(Schema.Number),
  renew_threshold: Schema.optional(Schema.Number),
  deal_duration: Schema.optional(Schema.Number),
  network: Schema.optional(Schema.String)
})
/** @category models */
export type DealParameters = typeof DealParameters.Type

/** A progress callback: any function (what it returns is `void` or an `Effect`). */
const OnProgress = Schema.declare((u: unknown): u is Progress.OnProgress => typeof u === "function", {
  expected: "a function"
})

/** What every upload takes but where it is stored. */
const commonFields = {
  /** The account's API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: Credential,
  /** CID version of the result. @default 1 */
  cidVersion: Schema.optional(Schema.Literals([0, 1])),
  /** Sent as `X-Deal-Parameter` (JSON). @default null (the header says `null`) */
  dealParameters: Schema.optional(Schema.NullOr(DealParameters)),
  /** Progress of the files' content: bytes sent of their total. */
  onProgress: Schema.optional(OnProgress),
  /**
   * The UnixFS layout (IPIP-499): `unixfs-v0-2015`, kubo's defaults (256 KiB chunks, 174 links);
   * `unixfs-v1-2025`, 1 MiB chunks, 1024 links, raw leaves, folders sharded by block size. Sent
   * with every `add` as kubo's `chunker`, `raw-leaves` and `max-file-links`.
   * @default "unixfs-v0-2015"
   */
  profile: Schema.optional(Schema.Literals(["unixfs-v0-2015", "unixfs-v1-2025"])),
  /**
   * Computes the CIDs of the bytes as they are sent and fails with `CidMismatch` when the node
   * answers another (about 1.5 s of CPU per GiB, mostly SHA-256). `false` trusts the node's answer.
   * @default true
   */
  verify: Schema.optional(Schema.Boolean)
}

const storageFields = {
  /**
   * `walrus` stores on Walrus: the upload goes to the Walrus upload node, counts against the
   * Walrus quota, and is read back from the Walrus gateway. Sent as `X-Storage-Type`. @default IPFS
   */
  storageType: Schema.optional(StorageType)
}

const namedFields = {
  /** The file's name. @default `"text"` for text, `"blob"` for bytes (the provider's names) */
  name: Schema.optional(Schema.String),
  /** `Mime-Type` header. @default `text/plain` for text, none for bytes */
  mimeType: Schema.optional(Schema.String)
}

/**
 * Options every upload takes.
 *
 * @category schemas
 */
export const Options = Schema.Struct({ ...commonFields, ...storageFields })
/** @category models */
export type Options = typeof Options.Type

/**
 * Options of `Upload.file`.
 *
 * @category schemas
 */
export const FileOptions = Schema.Struct({
  ...commonFields,
  ...storageFields,
  /** Wraps the file in a directory; the result is then the directory's entry. @default false */
  wrapWithDirectory: Schema.optional(Schema.Boolean),
  /** `Mime-Type` header. @default the `Blob`'s type, else from the name's extension */
  mimeType: Schema.optional(Schema.String)
})
/** @category models */
export type FileOptions = typeof FileOptions.Type

/**
 * Options of `Upload.text` and `Upload.buffer`.
 *
 * @category schemas
 */
export const NamedOptions = Schema.Struct({ ...commonFields, ...storageFields, ...namedFields })
/** @category models */
export type NamedOptions = typeof NamedOptions.Type

/**
 * Options of `Upload.car`: a CAR carries its own CIDs, so no CID version. `verify` reads the roots
 * of the CAR's header as it is sent and fails with `CidMismatch` unless the node answers exactly
 * those.
 *
 * @category schemas
 */
export const CarOptions = Schema.Struct({
  apiKey: commonFields.apiKey,
  dealParameters: commonFields.dealParameters,
  onProgress: commonFields.onProgress,
  verify: commonFields.verify,
  ...storageFields
})
/** @category models */
export type CarOptions = typeof CarOptions.Type

/** The options of an encrypted upload with `extra` fields, for either owner. */
const encryption = <const Extra extends Schema.Struct.Fields>(extra: Extra) =>
  owned({
    ...commonFields,
    ...extra,
    /** Addresses the files are shared with as they are saved. */
    shareTo: Schema.optional(Schema.Array(Schema.String))
  })

/**
 * Options of encrypted uploads: who owns the files (`Owner`) and whom they are
 * shared with. With more than one file a given `token` must be a JWT (a signed message is
 * single-use). Encrypted files are stored on IPFS only, as with the provider's SDK (it never
 * routes them to Walrus).
 *
 * @category schemas
 */
export const EncryptionOptions = encryption({})
/** @category models */
export type EncryptionOptions = typeof EncryptionOptions.Type

const repairFields = {
  apiKey: commonFields.apiKey,
  /**
   * A file the upload node stored but never acknowledged is deleted from the account instead of
   * having its shards saved. @default false
   */
  deleteOrphans: Schema.optional(Schema.Boolean)
}

/**
 * Options of `Upload.repair`: the account (its API key) and the owner, as an encrypted upload takes it.
 *
 * @category schemas
 */
export const RepairOptions = owned(repairFields)
/** @category models */
export type RepairOptions = typeof RepairOptions.Type

/**
 * Options of `Upload.encryptedText` and `Upload.encryptedBuffer`.
 *
 * @category schemas
 */
export const EncryptedNamedOptions = encryption(namedFields)
/** @category models */
export type EncryptedNamedOptions = typeof EncryptedNamedOptions.Type

/**
 * How request bodies are sent: `stream` (a `ReadableStream`, constant memory, progress as the
 * transport pulls; Node, Deno, Bun, Chromium over HTTP/2) or `blob` (one `Blob`: what every
 * browser's `fetch` can send; `File`s are not read into memory, other content is; progress only
 * at the start and the end). By default `stream` in Node and `blob` elsewhere.
 *
 * @category references
 */
export const BodyMode = Context.Reference<"stream" | "blob">("lighthouse-effect/Upload/BodyMode", {
  defaultValue: () => (isNode ? "stream" : "blob")
})

/**
 * How files on disk are read for an upload: `fresh`, into a new buffer per read (256 KiB), or
 * `reused`, into two 1 MiB buffers taken in turn, so an upload allocates nothing per read. In Node
 * the fresh buffers cost more CPU than the transfer itself: each is new `ArrayBuffer` memory, which
 * V8 answers with full collections of the whole heap (BENCHMARKS.md, "Against the wire").
 *
 * `reused` is right only where whoever pulls the content is done with a chunk once it has pulled the
 * next one: Effect's `node:http` client (it pulls again only when Node took a write whole or the
 * request drained) and the cipher of an encrypted upload (it reads each chunk as it is pulled).
 * `fetch` is not (undici keeps a streamed body's chunks until the request ends), nor is the `blob`
 * body mode, which gathers the chunks. `LighthouseNode.layer` sets it on Node itself (not on Bun
 * or Deno, whose `node:http` runs on their `fetch`); read once, when the `Upload` service is built.
 *
 * **Gotchas** An interceptor in front of `node:http` that keeps written chunks breaks that promise:
 * msw keeps the first writes of a request it has not yet matched, to replay them to the real host
 * if no handler answers. With msw passing requests through (`onUnhandledRequest: "bypass"`) to a
 * real upload node, build the layer with `FileReads` `fresh` (`LighthouseNode.layer({ fileReads: "fresh" })`).
 * (Requests msw answers are safe: its parser copies what it reads.)
 *
 * @category references
 */
export const FileReads = Context.Reference<FileReads>("lighthouse-effect/Upload/FileReads", {
  defaultValue: () => "fresh"
})
/** @category models */
export type FileReads = "fresh" | "reused"

/** Why a plain upload failed. */
export type UploadFailure =
  | CidMismatch
  | UploadRejected
  | RequestFailed
  | TransportFailure
  | InvalidUploadInput
  | FileStreamError
  | UploadConnectionReset
  | UnreadableEntry
  | PlatformError

/** Why an encrypted upload failed (signing in included, when a signer is given). */
export type EncryptedUploadFailure =
  | UploadFailure
  | SignInFailure
  | InvalidPublicKey
  | DuplicateFileName
  | AuthTokenMustBeJwt
  | EncryptedUploadIncomplete
  | JournalFailed
  | PendingKeysUnfinished
