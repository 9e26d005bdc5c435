/**
 * The account's IPNS keys and records on the API host: generate a key, publish a CID under it,
 * list the keys with their records, remove a key. Every call carries the API key as a bearer
 * token; query values are URL-encoded by the host's client (the provider concatenated them raw).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Schema from "effect/Schema"
import { type Hosts, json } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import { Routes } from "../routes/Routes.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Credential } from "../schema/Credential.ts"
import { IpnsKey, IpnsRecord, PublishedRecord, type PublishRecordInput, RemovedKey } from "./Models.ts"

// The provider's client sends these two body-less GETs with a JSON content type; so do we.
const jsonContent = HttpClientRequest.setHeader("Content-Type", "application/json")

export const generateKey = Effect.fn("Ipns.generateKey")(function* (hosts: Hosts, apiKey: Credential) {
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.ipns.generateKey.path).pipe(withBearer(apiKey), jsonContent),
    IpnsKey
  )
})

export const publishRecord = Effect.fn("Ipns.publishRecord")(function* (
  hosts: Hosts,
  apiKey: Credential,
  input: PublishRecordInput
) {
  const cid = yield* parseCid(input.cid)
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.ipns.publishRecord.path, { urlParams: { cid, keyName: input.keyName } }).pipe(
      withBearer(apiKey)
    ),
    PublishedRecord
  )
})

export const records = Effect.fn("Ipns.records")(function* (hosts: Hosts, apiKey: Credential) {
  return yield* json(
    hosts.api,
    HttpClientRequest.get(Routes.ipns.getIpnsRecords.path).pipe(withBearer(apiKey), jsonContent),
    Schema.Array(IpnsRecord)
  )
})

export const removeKey = Effect.fn("Ipns.removeKey")(function* (hosts: Hosts, apiKey: Credential, keyName: string) {
  return yield* json(
    hosts.api,
    HttpClientRequest.delete(Routes.ipns.removeKey.path, { urlParams: { keyName } }).pipe(withBearer(apiKey)),
    RemovedKey
  )
})
