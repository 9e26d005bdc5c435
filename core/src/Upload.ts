/**
 * `Upload`: files, folders, text, bytes and CAR files to the upload node, plain or encrypted
 * on the client.
 *
 * Every upload is one `POST {node}/api/v0/add?wrap-with-directory=…&cid-version=…` (CAR files:
 * `/api/v0/dag/import`) with a streamed multipart body whose parts are all named `file`, and the
 * headers `Authorization: Bearer <apiKey>`, `Encryption` (`true`/`false`), `X-Deal-Parameter`
 * (the deal parameters as JSON, or `null`) and, when the type is known, `Mime-Type`.
 *
 * What differs from the provider, on purpose:
 * - One typed input model ({@link Input}) for Node paths, `File`/`Blob`s, bytes, text and streams,
 *   in every environment; a folder is a path or a list of files named by their relative paths.
 * - Bodies are streamed, files opened one at a time, encrypted uploads included: memory does not
 *   grow with the size of the upload.
 * - Progress is `{ bytesSent, totalBytes }` in bytes of the files' content (encrypted when the
 *   upload is; the multipart framing not counted), for every upload, in every environment.
 * - A refusal is `UploadRejected` with the node's own text (no `Error: ` prefix), else
 *   `Request failed with status code {n}`; `Network error` and `Request timed out` as the
 *   catalogue says; the time-out is the transfer time-out (7 200 000 ms).
 * - An encrypted upload whose shards cannot all be saved fails with `EncryptedUploadIncomplete`,
 *   which lists what was uploaded, which shards were saved and, for the others, the shards
 *   themselves (redacted) so the save can be retried: nothing is half-done silently.
 * - Verified: the CIDs of the bytes are computed as they are sent, and an answer naming another
 *   CID fails with `CidMismatch` (both CIDs named); `verify: false` takes the node's word. CAR
 *   imports carry their own CIDs: the node's answer must name exactly the roots of the CAR's
 *   header (`verify/UploadedCar.ts`).
 *
 * **Gotchas** In Node, give the service `NodeHttpClient.layerNodeHttp` (msw intercepts it too):
 * undici's `fetch` keeps a streamed request body in memory until the request ends (measured: 260
 * MiB more for a 256 MiB upload, against ~60 MiB of collectable garbage over `node:http`). In
 * browsers the body goes as one `Blob` ({@link BodyMode}).
 *
 * The work lives in `upload/`, one way down: `Plain.ts` and `Encrypted.ts` (the operations) take
 * the options, plan the inputs (`Plan.ts`: made ready to send), encrypt them (`Encrypted.ts`), and
 * hand one `AddRequest` to `Checked.ts`, which builds the wire request once (`Send.ts`: one
 * multipart request) and checks the answer against the CIDs of the bytes sent; a CAR import goes
 * to `Send.ts` directly. `Options.ts` holds the options and failures.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { PlatformError } from "effect/PlatformError"
import { Auth } from "./Auth.ts"
import type { SignInFailure } from "./auth/Models.ts"
import type { InvalidPublicKey, JournalFailed, SyncIndexFailed } from "./Errors.ts"
import * as Records from "./files/Records.ts"
import * as Hosts from "./internal/Hosts.ts"
import { KeyShards } from "./KeyShards.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import { PendingKeys } from "./PendingKeys.ts"
import * as Memory from "./pendingKeys/Memory.ts"
import * as Encrypted from "./upload/Encrypted.ts"
import * as Input from "./upload/Input.ts"
import {
  type CarOptions,
  type CarRoot,
  type EncryptedNamedOptions,
  type EncryptedUploadFailure,
  type EncryptionOptions,
  type FileOptions,
  FileReads,
  type FolderEntry,
  type NamedOptions,
  type Options,
  type RepairOptions,
  type UploadedEntry,
  type UploadFailure
} from "./upload/Options.ts"
import * as Plain from "./upload/Plain.ts"
import * as Progress from "./upload/Progress.ts"
import * as Repair from "./upload/Repair.ts"
import * as Sync from "./upload/Sync.ts"

export { SaveGrace } from "./upload/Journal.ts"
export * from "./upload/Options.ts"
export type { RepairOutcome } from "./upload/Repair.ts"
export {
  Snapshot,
  type SyncFailure,
  SyncHistoryOptions,
  SyncOptions,
  SyncResult
} from "./upload/Sync.ts"
export { Input, Progress }

// =============================================================================
// Service
// =============================================================================

/** @category models */
export interface Service {
  /** Uploads one file; the result is its entry (or the wrapping directory's). */
  readonly file: (input: Input.FileInput, options: FileOptions) => Effect.Effect<UploadedEntry, UploadFailure>
  /**
   * Uploads a folder; the result is the folder's entry. A list of files whose names do not share
   * a first segment is wrapped in a directory, whose entry (named `""`) is the result.
   */
  readonly folder: (input: Input.FolderInput, options: Options) => Effect.Effect<FolderEntry, UploadFailure>
  /** Uploads text as a UTF-8 file. */
  readonly text: (text: string, options: NamedOptions) => Effect.Effect<UploadedEntry, UploadFailure>
  /** Uploads bytes as a file. */
  readonly buffer: (bytes: Uint8Array, options: NamedOptions) => Effect.Effect<UploadedEntry, UploadFailure>
  /** Imports a CAR file (`.car`) with `POST /api/v0/dag/import`; the result is the node's answer, one item per root. */
  readonly car: (input: Input.FileInput, options: CarOptions) => Effect.Effect<ReadonlyArray<CarRoot>, UploadFailure>
  /** Encrypts and uploads one file, then saves its key shards under the returned CID. */
  readonly encryptedFile: (
    input: Input.FileInput,
    options: EncryptionOptions
  ) => Effect.Effect<UploadedEntry, EncryptedUploadFailure>
  /**
   * Encrypts and uploads several files (a folder, or a list), each with its own key, in one
   * request; each becomes its own CID, named by its path inside the folder with `/` → `-`.
   */
  readonly encryptedFiles: (
    input: Input.FolderInput | ReadonlyArray<Input.FileInput>,
    options: EncryptionOptions
  ) => Effect.Effect<ReadonlyArray<UploadedEntry>, EncryptedUploadFailure>
  /** Encrypts and uploads text. */
  readonly encryptedText: (
    text: string,
    options: EncryptedNamedOptions
  ) => Effect.Effect<UploadedEntry, EncryptedUploadFailure>
  /** Encrypts and uploads bytes. */
  readonly encryptedBuffer: (
    bytes: Uint8Array,
    options: EncryptedNamedOptions
  ) => Effect.Effect<UploadedEntry, EncryptedUploadFailure>
  /**
   * Finishes the encrypted uploads the key journal (`PendingKeys`) holds for the owner: saves the
   * shards of stored files, drops the entries of uploads that never completed, deletes files that
   * were stored but never acknowledged when `deleteOrphans` is set. Each entry's outcome, oldest first.
   */
  readonly repair: (options: RepairOptions) => Effect.Effect<ReadonlyArray<Repair.RepairOutcome>, RepairFailure>
  /**
   * Stores a snapshot of a folder on disk (Node), sending only what the node lacks: each file's
   * CID computed locally (unchanged files known from the index in `stateDirectory`), the new
   * files' blocks and the new folder nodes in one CAR through `dag/import`, or the whole folder
   * when the node refuses that CAR (`mode: "full"`). The snapshot is a plain UnixFS folder CID.
   */
  readonly sync: (directory: string, options: Sync.SyncOptions) => Effect.Effect<Sync.SyncResult, Sync.SyncFailure>
  /** The snapshots `sync` stored of a folder, oldest first. */
  readonly syncHistory: (
    directory: string,
    options: Sync.SyncHistoryOptions
  ) => Effect.Effect<ReadonlyArray<Sync.Snapshot>, SyncIndexFailed | PlatformError>
}

/** Why `repair` failed as a whole (an entry that cannot be finished is an outcome, not a failure). */
export type RepairFailure = SignInFailure | InvalidPublicKey | JournalFailed

/**
 * Uploads to the provider's upload node.
 *
 * @category services
 */
export class Upload extends Context.Service<Upload, Service>()("lighthouse-effect/Upload") {}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the service from the HTTP client, the configuration, a file system, the key nodes and sign-in.
 *
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const plain: Plain.PlainDeps = {
    hosts: Hosts.make(yield* LighthouseConfig, yield* HttpClient.HttpClient),
    fs: yield* FileSystem.FileSystem,
    fileReads: yield* FileReads
  }
  // The journal given to the layer, else one in memory; a caller's own `PendingKeys` wins per call.
  const journal = Option.getOrElse(yield* Effect.serviceOption(PendingKeys), Memory.make)
  const repairing: Repair.RepairDeps = {
    ...plain,
    keyShards: yield* KeyShards,
    auth: yield* Auth,
    journal,
    finishPending: (options, journal) => Repair.finishPending(repairing, options, journal),
    uploads: (apiKey) => Records.uploads(plain.hosts, apiKey),
    deleteFile: (apiKey, id) => Records.deleteFile(plain.hosts, apiKey, id)
  }
  const encrypted: Encrypted.EncryptedDeps = repairing
  return Upload.of({
    file: (input, options) => Plain.file(plain, input, options),
    folder: (input, options) => Plain.folder(plain, input, options),
    text: (text, options) => Plain.text(plain, text, options),
    buffer: (bytes, options) => Plain.buffer(plain, bytes, options),
    car: (input, options) => Plain.car(plain, input, options),
    encryptedFile: (input, options) => Encrypted.encryptedFile(encrypted, input, options),
    encryptedFiles: (input, options) => Encrypted.encryptedFiles(encrypted, input, options),
    encryptedText: (text, options) => Encrypted.encryptedText(encrypted, text, options),
    encryptedBuffer: (bytes, options) => Encrypted.encryptedBuffer(encrypted, bytes, options),
    repair: (options) => Repair.repair(repairing, options),
    sync: (directory, options) => Sync.sync(plain, directory, options),
    syncHistory: (directory, options) => Sync.history(plain, directory, options)
  })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient`, `LighthouseConfig`, a `FileSystem` (Node's for paths; in a
 * browser, `FileSystem.layerNoop({})`), `KeyShards` and `Auth` (for encrypted uploads; `Auth` signs a
 * `signer` in).
 *
 * @category layers
 */
export const layer: Layer.Layer<
  Upload,
  never,
  HttpClient.HttpClient | LighthouseConfig | FileSystem.FileSystem | KeyShards | Auth
> = Layer.effect(Upload, make)
