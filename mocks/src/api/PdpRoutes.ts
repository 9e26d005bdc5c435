/**
 * PDP deals on the API host.
 *
 * - `GET /api/lighthouse/pdp_deal_request?cid=` (Bearer): the caller must hold a record of the CID
 *   (an upload or a pin); `Success` (text). `404 "File not found"` without one, `400 "File size
 *   exceeds the 100 MB PDP limit"` for a record over {@link PdpSizeLimit} bytes.
 * - `GET /api/lighthouse/pdp_deal_status?cid=` (no authentication): the deals that have shown up
 *   (see `PdpDeals.ts`), `[]` before.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import { type HttpHandler, HttpResponse } from "msw"
import { cidParam } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import type { Account } from "./Accounts.ts"
import { type ApiHostContext, authed, route } from "./Context.ts"
import { PdpSizeLimit } from "./PdpDeals.ts"

const requestDeal = (context: ApiHostContext, request: Request, account: Account): Response => {
  const param = cidParam(request)
  if ("error" in param) return param.error
  const record = context.files.byCidMatching((file) => file.cid === param.text && file.publicKey === account.address)
  if (record === undefined) return errorResponse(404, "File not found")
  if (Number(record.fileSizeInBytes) > PdpSizeLimit) return errorResponse(400, "File size exceeds the 100 MB PDP limit")
  context.pdp.request(param.text, account.address)
  return HttpResponse.text("Success")
}

export const pdpRoutes = (context: ApiHostContext): Array<HttpHandler> => [
  on(
    context.host,
    Routes.files.pdpDealRequest,
    authed(context, (request, account) => requestDeal(context, request, account))
  ),
  on(
    context.host,
    Routes.files.pdpDealStatus,
    route(context, ({ request }) => {
      const param = cidParam(request)
      return "error" in param ? param.error : json(context.pdp.status(param.text))
    })
  )
]
