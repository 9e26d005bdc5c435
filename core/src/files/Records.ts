/**
 * The account's records on the API host: data usage, the uploads list (a `Stream` that follows
 * the `lastKey` cursor page by page), file info, deal status, PoDSI proofs and deletion.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ProofNotFound, type RequestFailed, type TransportFailure } from "../Errors.ts"
import { type Hosts, json } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import { Routes } from "../routes/Routes.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Credential } from "../schema/Credential.ts"
import { Deal, Deleted, FileInfo, Proof, type UploadedFile, type UploadsOptions, UploadsPage, Usage } from "./Models.ts"

export const usage = Effect.fn("Files.usage")(function* (hosts: Hosts, apiKey: Credential) {
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.account.userDataUsage.path).pipe(withBearer(apiKey)),
    Usage
  )
})

export const uploadsPage = Effect.fn("Files.uploadsPage")(function* (
  hosts: Hosts,
  apiKey: Credential,
  options?: { readonly lastKey?: string | undefined; readonly fileType?: string | undefined }
) {
  // The provider's first page is `lastKey=null`, literally.
  const urlParams = { lastKey: options?.lastKey ?? "null", fileType: options?.fileType }
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.account.filesUploaded.path, { urlParams }).pipe(
      withBearer(apiKey),
      HttpClientRequest.setHeader("Content-Type", "application/json")
    ),
    UploadsPage
  )
})

export const uploads = (
  hosts: Hosts,
  apiKey: Credential,
  options?: UploadsOptions
): Stream.Stream<UploadedFile, RequestFailed | TransportFailure> =>
  Stream.paginate({ lastKey: options?.after, seen: 0 }, (state) =>
    Effect.map(uploadsPage(hosts, apiKey, { lastKey: state.lastKey, fileType: options?.fileType }), (page) => {
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

export const fileInfo = Effect.fn("Files.fileInfo")(function* (hosts: Hosts, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* json(
    hosts.apiHttpError,
    HttpClientRequest.get(Routes.files.fileInfo.path, { urlParams: { cid: valid } }),
    FileInfo
  )
})

export const dealStatus = Effect.fn("Files.dealStatus")(function* (hosts: Hosts, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.files.dealStatus.path, { urlParams: { cid: valid } }),
    Schema.Array(Deal)
  )
})

export const proof = Effect.fn("Files.proof")(function* (hosts: Hosts, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.files.getProof.path, { urlParams: { cid: valid } }),
    Proof
  ).pipe(Effect.catchTag("RequestFailed", (e) => Effect.fail(e.status === 400 ? new ProofNotFound({ cid: valid }) : e)))
})

export const deleteFile = Effect.fn("Files.deleteFile")(function* (hosts: Hosts, apiKey: Credential, id: string) {
  return yield* json(
    hosts.api,
    HttpClientRequest.delete(Routes.account.deleteFile.path, { urlParams: { id } }).pipe(
      withBearer(apiKey),
      HttpClientRequest.setHeader("Content-Type", "application/json")
    ),
    Deleted
  )
})
