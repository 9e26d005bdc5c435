/**
 * What every host group of the contract shares: which host serves a group, where a shape known
 * only from the provider's SDK or documents comes from, and the error bodies of each host
 * (docs/PROTOCOL.md#conventions): `{ error }` on the API host and the upload node, `{ message }`
 * on the key nodes.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import { HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { DefaultHosts } from "../LighthouseConfig.ts"

/** The four hosts of docs/PROTOCOL.md#hosts, as `LighthouseConfig.hosts` names them. */
export const HostNames = ["api", "node", "gateway", "encryption"] as const
export type HostName = (typeof HostNames)[number]

/** The production address of each host. */
export const ProductionHosts: Readonly<Record<HostName, string>> = {
  api: DefaultHosts.api,
  node: DefaultHosts.node,
  gateway: DefaultHosts.gateway,
  encryption: DefaultHosts.encryption
}

/** The host a group's endpoints are served by (a group annotation). */
export class Host extends Context.Service<Host, HostName>()("lighthouse-effect/contract/Host") {}

/** The provider's SDK sources, where a shape is known only from its code and its tests. */
export const sdkSource = "https://github.com/lighthouse-web3/lighthouse-package/blob/main/src/Lighthouse"
/** The provider's key-node client (kavach). */
export const kavachSource = "https://github.com/lighthouse-web3/encryption-sdk/tree/main/src/methods"
/** The provider's documentation. */
export const docsSource = "https://docs.lighthouse.storage"

/**
 * An endpoint whose answer is known only from a public source (the provider publishes no
 * machine-readable description of its API): the OpenAPI operation links to it.
 */
export const knownFrom = (url: string, what: string) =>
  OpenApi.annotations({ externalDocs: { url, description: `The shape is known from ${what}` } })

/** An error answer of the API host or the upload node: `{ error }` with any text. */
export const ApiError = Schema.Struct({ error: Schema.String }).annotate({ identifier: "ApiError" })

/** `{ error }` with `status`, any text. */
export const apiError = (status: number) => ApiError.pipe(HttpApiSchema.status(status))

/** `{ error }` with `status` and exactly the catalogue's `text`. */
export const apiRefusal = (status: number, text: string) =>
  Schema.Struct({ error: Schema.Literal(text) }).pipe(HttpApiSchema.status(status))

/** A missing or unknown API key, on every bearer-authenticated route. */
export const Unauthorized = apiRefusal(401, "Authentication failed")

/** A key node's error answer: `{ message }` with any text. */
export const NodeError = Schema.Struct({ message: Schema.String }).annotate({ identifier: "NodeError" })

/** `{ message }` with `status`, any text. */
export const nodeError = (status: number) => NodeError.pipe(HttpApiSchema.status(status))

/** `{ message }` with `status` and exactly `text`. */
export const nodeRefusal = (status: number, text: string) =>
  Schema.Struct({ message: Schema.Literal(text) }).pipe(HttpApiSchema.status(status))

/** An unknown CID on a key node: a 400 whose text holds `null` (not a 404, which is retried). */
export const CidNotFound = Schema.Struct({ message: Schema.Literal("cid not found"), data: Schema.Null }).pipe(
  HttpApiSchema.status(400)
)

/** A caller not entitled to a record: `Access Denied`, nested three levels as the provider nests it. */
export const AccessDenied = Schema.Struct({
  message: Schema.Struct({ message: Schema.Struct({ message: Schema.Literal("Access Denied") }) })
}).pipe(HttpApiSchema.status(403))

/** The bearer header of the API host's and the upload node's authenticated routes. */
export const bearer = { authorization: Schema.String.annotate({ description: "`Bearer {API key}`" }) }

/** A CID in a query (checked by the host: `400 Invalid CID`, empty: `400 cid is required`). */
export const cidQuery = { cid: Schema.String.annotate({ description: "a CID (docs/PROTOCOL.md#cids)" }) }
