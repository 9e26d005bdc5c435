/**
 * An account's own view: its quota and usage, the files it uploaded (newest first, a page at a
 * time) and deleting one of them.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { queryOf } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import type { Account } from "./Accounts.ts"
import { type ApiHostContext, authed } from "./Context.ts"
import { type FileRecord, UnknownCursor } from "./Files.ts"

/** A record as `files_uploaded` lists it. */
export const listedFile = (record: FileRecord) => ({
  publicKey: record.publicKey,
  fileName: record.fileName,
  mimeType: record.mimeType,
  txHash: record.txHash,
  status: record.status,
  createdAt: record.createdAt,
  fileSizeInBytes: record.fileSizeInBytes,
  cid: record.cid,
  id: record.id,
  lastUpdate: record.lastUpdate,
  encryption: record.encryption
})

const usage = (account: Account): Response =>
  json({
    dataLimit: account.dataLimit,
    dataUsed: account.dataUsed,
    dataLimitPermanent: account.dataLimitPermanent,
    dataUsedPermanent: account.dataUsedPermanent,
    walrusDataLimit: account.walrusDataLimit,
    walrusDataUsed: account.walrusDataUsed
  })

const uploads = (context: ApiHostContext, request: Request, account: Account): Response => {
  const query = queryOf(request)
  const rawKey = query.get("lastKey")
  const lastKey = rawKey === null || rawKey === "" || rawKey === "null" || rawKey === "undefined" ? null : rawKey
  // `all` (the SDK's default) lists everything; another value selects a storage type (`ipfs`, `walrus`).
  const fileType = query.get("fileType") ?? "all"
  try {
    const page = context.files.page(account.address, {
      lastKey,
      pageSize: context.pageSize,
      ...(fileType === "all" ? {} : { filter: (record: FileRecord) => record.storageType === fileType })
    })
    return json({ fileList: page.fileList.map(listedFile), totalFiles: page.totalFiles })
  } catch (error) {
    if (error instanceof UnknownCursor) return errorResponse(400, "Invalid lastKey")
    throw error
  }
}

const deleteFile = (context: ApiHostContext, request: Request, account: Account): Response => {
  const id = queryOf(request).get("id") ?? ""
  if (id === "") return errorResponse(400, "id is required")
  const file = context.files.byId(id)
  // A file stored on Walrus is deleted through `delete_file_walrus`, which frees the Walrus quota.
  if (file === undefined || file.publicKey !== account.address || file.storageType === "walrus")
    return errorResponse(404, "File not found")
  context.files.remove(id)
  // Deleted content stops counting against the quota.
  account.dataUsed = Math.max(0, account.dataUsed - Number(file.fileSizeInBytes))
  return json({ message: "File deleted successfully." })
}

export const userRoutes = (context: ApiHostContext): Array<HttpHandler> => [
  on(
    context.host,
    Routes.account.userDataUsage,
    authed(context, (_, account) => usage(account))
  ),
  on(
    context.host,
    Routes.account.filesUploaded,
    authed(context, (request, account) => uploads(context, request, account))
  ),
  on(
    context.host,
    Routes.account.deleteFile,
    authed(context, (request, account) => deleteFile(context, request, account))
  )
]
