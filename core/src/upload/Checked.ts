/**
 * An `add` whose answer is checked: the CIDs of the files are computed from the bytes as they are
 * sent (constant memory; in `blob` body mode a `Blob` is read again alongside), so the node's
 * answer can be compared with them once it comes. With `verify: false` the answer is taken as is.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { CidMismatch, FileStreamError } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { Routes } from "../routes/Routes.ts"
import type { StorageType } from "../schema/Walrus.ts"
import { profileLayout } from "../unixfs/Layout.ts"
import type { AddSettings } from "../verify/UnixfsCids.ts"
import { type AnsweredEntry, track } from "../verify/Uploaded.ts"
import type * as Multipart from "./Multipart.ts"
import { BodyMode, type Options, type UploadFailure } from "./Options.ts"
import * as Response from "./Response.ts"
import { type SendRequest, send } from "./Send.ts"

/** One `POST /api/v0/add`: the caller's options and what this upload sends. */
export interface AddRequest {
  /** The account, CID version, deal parameters, progress and `verify`, as the caller gave them. */
  readonly options: Omit<Options, "storageType">
  /** `walrus`: to the Walrus upload node (plain uploads only: encrypted files stay on IPFS). */
  readonly storageType?: StorageType | undefined
  readonly wrapWithDirectory: boolean
  readonly encryption: boolean
  readonly mimeType: string | undefined
  readonly parts: ReadonlyArray<Multipart.Part<FileStreamError>>
}

/** An `add` whose own entry `pick` chooses among the node's entries. */
export interface CheckedAddRequest extends AddRequest {
  readonly pick: (entries: ReadonlyArray<Response.UploadedEntry>) => Response.UploadedEntry
}

/** A sent `add`: the node's answer, and the check of the entries read from it. */
export interface SentAdd {
  readonly text: string
  readonly url: string
  /** Fails with `CidMismatch` when an answered entry (or `result`) does not carry the CID of the bytes sent. */
  readonly check: (
    answered: ReadonlyArray<AnsweredEntry>,
    result?: AnsweredEntry | undefined
  ) => Effect.Effect<void, CidMismatch | FileStreamError>
}

/** How the node imports an `add`: the caller's profile and CID version. */
const settingsOf = (add: AddRequest): AddSettings => ({
  cidVersion: add.options.cidVersion ?? 1,
  wrapWithDirectory: add.wrapWithDirectory,
  profile: add.options.profile ?? "unixfs-v0-2015"
})

/**
 * The `add` query: the whole layout, in the flags of kubo's RPC
 * (https://docs.ipfs.tech/reference/kubo/rpc/#api-v0-add), so that a node whose defaults differ
 * still imports the bytes as their CIDs were computed. How a folder is sized against the shard
 * threshold has no flag (kubo's `Import.UnixFSHAMTDirectorySizeEstimation` configuration).
 */
export const addQuery = (settings: AddSettings): Readonly<Record<string, string>> => {
  const layout = profileLayout(settings)
  return {
    "wrap-with-directory": String(layout.wrapWithDirectory),
    "cid-version": String(layout.cidVersion),
    "raw-leaves": String(layout.rawLeaves),
    chunker: `size-${layout.chunkSize}`,
    "max-file-links": String(layout.maxChildren),
    trickle: "false"
  }
}

/** The wire request of `add`, sending `parts` (the add's own, or the same tracked). */
const sendRequestOf = (
  add: AddRequest,
  settings: AddSettings,
  parts: ReadonlyArray<Multipart.Part<FileStreamError>>
): SendRequest => ({
  path: Routes.uploadNode.add.path,
  query: addQuery(settings),
  apiKey: add.options.apiKey,
  encryption: add.encryption,
  mimeType: add.mimeType,
  dealParameters: add.options.dealParameters,
  onProgress: add.options.onProgress,
  storageType: add.storageType,
  parts
})

const noCheck = () => Effect.void

/** Sends an `add`, tracking its CIDs unless `verify` is `false`. */
export const sendAdd = Effect.fnUntraced(function* (
  hosts: Hosts,
  add: AddRequest
): Effect.fn.Return<SentAdd, UploadFailure, Scope.Scope> {
  const settings = settingsOf(add)
  const tracked = add.options.verify === false ? undefined : yield* track(add.parts, settings, yield* BodyMode)
  const sent = yield* send(hosts, sendRequestOf(add, settings, tracked?.parts ?? add.parts))
  return { ...sent, check: tracked?.check ?? noCheck }
})

/**
 * Sends an `add` and reads the node's entries; `pick` chooses the upload's own entry, which is
 * returned once every entry checked out (unless `verify` is `false`).
 */
export const addChecked = (
  hosts: Hosts,
  add: CheckedAddRequest
): Effect.Effect<Response.UploadedEntry, UploadFailure | CidMismatch> =>
  Effect.scoped(
    Effect.gen(function* () {
      const sent = yield* sendAdd(hosts, add)
      const entries = yield* Response.entries(sent.text, sent.url)
      const result = add.pick(entries)
      yield* sent.check(entries, result)
      return result
    })
  )
