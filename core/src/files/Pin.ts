/**
 * Pinning content that is already on IPFS (`POST /api/lighthouse/pin` with `{ cid, fileName? }`,
 * the API key as bearer): the API host fetches the DAG under the CID, keeps it, and adds it to the
 * account's uploads list, where it counts against the data quota like an upload.
 *
 * The provider's own SDK has no call for this route; see docs/PROTOCOL.md#pinning-a-cid.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Schema from "effect/Schema"
import { ContentUnreachable, InvalidArgument } from "../Errors.ts"
import { type Hosts, json } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import { Routes } from "../routes/Routes.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Credential } from "../schema/Credential.ts"
import { PinInput, UploadedFile } from "./Models.ts"

/** The answer of a pin: the record it added to the uploads list. */
export const Pinned = Schema.Struct({ data: UploadedFile }).annotate({ identifier: "Pinned" })

const decodeInput = (input: unknown) =>
  Schema.decodeUnknownEffect(PinInput)(input).pipe(
    Effect.mapError((error) => new InvalidArgument({ method: "Files.pin", detail: error.message }))
  )

/** Pins the content of `input.cid` to the account of `apiKey`; its record joins the uploads list. */
export const pin = Effect.fn("Files.pin")(function* (hosts: Hosts, apiKey: Credential, input: PinInput) {
  const { cid, fileName } = yield* decodeInput(input)
  const valid = yield* parseCid(cid)
  const answer = yield* json(
    hosts.api,
    HttpClientRequest.post(Routes.files.pin.path).pipe(
      withBearer(apiKey),
      HttpClientRequest.bodyJsonUnsafe(fileName === undefined ? { cid: valid } : { cid: valid, fileName })
    ),
    Pinned
  ).pipe(
    // 404: the host found no provider of the content within its search.
    Effect.catchTag("RequestFailed", (e) => Effect.fail(e.status === 404 ? new ContentUnreachable({ cid: valid }) : e))
  )
  return answer.data
})
