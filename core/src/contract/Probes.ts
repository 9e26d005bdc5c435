/**
 * The doctor's probes: the endpoints a client can ask without changing anything, each with the
 * values it is asked with. Method and path come from the contract's declaration, never written
 * here. Authenticated reads are asked with the caller's API key, or without one, when the
 * declared answer is the `401`.
 *
 * @since 0.1.0
 */
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { HttpApiEndpoint } from "effect/http-api"
import { Endpoints } from "./Api.ts"

/** One read-only question to one endpoint. */
export interface Probe {
  readonly group: string
  readonly endpoint: string
  /** Path parameters, query values. */
  readonly params?: Readonly<Record<string, string>>
  readonly query?: Readonly<Record<string, string>>
  /** Asked with the API key when there is one (else its `401` is what is checked). */
  readonly apiKey?: boolean
  /** The key nodes take an `Authorization` header on every call, empty without a token. */
  readonly emptyAuthorization?: boolean
  /** An unpaid x402 upload of one byte: answered `402` with the terms, nothing stored or paid. */
  readonly unpaidUpload?: boolean
}

/** An address nobody owns, for the routes that issue a sign-in message. */
const nobody = "0x0000000000000000000000000000000000000000"

/** The probes, asking about `cid` (a CID nobody stores, unless the caller names one). */
export const probes = (cid: string): ReadonlyArray<Probe> => [
  { group: "auth", endpoint: "getAuthMessage", query: { publicKey: nobody } },
  { group: "account", endpoint: "userDataUsage", apiKey: true },
  { group: "account", endpoint: "filesUploaded", query: { lastKey: "null" }, apiKey: true },
  { group: "files", endpoint: "fileInfo", query: { cid } },
  { group: "files", endpoint: "dealStatus", query: { cid } },
  { group: "files", endpoint: "getProof", query: { cid } },
  { group: "files", endpoint: "walrusBlobs", query: { cid } },
  { group: "files", endpoint: "pdpDealStatus", query: { cid } },
  { group: "files", endpoint: "getTicker", query: { symbol: "FIL" } },
  { group: "ipns", endpoint: "getIpnsRecords", apiKey: true },
  { group: "x402", endpoint: "upload", unpaidUpload: true },
  { group: "gateway", endpoint: "providers", params: { cid } },
  { group: "keyNodeAuth", endpoint: "authMessage", params: { address: nobody }, emptyAuthorization: true },
  { group: "keyNodes", endpoint: "getConditions", params: { cid }, emptyAuthorization: true }
]

/** The declared endpoint a probe asks. */
export const endpointOf = (probe: Probe): HttpApiEndpoint.Top => {
  const endpoint = Endpoints.get(`${probe.group}.${probe.endpoint}`)
  if (endpoint === undefined) throw new Error(`no endpoint ${probe.group}.${probe.endpoint} in the contract`)
  return endpoint
}

const unpaidBody = () => {
  const form = new FormData()
  form.append("file", new Blob([new Uint8Array([0x0a])], { type: "text/plain" }), "doctor.txt")
  return form
}

/** The request of `probe` against `baseUrl`, with `apiKey` when it takes one. */
export const requestOf = (probe: Probe, baseUrl: string, apiKey: string | undefined) => {
  const endpoint = endpointOf(probe)
  const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(probe.params?.[name] ?? ""))
  let request = HttpClientRequest.make(endpoint.method)(`${baseUrl}${path}`, {
    ...(probe.query === undefined ? {} : { urlParams: probe.query })
  })
  if (probe.apiKey === true && apiKey !== undefined) request = HttpClientRequest.bearerToken(request, apiKey)
  if (probe.emptyAuthorization === true) request = HttpClientRequest.setHeader(request, "Authorization", "")
  if (probe.unpaidUpload === true) request = HttpClientRequest.bodyFormData(request, unpaidBody())
  return request
}
