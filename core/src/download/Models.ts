/**
 * What downloads take, and how they fail.
 *
 * @since 0.1.0
 */

import type { PlatformError } from "effect/PlatformError"
import * as Schema from "effect/Schema"
import type { SignInFailure } from "../Auth.ts"
import type {
  AllSourcesFailed,
  CipherWorkerFailed,
  ContentVerificationFailed,
  DecryptionFailed,
  DownloadInProgress,
  HttpStatusError,
  InvalidArgument,
  InvalidCid,
  NotADirectoryTarget,
  NotAFolder,
  NotARegularFile,
  PublishCheckFailed,
  TransportFailure,
  UnverifiableGateway,
  VerificationUnsupported
} from "../Errors.ts"
import type { FetchKeyFailure } from "../KeyShards.ts"
import { Credential } from "../schema/Credential.ts"
import { AddressOwner, SignerOwner } from "../schema/Owner.ts"
import { Fields } from "../schema/Shape.ts"
import { StorageType } from "../schema/Walrus.ts"
import type { VerificationReport as Verification } from "../verify/Retrieval.ts"
import { type SourceReport, sourceFields } from "./SourceOptions.ts"

export { expandSources, publicGateways, sourceNames } from "./SourceOptions.ts"
export type { SourceReport }

/** What a download's verification came to; with `sources`, what each source did. */
export type VerificationReport = Verification & { readonly sources?: ReadonlyArray<SourceReport> }

const recoveryFields = {
  /** Values the file's access conditions are evaluated with. */
  dynamicData: Schema.optional(Fields)
}

/**
 * How to decrypt: with the file's master key (64-hex, plain or `Redacted`), or as an owner
 * (`Auth.Owner`: a signer, which signs in through `Auth.token`, or an address and its key-node
 * token) entitled to recover the key from 3 key nodes (`KeyShards.fetchKey`).
 *
 * @category schemas
 */
export const Decryption = Schema.Union([
  Schema.Struct({ masterKey: Credential }),
  Schema.Struct({ ...SignerOwner.fields, ...recoveryFields }),
  Schema.Struct({ ...AddressOwner.fields, ...recoveryFields })
])
/** @category models */
export type Decryption = typeof Decryption.Type

/**
 * `length` bytes from `offset` (to the end without a length).
 *
 * @category schemas
 */
export const ByteRange = Schema.Struct({ offset: Schema.Number, length: Schema.optional(Schema.Number) })
/** @category models */
export type ByteRange = typeof ByteRange.Type

const optionFields = {
  /** Gateway host for this call. @default the configured gateway */
  gateway: Schema.optional(Schema.String),
  /** A file inside the CID when it is a folder (`sub/file.txt`). */
  path: Schema.optional(Schema.String),
  /**
   * `walrus`: content stored on Walrus, read from the Walrus gateway as `GET /ipfs/{cid}[/{path}]`
   * (`gateway` then overrides the configured Walrus gateway). @default "ipfs"
   */
  storageType: Schema.optional(StorageType),
  /**
   * Only these bytes of the file (of the plaintext when decrypting, which still reads the whole
   * file: its tag covers it all). Verified, only the blocks that hold them are fetched.
   */
  range: Schema.optional(ByteRange),
  /**
   * `required`: only bytes verified against the CID, or a failure (`UnverifiableGateway` from a
   * gateway that cannot answer verifiably). Unverified bytes only when asked by name:
   * `if-supported` falls back to the gateway's `cat` and the result says `verified: false`;
   * `off` never verifies. Unverified reading is of one gateway: refused with several sources and
   * with `strategy: "split"`. @default "required"
   */
  verification: Schema.optional(Schema.Literals(["required", "if-supported", "off"])),
  /** One CAR (`car`) or a request per block (`raw`); refused with `verification: "off"`. @default "car" */
  trustless: Schema.optional(Schema.Literals(["car", "raw"])),
  ...sourceFields
}

/**
 * Options of every download. By default (`verification: "required"`) the content comes from
 * the gateway's trustless answer (`GET /ipfs/{cid}?format=car`) and every block is checked
 * against the CID before its bytes go out; a gateway that cannot answer so fails the download
 * (`UnverifiableGateway`). With `verification: "if-supported"` such a gateway is read unverified
 * (`POST /api/v0/cat/{cid}`), and the report says so.
 *
 * @category schemas
 */
export const Options = Schema.Struct(optionFields)
/** @category models */
export type Options = typeof Options.Type

/**
 * Options of downloads that may decrypt.
 *
 * @category schemas
 */
export const DecryptOptions = Schema.Struct({
  ...optionFields,
  /** Decrypts the content (stored in the provider's encrypted layout). */
  decrypt: Schema.optional(Decryption)
})
/** @category models */
export type DecryptOptions = typeof DecryptOptions.Type

/**
 * Options of `toFile`. With `resume: true` an interrupted download keeps what it verified in
 * `<path>.partial`, and the next call goes on after it: the bytes already there (or, for a plain
 * file, in an existing file at `path`) are first checked against the file's DAG, block by block,
 * and only the part after the last verified byte is fetched. The partial file holds the bytes as
 * stored: with `decrypt`, ciphertext, decrypted into the target once whole and once its tag
 * checks (so no plaintext is kept before that). A plain download with a `range` is not resumed
 * (refused: `InvalidArgument`). Off
 * by default, so a call never reads nor keeps files it was not asked to (`<path>.partial` is a
 * fixed name).
 *
 * @category schemas
 */
export const ToFileOptions = Schema.Struct({
  ...DecryptOptions.fields,
  /** Goes on from a partial download already on disk, after checking it. @default false */
  resume: Schema.optional(Schema.Boolean)
})
/**
 * How far a `toFile` download is: the bytes written into the file so far (the stored bytes, or
 * the plaintext when decrypting).
 *
 * @category models
 */
export interface FileProgress {
  readonly bytesWritten: number
}

/** @category models */
export type ToFileOptions = typeof ToFileOptions.Type & {
  /**
   * Called after each write into the file (every 256 KiB, and the last), without `resume`: a
   * resumed download first checks what is on disk, whose bytes this does not count.
   */
  readonly onProgress?: ((progress: FileProgress) => void) | undefined
}

/**
 * Why fetching the bytes failed. `InvalidArgument`: options the download cannot honour together
 * (e.g. `verification: "off"` with several sources), refused before any request.
 */
export type FetchFailure =
  | InvalidArgument
  | InvalidCid
  | HttpStatusError
  | TransportFailure
  | ContentVerificationFailed
  | VerificationUnsupported
  | UnverifiableGateway
  | AllSourcesFailed

/** Why a decrypting download failed (`CipherWorkerFailed`: the web cipher's Workers, not on Node). */
export type DecryptFailure = FetchFailure | DecryptionFailed | CipherWorkerFailed | FetchKeyFailure | SignInFailure

/**
 * Why `toFile` failed: besides a download's failures, another download into the same path
 * (`DownloadInProgress`), a link or other non-regular file where the download would write
 * (`NotARegularFile`), or a resumed file that no longer matches the CID when it would be
 * published (`PublishCheckFailed`).
 */
export type ToFileFailure = DecryptFailure | DownloadInProgress | NotARegularFile | PublishCheckFailed

/**
 * Options of `toDirectory`: the gateway to read the folder's CAR from, and whether an existing
 * file whose bytes are not the folder's is replaced (`force`; without it, it is skipped and
 * reported). A file whose bytes are the folder's is kept either way.
 *
 * @category schemas
 */
export const ToDirectoryOptions = Schema.Struct({
  /** Gateway host for this call. @default the configured gateway */
  gateway: Schema.optional(Schema.String),
  /** A folder inside the CID (`photos/2024`): its tree is downloaded. */
  path: Schema.optional(Schema.String),
  /** Replaces existing files whose bytes differ from the folder's. @default false */
  force: Schema.optional(Schema.Boolean)
})
/** @category models */
export type ToDirectoryOptions = typeof ToDirectoryOptions.Type & {
  /** Called as verified bytes are written and as files are completed. */
  readonly onProgress?: ((progress: TreeProgress) => void) | undefined
}

/**
 * Options of `list`: the gateway, and whether the whole tree is listed (else the folder's own entries).
 *
 * @category schemas
 */
export const ListOptions = Schema.Struct({
  /** Gateway host for this call. @default the configured gateway */
  gateway: Schema.optional(Schema.String),
  /** A folder inside the CID (`photos/2024`): its entries are listed. */
  path: Schema.optional(Schema.String),
  /** Lists every entry of the tree, not only the folder's own. @default false */
  recursive: Schema.optional(Schema.Boolean)
})
/** @category models */
export type ListOptions = typeof ListOptions.Type

/**
 * An entry of a folder's listing: its `/`-separated path inside the folder, a file (its size) or
 * a folder (their CIDs), or an entry refused as `toDirectory` would refuse it (why).
 */
export type TreeEntry =
  | { readonly path: string; readonly type: "file"; readonly cid: string; readonly size: number }
  | { readonly path: string; readonly type: "folder"; readonly cid: string }
  | { readonly path: string; readonly type: "refused"; readonly reason: string }

/** How far a folder's download is: verified bytes of its files, and files complete. */
export interface TreeProgress {
  readonly bytes: number
  readonly files: number
}

/**
 * What `toDirectory` did: files written, files kept (already there with the folder's bytes), and
 * entries skipped, each with why (a refused name, a symlink, a file already there…). Paths are
 * relative to the directory, `/`-separated.
 */
export interface TreeReport {
  readonly cid: string
  readonly bytes: number
  readonly files: number
  readonly written: ReadonlyArray<string>
  readonly kept: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly reason: string }>
}

/**
 * Why `toDirectory` failed: besides a download's failures, content that is not a folder
 * (`NotAFolder`), a target that is not a directory (`NotADirectoryTarget`), or another download
 * into the same directory (`DownloadInProgress`).
 */
export type TreeFailure = FetchFailure | NotAFolder | NotADirectoryTarget | DownloadInProgress | PlatformError

/** A download's bytes, and whether they were verified. */
export interface Retrieved {
  readonly bytes: Uint8Array
  readonly verification: VerificationReport
}
