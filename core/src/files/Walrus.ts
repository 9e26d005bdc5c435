/**
 * Files stored on Walrus, on the API host: the blob ids behind a CID
 * (`GET /api/lighthouse/walrus_blobs?cid=`, no authentication) and deleting a Walrus file from the
 * account (`DELETE /api/user/delete_file_walrus?id=`, the id from the uploads list). Both answer a
 * non-2xx status as `Request failed with status code {n}`, like the provider's SDK.
 *
 * @since 0.2.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { executeJson, type Token, url, withBearer } from "../internal/http.ts"
import { parseCid } from "../schema/Cid.ts"
import { WalrusBlobs } from "../schema/Walrus.ts"
import { Deleted } from "./Models.ts"

/** What a call to the API host needs. */
export interface WalrusApiDeps {
  readonly client: HttpClient.HttpClient
  readonly config: { readonly hosts: { readonly api: string }; readonly requestTimeout: Duration.Duration }
}

/** The blob ids Walrus stores the files of `cid` under (one per file). */
export const walrusBlobs = Effect.fn("Files.walrusBlobs")(function* ({ client, config }: WalrusApiDeps, cid: string) {
  const valid = yield* parseCid(cid)
  const answer = yield* executeJson(
    client,
    HttpClientRequest.get(url(config.hosts.api, "/api/lighthouse/walrus_blobs", { cid: valid })),
    WalrusBlobs,
    { style: "request-failed", timeout: config.requestTimeout }
  )
  return answer.blobIds
})

/** Deletes a file stored on Walrus from the account; its bytes stop counting against the Walrus quota. */
export const deleteFileWalrus = Effect.fn("Files.deleteFileWalrus")(function* (
  { client, config }: WalrusApiDeps,
  apiKey: Token,
  id: string
) {
  return yield* executeJson(
    client,
    HttpClientRequest.delete(url(config.hosts.api, "/api/user/delete_file_walrus", { id })).pipe(
      withBearer(apiKey),
      HttpClientRequest.setHeader("Content-Type", "application/json")
    ),
    Deleted,
    { style: "request-failed", timeout: config.requestTimeout }
  )
})
