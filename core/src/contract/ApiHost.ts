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
import { Routes } from "../routes/Routes.ts"
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
    HttpApiEndpoint.make(Routes.auth.getAuthMessage.method)(
      "getAuthMessage",
      Routes.auth.getAuthMessage.path,
      authMessage
    ).annotateMerge(knownFrom(`${sdkSource}/getApiKey/index.ts`, "the SDK's getApiKey")),
    HttpApiEndpoint.make(Routes.auth.getMessage.method)("getMessage", Routes.auth.getMessage.path, authMessage),
    HttpApiEndpoint.make(Routes.auth.createApiKey.method)("createApiKey", Routes.auth.createApiKey.path, apiKey),
    HttpApiEndpoint.make(Routes.auth.getApiKey.method)("getApiKey", Routes.auth.getApiKey.path, apiKey)
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
    HttpApiEndpoint.make(Routes.account.userDataUsage.method)("userDataUsage", Routes.account.userDataUsage.path, {
      headers: bearer,
      success: Usage,
      error: Unauthorized
    }).annotateMerge(knownFrom(`${sdkSource}/getBalance/index.ts`, "the SDK's getBalance")),
    HttpApiEndpoint.make(Routes.account.filesUploaded.method)("filesUploaded", Routes.account.filesUploaded.path, {
      headers: bearer,
      query: {
        lastKey: Schema.String.annotate({ description: "the id of the last record of the page before, or `null`" }),
        fileType: Schema.optionalKey(Schema.String)
      },
      success: UploadsPage,
      error: [apiRefusal(400, "Invalid lastKey"), Unauthorized]
    }).annotateMerge(knownFrom(`${sdkSource}/getUploads/index.ts`, "the SDK's getUploads")),
    HttpApiEndpoint.make(Routes.account.deleteFile.method)(
      "deleteFile",
      Routes.account.deleteFile.path,
      deletion
    ).annotateMerge(knownFrom(`${sdkSource}/deleteFile/index.ts`, "the SDK's deleteFile")),
    HttpApiEndpoint.make(Routes.account.deleteFileWalrus.method)(
      "deleteFileWalrus",
      Routes.account.deleteFileWalrus.path,
      deletion
    )
  )
  .annotate(Host, "api") {}

const byCid = { query: cidQuery }

/** What anyone may ask about stored content, pinning, PDP deals and prices. */
export class Files extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.make(Routes.files.fileInfo.method)("fileInfo", Routes.files.fileInfo.path, {
      ...byCid,
      success: FileInfo,
      error: [apiError(400), apiRefusal(404, "File not found")]
    }).annotateMerge(knownFrom(`${sdkSource}/getFileInfo/index.ts`, "the SDK's getFileInfo")),
    HttpApiEndpoint.make(Routes.files.dealStatus.method)("dealStatus", Routes.files.dealStatus.path, {
      ...byCid,
      success: Schema.Array(Deal),
      error: apiError(400)
    }).annotateMerge(knownFrom(`${sdkSource}/dealStatus/index.ts`, "the SDK's dealStatus")),
    HttpApiEndpoint.make(Routes.files.getProof.method)("getProof", Routes.files.getProof.path, {
      ...byCid,
      success: Proof,
      error: apiError(400).annotate({ description: "`Proof Doesn't exist yet` until a deal exists" })
    }).annotateMerge(knownFrom(`${sdkSource}/podsi/index.ts`, "the SDK's posdi (0.4.3)")),
    HttpApiEndpoint.make(Routes.files.walrusBlobs.method)("walrusBlobs", Routes.files.walrusBlobs.path, {
      ...byCid,
      success: WalrusBlobs,
      error: [apiError(400), apiRefusal(404, "File not found")]
    }),
    HttpApiEndpoint.make(Routes.files.pin.method)("pin", Routes.files.pin.path, {
      headers: bearer,
      payload: PinInput,
      success: Pinned,
      error: [apiError(400), Unauthorized, apiError(402), apiError(404)]
    }).annotateMerge(knownFrom(`${docsSource}`, "the provider's documentation (request only)")),
    HttpApiEndpoint.make(Routes.files.pdpDealRequest.method)("pdpDealRequest", Routes.files.pdpDealRequest.path, {
      ...byCid,
      headers: bearer,
      success: Schema.Literal("Success").pipe(HttpApiSchema.asText()),
      error: [apiError(400), Unauthorized, apiRefusal(404, "File not found")]
    }),
    HttpApiEndpoint.make(Routes.files.pdpDealStatus.method)("pdpDealStatus", Routes.files.pdpDealStatus.path, {
      ...byCid,
      success: Schema.Array(PdpDeal),
      error: apiError(400)
    }),
    HttpApiEndpoint.make(Routes.files.getTicker.method)("getTicker", Routes.files.getTicker.path, {
      query: { symbol: Schema.String },
      success: Schema.Number.annotate({ description: "the USD price of one coin" }),
      error: [apiRefusal(400, "symbol is required"), apiError(404)]
    })
  )
  .annotate(Host, "api") {}

/** An account's IPNS keys: generate, publish, list, remove. An unknown key is a 500, as the provider answers. */
export class Ipns extends HttpApiGroup.make("ipns")
  .add(
    HttpApiEndpoint.make(Routes.ipns.generateKey.method)("generateKey", Routes.ipns.generateKey.path, {
      headers: bearer,
      success: IpnsKey,
      error: Unauthorized
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/generateKey.ts`, "the SDK's generateKey")),
    HttpApiEndpoint.make(Routes.ipns.publishRecord.method)("publishRecord", Routes.ipns.publishRecord.path, {
      headers: bearer,
      query: { ...cidQuery, keyName: Schema.String },
      success: PublishedRecord,
      error: [apiError(400), Unauthorized, apiError(500)]
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/publishRecord.ts`, "the SDK's publishRecord")),
    HttpApiEndpoint.make(Routes.ipns.getIpnsRecords.method)("getIpnsRecords", Routes.ipns.getIpnsRecords.path, {
      headers: bearer,
      success: Schema.Array(IpnsRecord),
      error: Unauthorized
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/getAllKeys.ts`, "the SDK's getAllKeys")),
    HttpApiEndpoint.make(Routes.ipns.removeKey.method)("removeKey", Routes.ipns.removeKey.path, {
      headers: bearer,
      query: { keyName: Schema.String },
      success: RemovedKey,
      // The SDK's tests record a 400 for a key already removed; the simulated network answers 500.
      error: [apiError(400), Unauthorized, apiError(500)]
    }).annotateMerge(knownFrom(`${sdkSource}/ipns/removeKey.ts`, "the SDK's removeKey"))
  )
  .annotate(Host, "api") {}
