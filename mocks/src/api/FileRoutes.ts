/**
 * What anyone may ask about stored content: a file's record, its Filecoin deals and their proofs.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import type { CID } from "multiformats/cid"
import { cidParam, parseCid } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import { type ApiHostContext, route } from "./Context.ts"
import { dealStatusEntry, proofResponse } from "./Deals.ts"
import type { FileRecord, Files } from "./Files.ts"

/** The same content under another CID form (v0 ↔ v1 of one dag-pb node) counts as the same CID. */
const sameCid = (a: CID, text: string) => {
  const b = parseCid(text)
  return b !== undefined && a.toV1().equals(b.toV1())
}

const findFile = (files: Files, cid: CID, text: string): FileRecord | undefined =>
  files.byCid(text) ?? files.byCidMatching((record) => sameCid(cid, record.cid))

const fileInfo = (files: Files, request: Request): Response => {
  const param = cidParam(request)
  if ("error" in param) return param.error
  const file = findFile(files, param.cid, param.text)
  if (file === undefined) return errorResponse(404, "File not found")
  return json({
    fileSizeInBytes: file.fileSizeInBytes,
    cid: file.cid,
    encryption: file.encryption,
    fileName: file.fileName,
    mimeType: file.mimeType,
    txHash: file.txHash
  })
}

export const fileRoutes = (context: ApiHostContext): Array<HttpHandler> => {
  const { host, files, deals } = context
  return [
    on(
      host,
      Routes.files.fileInfo,
      route(context, ({ request }) => fileInfo(files, request))
    ),
    on(
      host,
      Routes.files.dealStatus,
      route(context, ({ request }) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        return json(deals.get(param.cid).map(dealStatusEntry))
      })
    ),
    on(
      host,
      Routes.files.getProof,
      route(context, ({ request }) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        const made = deals.get(param.cid)
        if (made.length === 0) return errorResponse(400, "Proof Doesn't exist yet")
        return json(proofResponse(made))
      })
    )
  ]
}
