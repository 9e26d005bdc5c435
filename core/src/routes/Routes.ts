/**
 * The method and path of every endpoint of the contract, written once. The `HttpApi` groups
 * declare each endpoint at its route here; the library's requests and the simulated network's
 * handlers take their paths from the same place, so none of them writes a route path by hand
 * (`scripts/test/routePaths.test.ts` fails on one that does).
 *
 * A module of plain data, importing nothing, in a folder of its own: the request modules of the library reach it without
 * loading `effect/http-api` (which only `lighthouse-effect/contract` needs), and the contract's
 * groups, which import the library's models, do not form a cycle with the modules that send them.
 *
 * @since 0.2.0
 */

/** An HTTP method an endpoint is declared with. */
export type RouteMethod = "GET" | "POST" | "PUT" | "DELETE"

/** One endpoint's method and path (`:name` for a path parameter, the syntax of Effect and msw). */
export interface Route<M extends RouteMethod = RouteMethod, P extends string = string> {
  readonly method: M
  readonly path: P
}

const route = <const M extends RouteMethod, const P extends string>(method: M, path: P): Route<M, P> => ({
  method,
  path
})

/** Every route, by group and endpoint identifier (as the `HttpApi` groups name them). */
export const Routes = {
  auth: {
    getAuthMessage: route("GET", "/api/auth/get_auth_message"),
    getMessage: route("GET", "/api/auth/get_message"),
    createApiKey: route("POST", "/api/auth/create_api_key"),
    getApiKey: route("POST", "/api/auth/get_api_key")
  },
  account: {
    userDataUsage: route("GET", "/api/user/user_data_usage"),
    filesUploaded: route("GET", "/api/user/files_uploaded"),
    deleteFile: route("DELETE", "/api/user/delete_file"),
    deleteFileWalrus: route("DELETE", "/api/user/delete_file_walrus")
  },
  files: {
    fileInfo: route("GET", "/api/lighthouse/file_info"),
    dealStatus: route("GET", "/api/lighthouse/deal_status"),
    getProof: route("GET", "/api/lighthouse/get_proof"),
    walrusBlobs: route("GET", "/api/lighthouse/walrus_blobs"),
    pin: route("POST", "/api/lighthouse/pin"),
    pdpDealRequest: route("GET", "/api/lighthouse/pdp_deal_request"),
    pdpDealStatus: route("GET", "/api/lighthouse/pdp_deal_status"),
    getTicker: route("GET", "/api/lighthouse/get_ticker")
  },
  ipns: {
    generateKey: route("GET", "/api/ipns/generate_key"),
    publishRecord: route("GET", "/api/ipns/publish_record"),
    getIpnsRecords: route("GET", "/api/ipns/get_ipns_records"),
    removeKey: route("DELETE", "/api/ipns/remove_key")
  },
  x402: {
    upload: route("POST", "/api/x402/upload")
  },
  x402Current: {
    price: route("GET", "/api/upload/price"),
    upload: route("POST", "/api/upload"),
    renewPrice: route("GET", "/api/renew/price"),
    renew: route("POST", "/api/renew")
  },
  uploadNode: {
    add: route("POST", "/api/v0/add"),
    dagImport: route("POST", "/api/v0/dag/import")
  },
  gateway: {
    cat: route("POST", "/api/v0/cat/:cid"),
    ipfs: route("GET", "/ipfs/:cid"),
    ipns: route("GET", "/ipns/:name"),
    providers: route("GET", "/routing/v1/providers/:cid"),
    ipnsRecord: route("GET", "/routing/v1/ipns/:name"),
    publishIpnsRecord: route("PUT", "/routing/v1/ipns/:name")
  },
  keyNodeAuth: {
    authMessage: route("GET", "/api/message/:address"),
    getJwt: route("POST", "/api/message/get-jwt"),
    refreshJwt: route("PUT", "/api/message/get-jwt")
  },
  keyNodes: {
    saveShard: route("POST", "/api/setSharedKey/:node"),
    share: route("PUT", "/api/setSharedKey/:node"),
    revoke: route("DELETE", "/api/setSharedKey/:node"),
    transferOwnership: route("POST", "/api/transferOwnership/:node"),
    retrieveShard: route("POST", "/api/retrieveSharedKey/:node"),
    createConditions: route("POST", "/api/fileAccessConditions/:node"),
    updateConditions: route("PUT", "/api/fileAccessConditions/:node"),
    getConditions: route("GET", "/api/fileAccessConditions/get/:cid"),
    delegateAllFiles: route("POST", "/api/setAllFilesAccess/:node")
  },
  dev: {
    clock: route("GET", "/__dev/clock"),
    moveClock: route("POST", "/__dev/clock"),
    docs: route("GET", "/docs")
  }
} as const

/** The names of `path`'s parameters (`/api/setSharedKey/:node` → `"node"`). */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never

/** `route`'s path with each `:name` replaced by its value, escaped as a path segment. */
export const pathOf = <P extends string>(
  route: Route<RouteMethod, P>,
  params: Readonly<Record<PathParams<P>, string | number>>
): string =>
  route.path.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(String((params as Readonly<Record<string, string | number>>)[name]))
  )

/** A key node call's method and path (`KeyNodes.call`'s request), the path's parameters filled in. */
export const callOf = <M extends RouteMethod, P extends string>(
  route: Route<M, P>,
  params: Readonly<Record<PathParams<P>, string | number>>
): { readonly method: M; readonly path: string } => ({ method: route.method, path: pathOf(route, params) })

/** The part of `route`'s path before its first parameter (`/api/v0/cat/:cid` → `/api/v0/cat/`). */
export const prefixOf = (route: Route): string => {
  const at = route.path.indexOf(":")
  return at === -1 ? route.path : route.path.slice(0, at)
}
