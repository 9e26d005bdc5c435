/**
 * The gateway (`https://gateway.lighthouse.storage`), declared once: the provider's `cat`, the
 * path and trustless gateway described by their media types (the bytes are the data plane's,
 * read by `download/` and checked by `verify/`), and the delegated routing API's providers and
 * IPNS records (docs/PROTOCOL.md#gateway, #delegated-routing).
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { Routes } from "../routes/Routes.ts"
import { apiError, Host, knownFrom } from "./Shapes.ts"

const Cid = Schema.String.annotate({ description: "a CID, optionally followed by `/{path}`" })
const Content = HttpApiSchema.StreamUint8Array({
  contentType: ["application/octet-stream", "application/vnd.ipld.car", "application/vnd.ipld.raw"]
})
const contentQuery = {
  format: Schema.optionalKey(Schema.Literals(["raw", "car", "ipns-record"])),
  "dag-scope": Schema.optionalKey(Schema.Literals(["block", "entity", "all"])),
  "entity-bytes": Schema.optionalKey(Schema.String),
  filename: Schema.optionalKey(Schema.String)
}
const notHeld = [apiError(400), apiError(404)]

/** One provider record of the routing API (the spec's `peer` schema). */
export const Provider = Schema.Struct({
  Schema: Schema.Literal("peer"),
  ID: Schema.String.annotate({ description: "a base58btc libp2p peer id (`12D3KooW…`)" }),
  Addrs: Schema.Array(Schema.String),
  Protocols: Schema.Array(Schema.String)
}).annotate({ identifier: "Provider" })

/** The providers of a block: the gateway itself when it holds it, else none (never a 404). */
export const Providers = Schema.Struct({ Providers: Schema.Array(Provider) }).annotate({ identifier: "Providers" })

const ipnsRecord = "application/vnd.ipfs.ipns-record"
const routingSpec = "https://specs.ipfs.tech/routing/http-routing-v1/"

/** Content by CID or IPNS name, and the delegated routing API. */
export class Gateway extends HttpApiGroup.make("gateway")
  .add(
    HttpApiEndpoint.make(Routes.gateway.cat.method)("cat", Routes.gateway.cat.path, {
      params: { cid: Cid },
      success: HttpApiSchema.StreamUint8Array({ contentType: "application/octet-stream" }),
      error: notHeld
    }),
    HttpApiEndpoint.make(Routes.gateway.ipfs.method)("ipfs", Routes.gateway.ipfs.path, {
      params: { cid: Cid },
      query: contentQuery,
      headers: { accept: Schema.optionalKey(Schema.String), range: Schema.optionalKey(Schema.String) },
      success: Content,
      error: notHeld
    }).annotateMerge(
      knownFrom("https://specs.ipfs.tech/http-gateways/trustless-gateway/", "the IPFS trustless gateway specification")
    ),
    HttpApiEndpoint.make(Routes.gateway.ipns.method)("ipns", Routes.gateway.ipns.path, {
      params: { name: Schema.String },
      query: contentQuery,
      success: Content,
      error: notHeld
    }),
    HttpApiEndpoint.make(Routes.gateway.providers.method)("providers", Routes.gateway.providers.path, {
      params: { cid: Schema.String },
      query: {
        "filter-addrs": Schema.optionalKey(Schema.String),
        "filter-protocols": Schema.optionalKey(Schema.String)
      },
      success: [Providers, HttpApiSchema.StreamNdjson({ schema: Provider, contentType: "application/x-ndjson" })],
      error: apiError(422)
    }).annotateMerge(knownFrom(routingSpec, "the delegated routing v1 specification")),
    HttpApiEndpoint.make(Routes.gateway.ipnsRecord.method)("ipnsRecord", Routes.gateway.ipnsRecord.path, {
      params: { name: Schema.String },
      success: HttpApiSchema.StreamUint8Array({ contentType: ipnsRecord }),
      // 406: a client that accepts neither the record's media type nor anything.
      error: [apiError(400), apiError(404), apiError(406)]
    }).annotateMerge(knownFrom(routingSpec, "the delegated routing v1 specification")),
    HttpApiEndpoint.make(Routes.gateway.publishIpnsRecord.method)(
      "publishIpnsRecord",
      Routes.gateway.publishIpnsRecord.path,
      {
        params: { name: Schema.String },
        payload: HttpApiSchema.StreamUint8Array({ contentType: ipnsRecord }),
        success: HttpApiSchema.Empty(200),
        // 406: a body sent as another content type than the record's.
        error: [apiError(400), apiError(404), apiError(406)]
      }
    ).annotateMerge(knownFrom(routingSpec, "the delegated routing v1 specification"))
  )
  .annotateMerge(
    OpenApi.annotations({
      description:
        'The Walrus gateway (`https://gateway-walrus.lighthouse.storage`, `LighthouseConfig.hosts.walrusGateway`) serves `GET /ipfs/{cid}` of content stored on Walrus; anything else is a 404 `{ error: "{cid} is not stored on Walrus" }`.'
    })
  )
  .annotate(Host, "gateway") {}
