/**
 * The API host (`https://api.lighthouse.storage` by default): every route of spec §7 over the
 * shared state, with the wire details of reference/sdk-behaviour.md §5–§6.
 *
 * | route | answer |
 * |---|---|
 * | `GET /api/auth/get_auth_message?publicKey=`, `GET /api/auth/get_message?publicKey=` | JSON string to sign; 400 for a bad address |
 * | `POST /api/auth/create_api_key` `{publicKey, signedMessage}` (also `/get_api_key`) | JSON string API key; 400 no message issued, 401 bad signature |
 * | `GET /api/user/user_data_usage` (Bearer) | `{dataLimit, dataUsed, dataLimitPermanent, dataUsedPermanent, walrusDataLimit, walrusDataUsed}` |
 * | `GET /api/user/files_uploaded?lastKey=&fileType=` (Bearer) | `{fileList, totalFiles}`, newest first, `pageSize` a page; 400 unknown cursor |
 * | `DELETE /api/user/delete_file?id=` (Bearer) | `{message: "File deleted successfully."}`; 404 not the caller's file |
 * | `GET /api/lighthouse/file_info?cid=` | `{fileSizeInBytes, cid, encryption, fileName, mimeType, txHash}`; 404 unknown |
 * | `GET /api/lighthouse/deal_status?cid=` | `[]` until a deal is simulated, then the deals; 400 without a CID |
 * | `GET /api/lighthouse/get_proof?cid=` | 400 until a deal exists, then the PoDSI of every deal |
 * | `GET /api/lighthouse/get_ticker?symbol=` | USD price as a JSON number; 404 unknown symbol |
 * | `GET /api/ipns/generate_key` (Bearer) | `{ipnsName, ipnsId}` |
 * | `GET /api/ipns/publish_record?cid=&keyName=` (Bearer) | `{Name: ipnsId, Value: "/ipfs/<cid>"}`; 500 unknown key |
 * | `GET /api/ipns/get_ipns_records` (Bearer) | `[{ipnsName, ipnsId, publicKey, cid, lastUpdate}]` (`cid` null before a publish) |
 * | `DELETE /api/ipns/remove_key?keyName=` (Bearer) | `{Keys: [{Name, Id}]}`; 500 unknown or already removed |
 *
 * A missing or unknown API key is 401 `{"error":"Authentication failed"}`. Other paths are 404.
 */
import { type HttpHandler, http } from "msw"
import type { CID } from "multiformats/cid"
import type { Faults } from "../faults/index.ts"
import { parseCid } from "../upload/ContentStore.ts"
import { type Account, type Accounts, InvalidAddress } from "./Accounts.ts"
import { type Deals, dealStatusEntry, proofResponse } from "./Deals.ts"
import { type FileRecord, type Files, UnknownCursor } from "./Files.ts"
import type { IpnsKeys } from "./Ipns.ts"
import { authenticationFailed, bearerToken, cidParam, errorResponse, json, queryOf } from "./respond.ts"
import type { Tickers } from "./Tickers.ts"

export interface ApiHostContext {
  readonly host: string
  readonly accounts: Accounts
  readonly files: Files
  readonly deals: Deals
  readonly ipns: IpnsKeys
  readonly tickers: Tickers
  readonly faults: Faults
  /** Records per `files_uploaded` page. */
  readonly pageSize: number
}

/** A record as `files_uploaded` lists it (reference §5.5). */
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

/** The same content under another CID form (v0 ↔ v1 of one dag-pb node) counts as the same CID. */
const sameCid = (a: CID, text: string) => {
  const b = parseCid(text)
  return b !== undefined && a.toV1().equals(b.toV1())
}

export const apiHandlers = (context: ApiHostContext): Array<HttpHandler> => {
  const { host, accounts, files, deals, ipns, tickers, faults } = context

  type Resolver = (info: { readonly request: Request }) => Response | Promise<Response>
  const route = (resolver: Resolver) => faults.wrap("api", resolver)
  const authed = (resolver: (request: Request, account: Account) => Response | Promise<Response>) =>
    route(async ({ request }) => {
      const account = await accounts.authenticate(bearerToken(request), { oneTime: false })
      return account === undefined ? authenticationFailed() : resolver(request, account)
    })

  const authMessage = route(({ request }) => {
    const publicKey = queryOf(request).get("publicKey") ?? ""
    try {
      return json(accounts.issueMessage(publicKey))
    } catch (error) {
      if (error instanceof InvalidAddress) return errorResponse(400, "Invalid public key")
      throw error
    }
  })

  const createApiKey = route(async ({ request }) => {
    let body: unknown
    try {
      body = await request.json()
    } catch {
      return errorResponse(400, "the body must be JSON {publicKey, signedMessage}")
    }
    const { publicKey, signedMessage } = (body ?? {}) as { publicKey?: unknown; signedMessage?: unknown }
    if (typeof publicKey !== "string" || typeof signedMessage !== "string") {
      return errorResponse(400, "publicKey and signedMessage are required")
    }
    let outcome: Awaited<ReturnType<Accounts["redeemSignature"]>>
    try {
      outcome = await accounts.redeemSignature(publicKey, signedMessage)
    } catch (error) {
      if (error instanceof InvalidAddress) return errorResponse(400, "Invalid public key")
      throw error
    }
    if (outcome === "no-message") return errorResponse(400, "No auth message issued for this public key")
    if (outcome === "bad-signature") return errorResponse(401, "Invalid signature")
    return json(accounts.addApiKey(outcome.address))
  })

  const findFile = (cid: CID, text: string): FileRecord | undefined =>
    files.byCid(text) ?? files.byCidMatching((record) => sameCid(cid, record.cid))

  return [
    http.get(`${host}/api/auth/get_auth_message`, authMessage),
    http.get(`${host}/api/auth/get_message`, authMessage),
    http.post(`${host}/api/auth/create_api_key`, createApiKey),
    http.post(`${host}/api/auth/get_api_key`, createApiKey),

    http.get(
      `${host}/api/user/user_data_usage`,
      authed((_, account) =>
        json({
          dataLimit: account.dataLimit,
          dataUsed: account.dataUsed,
          dataLimitPermanent: account.dataLimitPermanent,
          dataUsedPermanent: account.dataUsedPermanent,
          walrusDataLimit: account.walrusDataLimit,
          walrusDataUsed: account.walrusDataUsed
        })
      )
    ),

    http.get(
      `${host}/api/user/files_uploaded`,
      authed((request, account) => {
        const query = queryOf(request)
        const rawKey = query.get("lastKey")
        const lastKey = rawKey === null || rawKey === "" || rawKey === "null" || rawKey === "undefined" ? null : rawKey
        // `all` (the SDK's default) lists everything; another value selects a storage type (`ipfs`, `walrus`).
        const fileType = query.get("fileType") ?? "all"
        try {
          const page = files.page(account.address, {
            lastKey,
            pageSize: context.pageSize,
            ...(fileType === "all" ? {} : { filter: (record: FileRecord) => record.storageType === fileType })
          })
          return json({ fileList: page.fileList.map(listedFile), totalFiles: page.totalFiles })
        } catch (error) {
          if (error instanceof UnknownCursor) return errorResponse(400, "Invalid lastKey")
          throw error
        }
      })
    ),

    http.delete(
      `${host}/api/user/delete_file`,
      authed((request, account) => {
        const id = queryOf(request).get("id") ?? ""
        if (id === "") return errorResponse(400, "id is required")
        const file = files.byId(id)
        if (file === undefined || file.publicKey !== account.address) return errorResponse(404, "File not found")
        files.remove(id)
        // Deleted content stops counting against the quota.
        account.dataUsed = Math.max(0, account.dataUsed - Number(file.fileSizeInBytes))
        return json({ message: "File deleted successfully." })
      })
    ),

    http.get(
      `${host}/api/lighthouse/file_info`,
      route(({ request }) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        const file = findFile(param.cid, param.text)
        if (file === undefined) return errorResponse(404, "File not found")
        return json({
          fileSizeInBytes: file.fileSizeInBytes,
          cid: file.cid,
          encryption: file.encryption,
          fileName: file.fileName,
          mimeType: file.mimeType,
          txHash: file.txHash
        })
      })
    ),

    http.get(
      `${host}/api/lighthouse/deal_status`,
      route(({ request }) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        return json(deals.get(param.cid).map(dealStatusEntry))
      })
    ),

    http.get(
      `${host}/api/lighthouse/get_proof`,
      route(({ request }) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        const made = deals.get(param.cid)
        if (made.length === 0) return errorResponse(400, "Proof Doesn't exist yet")
        return json(proofResponse(made))
      })
    ),

    http.get(
      `${host}/api/lighthouse/get_ticker`,
      route(({ request }) => {
        const symbol = queryOf(request).get("symbol") ?? ""
        if (symbol === "") return errorResponse(400, "symbol is required")
        const price = tickers.get(symbol)
        return price === undefined ? errorResponse(404, `no price for ${symbol}`) : json(price)
      })
    ),

    http.get(
      `${host}/api/ipns/generate_key`,
      authed((_, account) => {
        const key = ipns.generate(account.address)
        return json({ ipnsName: key.ipnsName, ipnsId: key.ipnsId })
      })
    ),

    http.get(
      `${host}/api/ipns/publish_record`,
      authed((request, account) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        const keyName = queryOf(request).get("keyName") ?? ""
        const key = ipns.get(account.address, keyName)
        if (key === undefined) return errorResponse(500, `no key named ${keyName}`)
        ipns.publish(account.address, keyName, param.text)
        return json({ Name: key.ipnsId, Value: `/ipfs/${param.text}` })
      })
    ),

    http.get(
      `${host}/api/ipns/get_ipns_records`,
      authed((_, account) =>
        json(
          ipns.of(account.address).map((key) => ({
            ipnsName: key.ipnsName,
            ipnsId: key.ipnsId,
            publicKey: key.publicKey,
            cid: key.cid,
            lastUpdate: key.lastUpdate
          }))
        )
      )
    ),

    http.delete(
      `${host}/api/ipns/remove_key`,
      authed((request, account) => {
        const keyName = queryOf(request).get("keyName") ?? ""
        const key = ipns.get(account.address, keyName)
        if (key === undefined) return errorResponse(500, `no key named ${keyName}`)
        ipns.remove(account.address, keyName)
        return json({ Keys: [{ Name: key.ipnsName, Id: key.ipnsId }] })
      })
    ),

    http.all(
      `${host}/*`,
      route(() => errorResponse(404, "Not Found"))
    )
  ]
}
