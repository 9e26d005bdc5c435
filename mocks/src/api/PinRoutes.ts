/**
 * Pinning a CID to an account (`POST /api/lighthouse/pin`, Bearer, `{ cid, fileName? }`).
 *
 * The simulated network can only reach its own blocks: the DAG under the CID must be whole in the
 * content store (uploaded by anyone, or put there by a test standing in for the wider IPFS
 * network). Pinned content gets a record in the caller's uploads list and counts against its data
 * quota: a file by its content size, any other DAG by the bytes of its blocks.
 *
 * Answers: `{ data: <the new record, as files_uploaded lists it> }`; `400 "cid is required"`,
 * `400 "Invalid CID"`, `400 "fileName must be a non-empty string"`; `404 "Content not reachable:
 * {cid}"` when a block of the DAG is missing; `402 "Storage quota exceeded: …"` past the quota.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import type { CID } from "multiformats/cid"
import { parseCid } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import { ContentNotFound } from "../storage/Blocks.ts"
import type { Account } from "./Accounts.ts"
import { type ApiHostContext, authed, type ReachableContent } from "./Context.ts"
import { listedFile } from "./UserRoutes.ts"

interface PinRequest {
  readonly cid: CID
  readonly text: string
  readonly fileName: string | undefined
}

const readPinRequest = async (request: Request): Promise<PinRequest | Response> => {
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return errorResponse(400, "the body must be JSON {cid, fileName?}")
  }
  const { cid, fileName } = (body ?? {}) as { cid?: unknown; fileName?: unknown }
  if (typeof cid !== "string" || cid === "") return errorResponse(400, "cid is required")
  const parsed = parseCid(cid)
  if (parsed === undefined) return errorResponse(400, "Invalid CID")
  if (fileName !== undefined && (typeof fileName !== "string" || fileName === ""))
    return errorResponse(400, "fileName must be a non-empty string")
  return { cid: parsed, text: cid, fileName }
}

/** The bytes a pin counts against the quota, or `undefined` when a block of the DAG is missing. */
export const reachableSize = async (content: ReachableContent, cid: CID): Promise<number | undefined> => {
  try {
    let blockBytes = 0
    for await (const block of content.walk(cid)) blockBytes += block.bytes.byteLength
    const stat = await content.stat(cid)
    return stat.type === "file" ? stat.size : blockBytes
  } catch (error) {
    if (error instanceof ContentNotFound) return undefined
    throw error
  }
}

const pin = async (context: ApiHostContext, request: Request, account: Account): Promise<Response> => {
  const wanted = await readPinRequest(request)
  if (wanted instanceof Response) return wanted
  const size = await reachableSize(context.content, wanted.cid)
  if (size === undefined) return errorResponse(404, `Content not reachable: ${wanted.text}`)
  const left = Math.max(0, account.dataLimit - account.dataUsed)
  if (size > left)
    return errorResponse(
      402,
      `Storage quota exceeded: ${account.dataUsed} of ${account.dataLimit} bytes used, this pin needs ${size}`
    )
  account.dataUsed += size
  const record = context.files.add({
    publicKey: account.address,
    fileName: wanted.fileName ?? wanted.text,
    mimeType: null,
    fileSizeInBytes: String(size),
    cid: wanted.text,
    encryption: false,
    storageType: "ipfs",
    dealParameters: null
  })
  return json({ data: listedFile(record) })
}

export const pinRoutes = (context: ApiHostContext): Array<HttpHandler> => [
  on(
    context.host,
    Routes.files.pin,
    authed(context, (request, account) => pin(context, request, account))
  )
]
