/**
 * What uploads take and how they fail: options of every kind of upload, the deal parameters,
 * the body mode and the failure unions.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type { PlatformError } from "effect/PlatformError"
import type { SignInFailure } from "../auth/Models.ts"
import type {
  AuthTokenMustBeJwt,
  CidMismatch,
  DuplicateFileName,
  EncryptedUploadIncomplete,
  FileStreamError,
  InvalidPublicKey,
  InvalidResponse,
  InvalidUploadInput,
  NetworkError,
  RequestFailed,
  RequestTimedOut,
  UploadRejected
} from "../Errors.ts"
import type { Credential } from "../schema/Credential.ts"
import type { Signer } from "../Signer.ts"
import { isNode } from "../internal/runtime.ts"
import type { StorageType } from "../schema/Walrus.ts"
import type * as Progress from "./Progress.ts"
import type * as Response from "./Response.ts"

/** One entry of the node's answer: `{ Name, Hash, Size }` (`Size` is a decimal string). */
export type UploadedEntry = Response.UploadedEntry

/** One root of a CAR import: `{ Root: { Cid: { "/": cid } } }` (and `Name`, `Hash`, `Size` when the node adds them). */
export type CarRoot = Response.CarRoot

/** Deal parameters, sent as the `X-Deal-Parameter` header as JSON (`null` when none are given). */
export interface DealParameters {
  readonly miner?: ReadonlyArray<string> | undefined
  readonly num_copies?: number | undefined
  readonly repair_threshold?: number | undefined
  readonly renew_threshold?: number | undefined
  readonly deal_duration?: number | undefined
  readonly network?: string | undefined
}

/** Options every upload takes. */
export interface Options {
  /** The account's API key, sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: Credential
  /** CID version of the result. @default 1 */
  readonly cidVersion?: 0 | 1 | undefined
  /** Sent as `X-Deal-Parameter` (JSON). @default null (the header says `null`) */
  readonly dealParameters?: DealParameters | null | undefined
  /** Progress of the request body. */
  readonly onProgress?: Progress.OnProgress | undefined
  /**
   * `walrus` stores on Walrus: the upload goes to the Walrus upload node, counts against the
   * Walrus quota, and is read back from the Walrus gateway. Sent as `X-Storage-Type`. @default IPFS
   */
  readonly storageType?: StorageType | undefined
  /**
   * Computes the CIDs of the bytes as they are sent and fails with `CidMismatch` when the node
   * answers another (about 1.5 s of CPU per GiB, mostly SHA-256). `false` trusts the node's answer.
   * @default true
   */
  readonly verify?: boolean | undefined
}

/** Options of `Upload.file`. */
export interface FileOptions extends Options {
  /** Wraps the file in a directory; the result is then the directory's entry. @default false */
  readonly wrapWithDirectory?: boolean | undefined
  /** `Mime-Type` header. @default the `Blob`'s type, else from the name's extension */
  readonly mimeType?: string | undefined
}

/** Options of `Upload.text` and `Upload.buffer`. */
export interface NamedOptions extends Options {
  /** The file's name. @default `"text"` for text, `"blob"` for bytes (the provider's names) */
  readonly name?: string | undefined
  /** `Mime-Type` header. @default `text/plain` for text, none for bytes */
  readonly mimeType?: string | undefined
}

/** Options of `Upload.car`. */
export interface CarOptions {
  readonly apiKey: Credential
  readonly dealParameters?: DealParameters | null | undefined
  readonly onProgress?: Progress.OnProgress | undefined
  /** `walrus` imports the CAR on the Walrus upload node. @default IPFS */
  readonly storageType?: StorageType | undefined
  /**
   * Reads the roots of the CAR's header as it is sent and fails with `CidMismatch` unless the node
   * answers exactly those. `false` trusts the node's answer. @default true
   */
  readonly verify?: boolean | undefined
}

/**
 * Who owns encrypted files, said one of two ways, as decrypting downloads take it: a signer, which
 * the upload signs in with (`Auth.token`, a cached JWT), or an address and a key-node token the
 * caller obtained.
 */
export type EncryptionOwner =
  | {
      /** Signs in to the key nodes; its address owns the files. */
      readonly signer: Signer["Service"]
      readonly address?: undefined
      readonly token?: undefined
    }
  | {
      /** The owner: an EVM address or a 44-character base58 key. */
      readonly address: string
      /**
       * The key nodes' bearer token: a signed auth message, or a JWT. With more than one file it
       * must be a JWT (a signed message is single-use).
       */
      readonly token: Credential
      readonly signer?: undefined
    }

/**
 * Options of encrypted uploads: who owns the files ({@link EncryptionOwner}) and whom they are
 * shared with. Encrypted files are stored on IPFS only, as with the provider's SDK (it never
 * routes them to Walrus).
 */
export type EncryptionOptions = Omit<Options, "storageType"> &
  EncryptionOwner & {
    /** Addresses the files are shared with as they are saved. */
    readonly shareTo?: ReadonlyArray<string> | undefined
  }

/** Options of `Upload.encryptedText` and `Upload.encryptedBuffer`. */
export type EncryptedNamedOptions = EncryptionOptions & {
  /** @default `"text"` for text, `"blob"` for bytes */
  readonly name?: string | undefined
  /** `Mime-Type` header. @default `text/plain` for text, none for bytes */
  readonly mimeType?: string | undefined
}

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

/** Why a plain upload failed. */
export type UploadFailure =
  | CidMismatch
  | UploadRejected
  | RequestFailed
  | NetworkError
  | RequestTimedOut
  | InvalidResponse
  | InvalidUploadInput
  | FileStreamError
  | PlatformError

/** Why an encrypted upload failed (signing in included, when a signer is given). */
export type EncryptedUploadFailure =
  | UploadFailure
  | SignInFailure
  | InvalidPublicKey
  | DuplicateFileName
  | AuthTokenMustBeJwt
  | EncryptedUploadIncomplete
