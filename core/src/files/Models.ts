/**
 * What the API host answers about an account's files, decoded with these schemas, and what a
 * quote, a pin and the wait for a PDP deal take.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Input from "../upload/Input.ts"
import type { FileMetadata } from "../upload/Sizing.ts"

/** Data usage of an account, in bytes (`GET /api/user/user_data_usage`). */
export const Usage = Schema.Struct({
  dataLimit: Schema.Number,
  dataUsed: Schema.Number,
  dataLimitPermanent: Schema.optionalKey(Schema.Number),
  dataUsedPermanent: Schema.optionalKey(Schema.Number),
  walrusDataLimit: Schema.optionalKey(Schema.Number),
  walrusDataUsed: Schema.optionalKey(Schema.Number)
}).annotate({ identifier: "Usage" })
export type Usage = typeof Usage.Type

/** One record of the uploads list. */
export const UploadedFile = Schema.Struct({
  /** The record's id: the cursor of the next page, and what `Files.deleteFile` takes. */
  id: Schema.String,
  cid: Schema.String,
  fileName: Schema.String,
  mimeType: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Content size in bytes, as a decimal string. */
  fileSizeInBytes: Schema.String,
  /** The owner's address, lower-cased. */
  publicKey: Schema.String,
  encryption: Schema.Boolean,
  /** Milliseconds since the epoch. */
  createdAt: Schema.Number,
  lastUpdate: Schema.Number,
  status: Schema.optionalKey(Schema.String),
  txHash: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "UploadedFile" })
export type UploadedFile = typeof UploadedFile.Type

/** One page of the uploads list (`GET /api/user/files_uploaded`). */
export const UploadsPage = Schema.Struct({
  fileList: Schema.Array(UploadedFile),
  totalFiles: Schema.Number
}).annotate({ identifier: "UploadsPage" })
export type UploadsPage = typeof UploadsPage.Type

/** A file's record (`GET /api/lighthouse/file_info`). */
export const FileInfo = Schema.Struct({
  cid: Schema.String,
  fileName: Schema.String,
  /** Content size in bytes, as a decimal string. */
  fileSizeInBytes: Schema.String,
  encryption: Schema.Boolean,
  mimeType: Schema.NullOr(Schema.String),
  txHash: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "FileInfo" })
export type FileInfo = typeof FileInfo.Type

/** One deal of a CID (`GET /api/lighthouse/deal_status`); `DealID` and `Provider` are always there. */
export const Deal = Schema.Struct({
  DealID: Schema.Number,
  Provider: Schema.String,
  dealStatus: Schema.optionalKey(Schema.String),
  dealUUID: Schema.optionalKey(Schema.String),
  pieceCID: Schema.optionalKey(Schema.String),
  pieceSize: Schema.optionalKey(Schema.Number),
  payloadCid: Schema.optionalKey(Schema.String),
  carFileSize: Schema.optionalKey(Schema.Number),
  startEpoch: Schema.optionalKey(Schema.Number),
  endEpoch: Schema.optionalKey(Schema.Number),
  lastUpdate: Schema.optionalKey(Schema.Number)
}).annotate({ identifier: "Deal" })
export type Deal = typeof Deal.Type

const MerklePath = Schema.Struct({ index: Schema.String, path: Schema.Array(Schema.String) })

/** The PoDSI of a CID's deals (`GET /api/lighthouse/get_proof`). */
export const Proof = Schema.Struct({
  pieceCID: Schema.String,
  dealInfo: Schema.Array(
    Schema.Struct({
      dealId: Schema.Number,
      storageProvider: Schema.String,
      proof: Schema.Struct({
        verifierData: Schema.Struct({ commPc: Schema.String, sizePc: Schema.String }),
        inclusionProof: Schema.Struct({ proofIndex: MerklePath, proofSubtree: MerklePath }),
        indexRecord: Schema.Struct({
          checksum: Schema.String,
          proofIndex: Schema.String,
          proofSubtree: Schema.Number,
          size: Schema.Number
        })
      })
    })
  )
}).annotate({ identifier: "Proof" })
export type Proof = typeof Proof.Type

/** The answer of a deletion. */
export const Deleted = Schema.Struct({ message: Schema.String }).annotate({ identifier: "Deleted" })
export type Deleted = typeof Deleted.Type

/** One file of a quote: its size in bytes, its type from the name's extension (`null` when unknown), its name's last segment. */
export type QuoteItem = FileMetadata

/** A quote: the files about to be uploaded against the account's usage. */
export interface Quote {
  readonly metaData: ReadonlyArray<QuoteItem>
  readonly dataLimit: number
  readonly dataUsed: number
  /** The Walrus quota, when the API reports it (uploads with `storageType: "walrus"` count here). */
  readonly walrusDataLimit?: number
  readonly walrusDataUsed?: number
  /** Sum of the files' sizes. */
  readonly totalSize: number
}

/**
 * What a quote is for: files, folders, or plain sizes in bytes.
 *
 * @category schemas
 */
export const QuoteInput = Schema.Union([Schema.Number, Input.FileInput, Input.FolderInput])
/** @category models */
export type QuoteInput = typeof QuoteInput.Type

/**
 * Options of `Files.uploads`.
 *
 * @category schemas
 */
export const UploadsOptions = Schema.Struct({
  /** Storage type filter (`ipfs`, `walrus`). @default "all" */
  fileType: Schema.optional(Schema.String),
  /** Start after this record id instead of at the newest. */
  after: Schema.optional(Schema.String)
})
/** @category models */
export type UploadsOptions = typeof UploadsOptions.Type

/**
 * Options of `Files.uploadsPage`: the page after `lastKey` (the first without it).
 *
 * @category schemas
 */
export const UploadsPageOptions = Schema.Struct({
  lastKey: Schema.optional(Schema.String),
  fileType: Schema.optional(Schema.String)
})
/** @category models */
export type UploadsPageOptions = typeof UploadsPageOptions.Type

/** What a pin takes: the CID, and the name its record gets (the CID itself without one). */
export const PinInput = Schema.Struct({
  cid: Schema.String,
  fileName: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1)))
}).annotate({ identifier: "PinInput" })
export type PinInput = typeof PinInput.Type

/** Where a completed PDP deal put the file. */
export const PdpTransaction = Schema.Struct({
  RootCID: Schema.String,
  /** The piece, as the storage provider serves it. */
  DownloadURL: Schema.String,
  /** The transaction that added the root to the proof set. */
  TXHash: Schema.String
}).annotate({ identifier: "PdpTransaction" })
export type PdpTransaction = typeof PdpTransaction.Type

/** One PDP deal of a CID (`GET /api/lighthouse/pdp_deal_status`). */
export const PdpDeal = Schema.Struct({
  id: Schema.String,
  cid: Schema.String,
  /** The requester's address, lower-cased. */
  publicKey: Schema.String,
  /** `completed` once the transaction is known. */
  dealStatus: Schema.String,
  /** ISO 8601 times. */
  createdAt: Schema.String,
  updatedAt: Schema.String,
  transactionDetails: Schema.optionalKey(PdpTransaction)
}).annotate({ identifier: "PdpDeal" })
export type PdpDeal = typeof PdpDeal.Type

/** A completed deal: its transaction details are there. */
export type CompletedPdpDeal = PdpDeal & { readonly transactionDetails: PdpTransaction }

/** A time-out or interval as `Duration` takes it (`"1 minute"`, milliseconds, a `Duration`). */
const DurationInput = Schema.declare(
  (u: unknown): u is Duration.Input => Option.isSome(Duration.fromInput(u as Duration.Input)),
  { expected: "a duration" }
)

/**
 * How `awaitPdpDeal` polls: `interval` between two status reads (default 1 minute), `timeout` for
 * the whole wait (default 40 minutes; the provider announces about 20).
 *
 * @category schemas
 */
export const AwaitPdpDealOptions = Schema.Struct({
  interval: Schema.optional(DurationInput),
  timeout: Schema.optional(DurationInput)
})
/** @category models */
export type AwaitPdpDealOptions = typeof AwaitPdpDealOptions.Type
