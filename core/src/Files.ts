/**
 * `Files`: what the API host knows about an account's files: data usage, the uploads list, file info, deal status, PoDSI proofs, deletion, Walrus blob ids and Walrus deletion,
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
 * The work lives in `files/`: `Records.ts` (the API calls), `Pin.ts` (pinning a CID), `Pdp.ts` (PDP deals), `Quote.ts`
 * (quotes), `Models.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type { PlatformError } from "effect/PlatformError"
import type * as Stream from "effect/Stream"
import type {
  ContentUnreachable,
  HttpStatusError,
  InvalidArgument,
  InvalidCid,
  InvalidUploadInput,
  PdpDealTimedOut,
  PdpSizeLimitExceeded,
  ProofNotFound,
  RequestFailed,
  TransportFailure,
  UnreadableEntry
} from "./Errors.ts"
import type {
  AwaitPdpDealOptions,
  CompletedPdpDeal,
  Deal,
  Deleted,
  FileInfo,
  PdpDeal,
  PinInput,
  Proof,
  Quote,
  QuoteInput,
  UploadedFile,
  UploadsOptions,
  UploadsPage,
  UploadsPageOptions,
  Usage
} from "./files/Models.ts"
import * as Pdp from "./files/Pdp.ts"
import * as Pin from "./files/Pin.ts"
import * as FileQuote from "./files/Quote.ts"
import * as Records from "./files/Records.ts"
import * as Walrus from "./files/Walrus.ts"
import * as Hosts from "./internal/Hosts.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import type { Credential } from "./schema/Credential.ts"
import type { WalrusBlobId } from "./schema/Walrus.ts"

export * from "./files/Models.ts"
export { PdpSizeLimit } from "./files/Pdp.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `Files` service offers.
 *
 * @category models
 */
export interface Service {
  /** The account's data usage. */
  readonly usage: (apiKey: Credential) => Effect.Effect<Usage, RequestFailed | TransportFailure>
  /** Every upload of the account, newest first, following the cursor across pages. */
  readonly uploads: (
    apiKey: Credential,
    options?: UploadsOptions
  ) => Stream.Stream<UploadedFile, RequestFailed | TransportFailure>
  /** One page of uploads after `lastKey` (the first page without it). */
  readonly uploadsPage: (
    apiKey: Credential,
    options?: UploadsPageOptions
  ) => Effect.Effect<UploadsPage, RequestFailed | TransportFailure>
  /** A file's record. */
  readonly fileInfo: (cid: string) => Effect.Effect<FileInfo, InvalidCid | HttpStatusError | TransportFailure>
  /** The deals of a CID; empty until one is made. */
  readonly dealStatus: (
    cid: string
  ) => Effect.Effect<ReadonlyArray<Deal>, InvalidCid | RequestFailed | TransportFailure>
  /** The PoDSI of a CID's deals; `Proof Doesn't exist yet` before there is one. */
  readonly proof: (cid: string) => Effect.Effect<Proof, InvalidCid | ProofNotFound | RequestFailed | TransportFailure>
  /** Deletes an upload record by its id (from {@link Service.uploads}). */
  readonly deleteFile: (apiKey: Credential, id: string) => Effect.Effect<Deleted, RequestFailed | TransportFailure>
  /** The Walrus blob ids of a CID stored on Walrus, one per file. */
  readonly walrusBlobs: (
    cid: string
  ) => Effect.Effect<ReadonlyArray<WalrusBlobId>, InvalidCid | RequestFailed | TransportFailure>
  /** Deletes a file stored on Walrus by its record id; its bytes leave the Walrus quota. */
  readonly deleteFileWalrus: (
    apiKey: Credential,
    id: string
  ) => Effect.Effect<Deleted, RequestFailed | TransportFailure>
  /** Pins content already on IPFS to the account: its record joins the uploads list and counts against the quota. */
  readonly pin: (
    apiKey: Credential,
    input: PinInput
  ) => Effect.Effect<UploadedFile, InvalidArgument | InvalidCid | ContentUnreachable | RequestFailed | TransportFailure>
  /** Asks for a PDP deal of a stored file; over 100 MB it is `PdpSizeLimitExceeded`, before the request. */
  readonly requestPdpDeal: (
    apiKey: Credential,
    cid: string
  ) => Effect.Effect<void, InvalidCid | PdpSizeLimitExceeded | HttpStatusError | RequestFailed | TransportFailure>
  /** The PDP deals of a CID; empty until one is made. */
  readonly pdpDealStatus: (
    cid: string
  ) => Effect.Effect<ReadonlyArray<PdpDeal>, InvalidCid | RequestFailed | TransportFailure>
  /** Polls the PDP deal status on a schedule until a completed deal is listed. */
  readonly awaitPdpDeal: (
    cid: string,
    options?: AwaitPdpDealOptions
  ) => Effect.Effect<CompletedPdpDeal, InvalidCid | PdpDealTimedOut | RequestFailed | TransportFailure>
  /** Sizes and types of files about to be uploaded, with the account's usage. */
  readonly quote: (
    apiKey: Credential,
    input: QuoteInput | ReadonlyArray<QuoteInput>
  ) => Effect.Effect<Quote, RequestFailed | TransportFailure | PlatformError | InvalidUploadInput | UnreadableEntry>
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

/**
 * Builds the service from the HTTP client, the configuration and a file system (for quotes of paths).
 *
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const hosts = Hosts.make(yield* LighthouseConfig, yield* HttpClient.HttpClient)
  const fs = yield* FileSystem.FileSystem
  return Files.of({
    usage: (apiKey) => Records.usage(hosts, apiKey),
    uploads: (apiKey, options) => Records.uploads(hosts, apiKey, options),
    uploadsPage: (apiKey, options) => Records.uploadsPage(hosts, apiKey, options),
    fileInfo: (cid) => Records.fileInfo(hosts, cid),
    dealStatus: (cid) => Records.dealStatus(hosts, cid),
    proof: (cid) => Records.proof(hosts, cid),
    deleteFile: (apiKey, id) => Records.deleteFile(hosts, apiKey, id),
    walrusBlobs: (cid) => Walrus.walrusBlobs(hosts, cid),
    deleteFileWalrus: (apiKey, id) => Walrus.deleteFileWalrus(hosts, apiKey, id),
    pin: (apiKey, input) => Pin.pin(hosts, apiKey, input),
    requestPdpDeal: (apiKey, cid) => Pdp.requestPdpDeal(hosts, apiKey, cid),
    pdpDealStatus: (cid) => Pdp.pdpDealStatus(hosts, cid),
    awaitPdpDeal: (cid, options) => Pdp.awaitPdpDeal(hosts, cid, options),
    quote: (apiKey, input) => FileQuote.quote(hosts, fs, apiKey, input)
  })
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
