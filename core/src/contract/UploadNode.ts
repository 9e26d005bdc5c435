/**
 * The upload node (`https://upload.lighthouse.storage`), declared once: kubo's RPC `add` and
 * `dag/import`, streamed `multipart/form-data` bodies whose parts are all named `file`
 * (docs/PROTOCOL.md#upload-node). The body itself is the data plane's (`upload/Multipart.ts`
 * writes it); what the contract fixes is the route, the headers, the query and the answers.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { Routes } from "../routes/Routes.ts"
import { CarRoot, UploadedEntry } from "../upload/Response.ts"
import { apiError, Host, knownFrom, sdkSource, Unauthorized } from "./Shapes.ts"

/** A multipart body of `file` parts, streamed: its size may exceed memory. */
const MultipartBody = Schema.Struct({ file: Schema.Array(Schema.Unknown) }).pipe(HttpApiSchema.asMultipartStream())

const uploadHeaders = {
  authorization: Schema.String.annotate({
    description: "`Bearer {API key}` or a one-time token, the address and the signature joined by `$`"
  }),
  encryption: Schema.optionalKey(Schema.Literals(["true", "false"])),
  "mime-type": Schema.optionalKey(Schema.String),
  "x-deal-parameter": Schema.optionalKey(
    Schema.String.annotate({ description: "a JSON object of deal settings, or the literal `null`" })
  ),
  "x-storage-type": Schema.optionalKey(Schema.String.annotate({ description: "`ipfs` (default) or `walrus`" }))
}
const Flag = Schema.Literals(["true", "false"])

/** Several top-level entries, not wrapped: one entry a line, the root last. */
const EntryLines = HttpApiSchema.StreamNdjson({ schema: UploadedEntry, contentType: "application/x-ndjson" })

const refusals = [
  apiError(400),
  Unauthorized,
  apiError(402).annotate({ description: "Storage quota exceeded: …" }),
  apiError(413)
]

/** Uploads: files and folders (`add`), CAR files (`dag/import`). */
export class UploadNode extends HttpApiGroup.make("uploadNode")
  .add(
    HttpApiEndpoint.make(Routes.uploadNode.add.method)("add", Routes.uploadNode.add.path, {
      headers: uploadHeaders,
      query: {
        "wrap-with-directory": Schema.optionalKey(Flag),
        "cid-version": Schema.optionalKey(Schema.Literals(["0", "1"])),
        "raw-leaves": Schema.optionalKey(Flag)
      },
      payload: MultipartBody,
      success: [
        UploadedEntry,
        Schema.Array(UploadedEntry).annotate({ description: "an encrypted upload: one entry per part" }),
        EntryLines
      ],
      error: refusals
    }).annotateMerge(knownFrom(`${sdkSource}/upload/files/node.ts`, "the SDK's upload")),
    HttpApiEndpoint.make(Routes.uploadNode.dagImport.method)("dagImport", Routes.uploadNode.dagImport.path, {
      headers: uploadHeaders,
      payload: MultipartBody,
      success: [CarRoot, HttpApiSchema.StreamNdjson({ schema: CarRoot, contentType: "application/x-ndjson" })],
      error: refusals
    }).annotateMerge(knownFrom(`${sdkSource}/upload/car/node.ts`, "the SDK's CAR upload"))
  )
  .annotateMerge(
    OpenApi.annotations({
      description:
        "The Walrus upload node (`https://upload-walrus.lighthouse.storage`, `LighthouseConfig.hosts.walrusNode`) serves the same routes, storing on Walrus: the same authentication and answers, uploads counted against the account's Walrus quota."
    })
  )
  .annotate(Host, "node") {}
