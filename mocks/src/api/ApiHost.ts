/**
 * The API host (`https://api.lighthouse.storage` by default): every route the provider's SDK
 * calls, over the shared state, with the provider's wire formats. Routes are grouped by concern in
 * `*Routes.ts`; what they share is in `Context.ts`.
 *
 * | route | answer |
 * |---|---|
 * | `GET /api/auth/get_auth_message?publicKey=`, `GET /api/auth/get_message?publicKey=` | JSON string to sign; 400 for a bad address |
 * | `POST /api/auth/create_api_key` `{publicKey, signedMessage}` (also `/get_api_key`) | JSON string API key; 400 no message issued, 401 bad signature |
 * | `GET /api/user/user_data_usage` (Bearer) | `{dataLimit, dataUsed, dataLimitPermanent, dataUsedPermanent, walrusDataLimit, walrusDataUsed}` |
 * | `GET /api/user/files_uploaded?lastKey=&fileType=` (Bearer) | `{fileList, totalFiles}`, newest first, `pageSize` a page; 400 unknown cursor |
 * | `DELETE /api/user/delete_file?id=` (Bearer) | `{message: "File deleted successfully."}`; 404 not the caller's file, or stored on Walrus |
 * | `DELETE /api/user/delete_file_walrus?id=` (Bearer) | the same for a file stored on Walrus (its Walrus quota freed) |
 * | `GET /api/lighthouse/walrus_blobs?cid=` | `{blobIds}`, one per file stored on Walrus; 404 nothing on Walrus |
 * | `GET /api/lighthouse/file_info?cid=` | `{fileSizeInBytes, cid, encryption, fileName, mimeType, txHash}`; 404 unknown |
 * | `GET /api/lighthouse/deal_status?cid=` | `[]` until a deal is simulated, then the deals; 400 without a CID |
 * | `GET /api/lighthouse/get_proof?cid=` | 400 until a deal exists, then the PoDSI of every deal |
 * | `POST /api/lighthouse/pin` `{cid, fileName?}` (Bearer) | `{data: record}`; 404 content not reachable, 402 past the quota |
 * | `GET /api/lighthouse/pdp_deal_request?cid=` (Bearer) | `Success`; 404 not the caller's file, 400 over 100 MB |
 * | `GET /api/lighthouse/pdp_deal_status?cid=` | `[]` until 20 minutes after the request, then the completed deals |
 * | `GET /api/lighthouse/get_ticker?symbol=` | USD price as a JSON number; 404 unknown symbol |
 * | `GET /api/ipns/generate_key` (Bearer) | `{ipnsName, ipnsId}` |
 * | `GET /api/ipns/publish_record?cid=&keyName=` (Bearer) | `{Name: ipnsId, Value: "/ipfs/<cid>"}`; 500 unknown key |
 * | `GET /api/ipns/get_ipns_records` (Bearer) | `[{ipnsName, ipnsId, publicKey, cid, lastUpdate}]` (`cid` null before a publish) |
 * | `DELETE /api/ipns/remove_key?keyName=` (Bearer) | `{Keys: [{Name, Id}]}`; 500 unknown or already removed |
 *
 * A missing or unknown API key is 401 `{"error":"Authentication failed"}`. Other paths are 404.
 */
import type { HttpHandler } from "msw"
import { errorResponse } from "../http/Respond.ts"
import { unmatched } from "../http/Routes.ts"
import { authRoutes } from "./AuthRoutes.ts"
import { type ApiHostContext, route } from "./Context.ts"
import { fileRoutes } from "./FileRoutes.ts"
import { ipnsRoutes } from "./IpnsRoutes.ts"
import { pdpRoutes } from "./PdpRoutes.ts"
import { pinRoutes } from "./PinRoutes.ts"
import { tickerRoutes } from "./TickerRoutes.ts"
import { userRoutes } from "./UserRoutes.ts"
import { walrusRoutes } from "./WalrusRoutes.ts"

export type { ApiHostContext } from "./Context.ts"

export const apiHandlers = (context: ApiHostContext): Array<HttpHandler> => [
  ...authRoutes(context),
  ...userRoutes(context),
  ...walrusRoutes(context),
  ...fileRoutes(context),
  ...tickerRoutes(context),
  ...ipnsRoutes(context),
  ...pinRoutes(context),
  ...pdpRoutes(context),
  unmatched(
    context.host,
    route(context, () => errorResponse(404, "Not Found"))
  )
]
