/**
 * The API host's Walrus routes: the blob ids behind a CID stored on Walrus, and deleting a Walrus
 * file from the caller's account.
 *
 * - `GET /api/lighthouse/walrus_blobs?cid=` (no authentication) → `{ blobIds }`, one per file; 404
 *   `{"error":"File not found"}` when nothing is stored on Walrus under that CID; 400 for a bad CID.
 * - `DELETE /api/user/delete_file_walrus?id=` (Bearer) → `{ message: "File deleted successfully." }`;
 *   the file's bytes stop counting against the Walrus quota and, when no other Walrus record holds
 *   the CID, its blobs are forgotten (the Walrus gateway stops serving it). 404 when the id is not
 *   one of the caller's Walrus files.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { cidParam, queryOf } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import type { Account } from "./Accounts.ts"
import { type ApiHostContext, authed, route } from "./Context.ts"
import type { WalrusBlobs } from "./WalrusBlobs.ts"

const blobsOf = (walrus: WalrusBlobs, request: Request): Response => {
  const param = cidParam(request)
  if ("error" in param) return param.error
  const blobIds = walrus.blobIdsOf(param.text)
  return blobIds === undefined ? errorResponse(404, "File not found") : json({ blobIds })
}

const deleteWalrusFile = (context: ApiHostContext, request: Request, account: Account) => {
  const id = queryOf(request).get("id") ?? ""
  if (id === "") return errorResponse(400, "id is required")
  const file = context.files.byId(id)
  if (file === undefined || file.publicKey !== account.address || file.storageType !== "walrus")
    return errorResponse(404, "File not found")
  context.files.remove(id)
  account.walrusDataUsed = Math.max(0, account.walrusDataUsed - Number(file.fileSizeInBytes))
  if (context.files.byCidMatching((record) => record.cid === file.cid && record.storageType === "walrus") === undefined)
    context.walrus.forget(file.cid)
  return json({ message: "File deleted successfully." })
}

export const walrusRoutes = (context: ApiHostContext): Array<HttpHandler> => [
  on(
    context.host,
    Routes.files.walrusBlobs,
    route(context, ({ request }) => blobsOf(context.walrus, request))
  ),
  on(
    context.host,
    Routes.account.deleteFileWalrus,
    authed(context, (request, account) => deleteWalrusFile(context, request, account))
  )
]
