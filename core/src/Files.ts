/**
 * `Files`: what the API host knows about an account's files (spec §7, reference/sdk-behaviour.md
 * §5.3–§5.8, §6.5): data usage, the uploads list, file info, deal status, PoDSI proofs, deletion,
 * and a quote for files about to be uploaded.
 *
 * Each call answers in the wording the provider gives that endpoint: `Request failed with status
 * code {n}` (usage, uploads, deal status, proof, delete), `HTTP error! status {n}` (file info),
 * `Proof Doesn't exist yet` for a 400 from the proof call; CIDs are checked first (`Invalid CID`);
 * bodies are decoded with schemas; the time-out is the request time-out (8 000 ms).
 *
 * The uploads list is an Effect `Stream` that follows the `lastKey` cursor page by page, so a
 * caller never handles the cursor (nor the provider's literal `lastKey=null`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import {
  type HttpStatusError,
  type InvalidCid,
  type InvalidResponse,
  InvalidUploadInput,
  type NetworkError,
  ProofNotFound,
  type RequestFailed,
  type RequestTimedOut
} from "./Errors.ts"
import { executeJson, type Token, url, withBearer } from "./internal/http.ts"
import { parseCid } from "./schema/Cid.ts"
import * as Input from "./upload/Input.ts"
import * as Mime from "./upload/Mime.ts"
import * as Walk from "./upload/Walk.ts"

// =============================================================================
// Models
// =============================================================================

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
  /** The record's id: the cursor of the next page, and what {@link Service.deleteFile} takes. */
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

/** One file of a quote. */
export interface QuoteItem {
  readonly fileSize: number
  /** From the name's extension; `null` when unknown (the provider gave `false`). */
  readonly mimeType: string | null
  /** The last segment of the file's name. */
  readonly fileName: string
}

/** A quote: the files about to be uploaded against the account's usage (spec §3, "Quote data"). */
export interface Quote {
  readonly metaData: ReadonlyArray<QuoteItem>
  readonly dataLimit: number
  readonly dataUsed: number
  /** Sum of the files' sizes. */
  readonly totalSize: number
}

/** What a quote is for: files, folders, or plain sizes in bytes. */
export type QuoteInput = number | Input.FileInput | Input.FolderInput

/** Options of {@link Service.uploads}. */
export interface UploadsOptions {
  /** Storage type filter (`ipfs`, `walrus`). @default "all" */
  readonly fileType?: string | undefined
  /** Start after this record id instead of at the newest. */
  readonly after?: string | undefined
}

type Transport = NetworkError | RequestTimedOut | InvalidResponse

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** The account's data usage. */
  readonly usage: (apiKey: Token) => Effect.Effect<Usage, RequestFailed | Transport>
  /** Every upload of the account, newest first, following the cursor across pages. */
  readonly uploads: (apiKey: Token, options?: UploadsOptions) => Stream.Stream<UploadedFile, RequestFailed | Transport>
  /** One page of uploads after `lastKey` (the first page without it). */
  readonly uploadsPage: (
    apiKey: Token,
    options?: { readonly lastKey?: string | undefined; readonly fileType?: string | undefined }
  ) => Effect.Effect<UploadsPage, RequestFailed | Transport>
  /** A file's record. */
  readonly fileInfo: (cid: string) => Effect.Effect<FileInfo, InvalidCid | HttpStatusError | Transport>
  /** The deals of a CID; empty until one is made. */
  readonly dealStatus: (cid: string) => Effect.Effect<ReadonlyArray<Deal>, InvalidCid | RequestFailed | Transport>
  /** The PoDSI of a CID's deals; `Proof Doesn't exist yet` before there is one. */
  readonly proof: (cid: string) => Effect.Effect<Proof, InvalidCid | ProofNotFound | RequestFailed | Transport>
  /** Deletes an upload record by its id (from {@link Service.uploads}). */
  readonly deleteFile: (apiKey: Token, id: string) => Effect.Effect<Deleted, RequestFailed | Transport>
  /** Sizes and types of files about to be uploaded, with the account's usage. */
  readonly quote: (
    apiKey: Token,
    input: QuoteInput | ReadonlyArray<QuoteInput>
  ) => Effect.Effect<Quote, RequestFailed | Transport | PlatformError | InvalidUploadInput>
}

/**
 * The account's files on the API host.
 *
 * @category services
 */
export class Files extends Context.Service<Files, Service>()("lighthouse-effect/Files") {}

// =============================================================================
// Constructor
// =============================================================================

const isFolderInput = (input: unknown): input is Input.FolderInput =>
  typeof input === "object" &&
  input !== null &&
  "_tag" in input &&
  (input._tag === "Directory" || input._tag === "Files")

/** Builds the service from the HTTP client, the configuration and a file system (for quotes of paths). */
export const make = Effect.gen(function* () {
  const client = yield* HttpClient.HttpClient
  const config = yield* LighthouseConfig
  const fs = yield* FileSystem.FileSystem
  const api = (path: string, query?: Readonly<Record<string, string | undefined>>) => url(config.hosts.api, path, query)
  const requestFailed = { style: "request-failed", timeout: config.requestTimeout } as const

  const usage = Effect.fn("Files.usage")(function* (apiKey: Token) {
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/user/user_data_usage")).pipe(withBearer(apiKey)),
      Usage,
      requestFailed
    )
  })

  const uploadsPage = Effect.fn("Files.uploadsPage")(function* (
    apiKey: Token,
    options?: { readonly lastKey?: string | undefined; readonly fileType?: string | undefined }
  ) {
    // The provider's first page is `lastKey=null`, literally.
    const query = { lastKey: options?.lastKey ?? "null", fileType: options?.fileType }
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/user/files_uploaded", query)).pipe(
        withBearer(apiKey),
        HttpClientRequest.setHeader("Content-Type", "application/json")
      ),
      UploadsPage,
      requestFailed
    )
  })

  const uploads = (apiKey: Token, options?: UploadsOptions): Stream.Stream<UploadedFile, RequestFailed | Transport> =>
    Stream.paginate({ lastKey: options?.after, seen: 0 }, (state) =>
      Effect.map(uploadsPage(apiKey, { lastKey: state.lastKey, fileType: options?.fileType }), (page) => {
        const seen = state.seen + page.fileList.length
        const last = page.fileList.at(-1)
        // An empty page, or as many records as the account has, ends the walk.
        const next =
          last === undefined || (options?.after === undefined && seen >= page.totalFiles)
            ? Option.none()
            : Option.some({ lastKey: last.id, seen })
        return [page.fileList, next] as const
      })
    ).pipe(Stream.withSpan("Files.uploads"))

  const fileInfo = Effect.fn("Files.fileInfo")(function* (cid: string) {
    const valid = yield* parseCid(cid)
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/lighthouse/file_info", { cid: valid })),
      FileInfo,
      {
        style: "http-error",
        timeout: config.requestTimeout
      }
    )
  })

  const dealStatus = Effect.fn("Files.dealStatus")(function* (cid: string) {
    const valid = yield* parseCid(cid)
    return yield* executeJson(
      client,
      HttpClientRequest.get(api("/api/lighthouse/deal_status", { cid: valid })),
      Schema.Array(Deal),
      requestFailed
    )
  })

  const proof = Effect.fn("Files.proof")(function* (cid: string) {
    const valid = yield* parseCid(cid)
    return yield* executeJson(client, HttpClientRequest.get(api("/api/lighthouse/get_proof", { cid: valid })), Proof, {
      ...requestFailed,
      onStatus: (status) => (status === 400 ? new ProofNotFound({ cid: valid }) : undefined)
    })
  })

  const deleteFile = Effect.fn("Files.deleteFile")(function* (apiKey: Token, id: string) {
    return yield* executeJson(
      client,
      HttpClientRequest.delete(api("/api/user/delete_file", { id })).pipe(
        withBearer(apiKey),
        HttpClientRequest.setHeader("Content-Type", "application/json")
      ),
      Deleted,
      requestFailed
    )
  })

  const quoteItems = Effect.fnUntraced(function* (
    input: QuoteInput
  ): Effect.fn.Return<ReadonlyArray<QuoteItem>, PlatformError | InvalidUploadInput> {
    if (typeof input === "number") {
      if (!Number.isFinite(input) || input < 0) {
        return yield* new InvalidUploadInput({ reason: `a size must be a non-negative number, not ${input}` })
      }
      return [{ fileSize: input, mimeType: null, fileName: "" }]
    }
    if (isFolderInput(input)) {
      if (input._tag === "Directory") {
        const found = yield* Walk.walk(fs, input.path)
        return found.map((f) => ({
          fileSize: f.size,
          mimeType: Mime.lookup(f.relative) ?? null,
          fileName: Input.baseName(f.relative)
        }))
      }
      const nested = yield* Effect.forEach(input.files, quoteItems)
      return nested.flat()
    }
    const source = Input.toFileSource(input)
    const name = Input.nameOf(source)
    const item = (fileSize: number, type?: string): QuoteItem => ({
      fileSize,
      mimeType: type === undefined || type === "" ? (Mime.lookup(name) ?? null) : type,
      fileName: Input.baseName(name)
    })
    switch (source._tag) {
      case "Path": {
        const info = yield* fs.stat(source.path)
        if (info.type === "Directory") return yield* quoteItems(Input.directory(source.path))
        return [item(Number(info.size))]
      }
      case "Blob":
        return [item(source.blob.size, source.blob.type)]
      case "Bytes":
        return [item(source.bytes.length)]
      case "Text":
        return [item(new TextEncoder().encode(source.text).length, "text/plain")]
      case "Stream":
        if (source.size === undefined) {
          return yield* new InvalidUploadInput({ reason: `the size of ${name} is unknown: give the stream's size` })
        }
        return [item(source.size)]
    }
  })

  const quote = Effect.fn("Files.quote")(function* (apiKey: Token, input: QuoteInput | ReadonlyArray<QuoteInput>) {
    const inputs: ReadonlyArray<QuoteInput> = Array.isArray(input) ? input : [input as QuoteInput]
    // Local inputs first: a bad path fails before the network is asked.
    const metaData = (yield* Effect.forEach(inputs, quoteItems)).flat()
    const { dataLimit, dataUsed } = yield* usage(apiKey)
    return {
      metaData,
      dataLimit,
      dataUsed,
      totalSize: metaData.reduce((total, item) => total + item.fileSize, 0)
    } satisfies Quote
  })

  return Files.of({ usage, uploads, uploadsPage, fileInfo, dealStatus, proof, deleteFile, quote })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient`, `LighthouseConfig` and a `FileSystem` (quotes of paths).
 *
 * @category layers
 */
export const layer: Layer.Layer<Files, never, HttpClient.HttpClient | LighthouseConfig | FileSystem.FileSystem> =
  Layer.effect(Files, make)
