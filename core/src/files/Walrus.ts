/**
 * Files stored on Walrus, on the API host: the blob ids behind a CID
 * (`GET /api/lighthouse/walrus_blobs?cid=`, no authentication) and deleting a Walrus file from the
 * account (`DELETE /api/user/delete_file_walrus?id=`, the id from the uploads list). Both answer a
 * non-2xx status as `Request failed with status code {n}`, like the provider's SDK.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { type Hosts, json } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import { Routes } from "../routes/Routes.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Credential } from "../schema/Credential.ts"
import { WalrusBlobs } from "../schema/Walrus.ts"
import { Deleted } from "./Models.ts"

/** The blob ids Walrus stores the files of `cid` under (one per file). */
export const walrusBlobs = Effect.fn("Files.walrusBlobs")(function* (hosts: Hosts, cid: string) {
  const valid = yield* parseCid(cid)
  const answer = yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.files.walrusBlobs.path, { urlParams: { cid: valid } }),
    WalrusBlobs
  )
  return answer.blobIds
})

/** Deletes a file stored on Walrus from the account; its bytes stop counting against the Walrus quota. */
export const deleteFileWalrus = Effect.fn("Files.deleteFileWalrus")(function* (
  hosts: Hosts,
  apiKey: Credential,
  id: string
) {
  return yield* json(
    hosts.api,
    HttpClientRequest.delete(Routes.account.deleteFileWalrus.path, { urlParams: { id } }).pipe(
      withBearer(apiKey),
      HttpClientRequest.setHeader("Content-Type", "application/json")
    ),
    Deleted
  )
})
