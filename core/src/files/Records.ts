/**
 * The account's records on the API host: data usage, the uploads list (a `Stream` that follows
 * the `lastKey` cursor page by page), file info, deal status, PoDSI proofs and deletion.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { ProofNotFound, type RequestFailed } from "../Errors.ts"
import { executeJson, type Token, url, withBearer } from "../internal/http.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import { parseCid } from "../schema/Cid.ts"
import {
  Deal,
  Deleted,
  FileInfo,
  Proof,
  type Transport,
  type UploadedFile,
  UploadsPage,
  type UploadsOptions,
  Usage
} from "./Models.ts"

/** What a call to the API host needs. */
export interface ApiDeps {
  readonly client: HttpClient.HttpClient
  readonly config: LighthouseConfig.Options
}

const api = (config: LighthouseConfig.Options, path: string, query?: Readonly<Record<string, string | undefined>>) =>
  url(config.hosts.api, path, query)

const requestFailed = (config: LighthouseConfig.Options) =>
  ({ style: "request-failed", timeout: config.requestTimeout }) as const

export const usage = Effect.fn("Files.usage")(function* ({ client, config }: ApiDeps, apiKey: Token) {
  return yield* executeJson(
    client,
    HttpClientRequest.get(api(config, "/api/user/user_data_usage")).pipe(withBearer(apiKey)),
    Usage,
    requestFailed(config)
  )
})

export const uploadsPage = Effect.fn("Files.uploadsPage")(function* (
  { client, config }: ApiDeps,
  apiKey: Token,
  options?: { readonly lastKey?: string | undefined; readonly fileType?: string | undefined }
) {
  // The provider's first page is `lastKey=null`, literally.
  const query = { lastKey: options?.lastKey ?? "null", fileType: options?.fileType }
  return yield* executeJson(
    client,
    HttpClientRequest.get(api(config, "/api/user/files_uploaded", query)).pipe(
      withBearer(apiKey),
      HttpClientRequest.setHeader("Content-Type", "application/json")
    ),
    UploadsPage,
    requestFailed(config)
  )
})

export const uploads = (
  deps: ApiDeps,
  apiKey: Token,
  options?: UploadsOptions
): Stream.Stream<UploadedFile, RequestFailed | Transport> =>
  Stream.paginate({ lastKey: options?.after, seen: 0 }, (state) =>
    Effect.map(uploadsPage(deps, apiKey, { lastKey: state.lastKey, fileType: options?.fileType }), (page) => {
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

export const fileInfo = Effect.fn("Files.fileInfo")(function* ({ client, config }: ApiDeps, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* executeJson(
    client,
    HttpClientRequest.get(api(config, "/api/lighthouse/file_info", { cid: valid })),
    FileInfo,
    {
      style: "http-error",
      timeout: config.requestTimeout
    }
  )
})

export const dealStatus = Effect.fn("Files.dealStatus")(function* ({ client, config }: ApiDeps, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* executeJson(
    client,
    HttpClientRequest.get(api(config, "/api/lighthouse/deal_status", { cid: valid })),
    Schema.Array(Deal),
    requestFailed(config)
  )
})

export const proof = Effect.fn("Files.proof")(function* ({ client, config }: ApiDeps, cid: string) {
  const valid = yield* parseCid(cid)
  return yield* executeJson(
    client,
    HttpClientRequest.get(api(config, "/api/lighthouse/get_proof", { cid: valid })),
    Proof,
    {
      ...requestFailed(config),
      onStatus: (status) => (status === 400 ? new ProofNotFound({ cid: valid }) : undefined)
    }
  )
})

export const deleteFile = Effect.fn("Files.deleteFile")(function* (
  { client, config }: ApiDeps,
  apiKey: Token,
  id: string
) {
  return yield* executeJson(
    client,
    HttpClientRequest.delete(api(config, "/api/user/delete_file", { id })).pipe(
      withBearer(apiKey),
      HttpClientRequest.setHeader("Content-Type", "application/json")
    ),
    Deleted,
    requestFailed(config)
  )
})
