/**
 * The API host's routes (`https://api.lighthouse.storage`), declared once: sign-in and API keys,
 * the account's files, what anyone may ask about a CID, and IPNS (docs/PROTOCOL.md#api-host).
 * The answers are the library's own models; each error answer has its status and body.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import * as Schema from "effect/Schema"
import { Deal, Deleted, FileInfo, PdpDeal, PinInput, Proof, UploadsPage, Usage } from "../files/Models.ts"
import { Pinned } from "../files/Pin.ts"
import { IpnsKey, IpnsRecord, PublishedRecord, RemovedKey } from "../ipns/Models.ts"
import { WalrusBlobs } from "../schema/Walrus.ts"
import {
  apiError,
  apiRefusal,
  bearer,
  cidQuery,
  docsSource,
  Host,
  knownFrom,
  sdkSource,
  Unauthorized
} from "./Shapes.ts"

const publicKeyQuery = { publicKey: Schema.String.annotate({ description: "an EVM address" }) }
/** `POST create_api_key`: the signature of the message `get_auth_message` issued. */
const ApiKeyRequest = Schema.Struct({ publicKey: Schema.String, signedMessage: Schema.String }).annotate({
  identifier: "ApiKeyRequest"
})
const authMessage = {
  query: publicKeyQuery,
  success: Schema.String.annotate({ description: "the message to sign, as a JSON string" }),
  error: apiRefusal(400, "Invalid public key")
}
const apiKey = {
  payload: ApiKeyRequest,
  success: Schema.String.annotate({ description: "the API key, as a JSON string" }),
  error: [apiError(400), apiRefusal(401, "Invalid signature")]
}

/** Sign-in: the message a wallet signs, and the API key its signature buys. */
export class Auth extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.get("getAuthMessage", "/api/auth/get_auth_message", authMessage).annotateMerge(
      knownFrom(`${sdkSource}/getApiKey/index.ts`, "the SDK's getApiKey")
    ),
    HttpApiEndpoint.get("getMessage", "/api/auth/get_message", authMessage),
    HttpApiEndpoint.post("createApiKey", "/api/auth/create_api_key", apiKey),
    HttpApiEndpoint.post("getApiKey", "/api/auth/get_api_key", apiKey)
  )
  .annotate(Host, "api") {}

const deletion = {
  headers: bearer,
  query: { id: Schema.String },
  success: Deleted,
  error: [apiRefusal(400, "id is required"), apiRefusal(404, "File not found"), Unauthorized]
}

/** An account's own view: its usage, its uploads a page at a time, deleting one. */
export class Account extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("userDataUsage", "/api/user/user_data_usage", {
      headers: bearer,
      success: Usage,
      error: Unauthorized
    }).annotateMerge(knownFrom(`${sdkSource}/getBalance/index.ts`, "the SDK's getBalance")),
    HttpApiEndpoint.get("filesUploaded", "/api/user/files_uploaded", {
      headers: bearer,
      query: {
        lastKey: Schema.String.annotate({ description: "the id of the last record of the page before, or `null`" }),
        fileType: Schema.optionalKey(Schema.String)
      },
      success: UploadsPage,
      error: [apiRefusal(400, "Invalid lastKey"), Unauthorized]
    }).annotateMerge(knownFrom(`${sdkSource}/getUploads/index.ts`, "the SDK's getUploads")),
    HttpApiEndpoint.delete("deleteFile", "/api/user/delete_file", deletion).annotateMerge(
      knownFrom(`${sdkSource}/deleteFile/index.ts`, "the SDK's deleteFile")
    ),
    HttpApiEndpoint.delete("deleteFileWalrus", "/api/user/delete_file_walrus", deletion)
  )
  .annotate(Host, "api") {}

const byCid = { query: cidQuery }

/** What anyone may ask about stored content, pinning, PDP deals and prices. */
export class Files extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.get("fileInfo", "/api/lighthouse/file_info", {
      ...byCid,
      success: FileInfo,
      error: [apiError(400), apiRefusal(404, "File not found")]
    }).annotateMerge(knownFrom(`${sdkSource}/getFileInfo/index.ts`, "the SDK's getFileInfo")),
    HttpApiEndpoint.get("dealStatus", "/api/lighthouse/deal_status", {
      ...byCid,
      success: Schema.Array(Deal),
      error: apiError(400)
    }).annotateMerge(knownFrom(`${sdkSource}/dealStatus/index.ts`, "the SDK's dealStatus")),
    HttpApiEndpoint.get("getProof", "/api/lighthouse/get_proof", {
      ...byCid,
      success: Proof,
      error: apiError(400).annotate({ description: "`Proof Doesn't exist yet` until a deal exists" })
    }).annotateMerge(knownFrom(`${sdkSource}/podsi/index.ts`, "the SDK's posdi (0.4.3)")),
    HttpApiEndpoint.get("walrusBlobs", "/api/lighthouse/walrus_blobs", {
      ...byCid,
      success: WalrusBlobs,
      error: [apiError(400), apiRefusal(404, "File not found")]
    }),
    HttpApiEndpoint.post("pin", "/api/lighthouse/pin", {
      headers: bearer,
      payload: PinInput,
      success: Pinned,
      error: [apiError(400), Unauthorized, apiError(402), apiError(404)]
    }).annotateMerge(knownFrom(`${docsSource}`, "the provider's documentation (request only)")),
    HttpApiEndpoint.get("pdpDealRequest", "/api/lighthouse/pdp_deal_request", {
      ...byCid,
      headers: bearer,
      success: Schema.Literal("Success").pipe(HttpApiSchema.asText()),
      error: [apiError(400), Unauthorized, apiRefusal(404, "File not found")]
    }),
    HttpApiEndpoint.get("pdpDealStatus", "/api/lighthouse/pdp_deal_status", {
      ...byCid,
      success: Schema.Array(PdpDeal),
      error: apiError(400)
    }),
    HttpApiEndpoint.get("getTicker", "/api/lighthouse/get_ticker", {
      query: { symbol: Schema.String },
      success: Schema.Number.annotate({ description: "the USD price of one coin" }),
      error: [apiRefusal(400, "symbol is required"), apiError(404)]
    })
  )
  .annotate(Host, "api") {}

/** An account's IPNS keys: generate, publish, list, remove. An unknown key is a 500, as the provider answers. */
export class Ipns extends HttpApiGroup.make("ipns")
  .add(
    HttpApiEndpoint.get("generateKey", "/api/ipns/generate_key", {
      headers: bearer,
      success: IpnsKey,
      error: Unauthorized
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/generateKey.ts`, "the SDK's generateKey")),
    HttpApiEndpoint.get("publishRecord", "/api/ipns/publish_record", {
      headers: bearer,
      query: { ...cidQuery, keyName: Schema.String },
      success: PublishedRecord,
      error: [apiError(400), Unauthorized, apiError(500)]
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/publishRecord.ts`, "the SDK's publishRecord")),
    HttpApiEndpoint.get("getIpnsRecords", "/api/ipns/get_ipns_records", {
      headers: bearer,
      success: Schema.Array(IpnsRecord),
      error: Unauthorized
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/getAllKeys.ts`, "the SDK's getAllKeys")),
    HttpApiEndpoint.delete("removeKey", "/api/ipns/remove_key", {
      headers: bearer,
      query: { keyName: Schema.String },
      success: RemovedKey,
      // The SDK's tests record a 400 for a key already removed; the simulated network answers 500.
      error: [apiError(400), Unauthorized, apiError(500)]
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/removeKey.ts`, "the SDK's removeKey"))
  )
  .annotate(Host, "api") {}
