/**
 * The headers each host receives, exactly: the protocol's, plus what the transport itself adds
 * (`fetch`: `accept`, `accept-encoding`, `accept-language`, `connection`, `host`, `sec-fetch-mode`,
 * `user-agent`; `node:http`: `connection`, `host`). Effect's tracing headers (`b3`, `traceparent`),
 * which a browser may only send after a CORS preflight, are there only when the caller asks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import * as Auth from "../../src/Auth.ts"
import type * as Errors from "../../src/Errors.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as LighthouseNode from "../../src/LighthouseNode.ts"
import * as Signer from "../../src/Signer.ts"
import { alice } from "../support/accounts.ts"
import { production, reachEveryHost, serveNetworks } from "./networks.ts"

const { sent } = serveNetworks([production])

const signer = Signer.makeFromAccount(alice)

/** Every host once, and a key-node sign-in (a `GET` and a `POST` with a JSON body). */
const program = Effect.gen(function* () {
  yield* reachEveryHost
  yield* (yield* Auth.Auth).token(signer)
})

const fetched = ["accept", "accept-encoding", "accept-language", "connection", "host", "sec-fetch-mode", "user-agent"]
const upload = ["authorization", "content-type", "encryption", "mime-type", "x-deal-parameter"]

/** The request, then the header names it carries over `fetch` and over `node:http`. */
const expected: ReadonlyArray<readonly [string, ReadonlyArray<string>, ReadonlyArray<string>]> = [
  [
    "POST https://upload.lighthouse.storage/api/v0/add",
    [...fetched, ...upload, "transfer-encoding"],
    ["connection", "host", ...upload, "content-length"]
  ],
  [
    "GET https://api.lighthouse.storage/api/user/user_data_usage",
    [...fetched, "authorization"],
    ["authorization", "connection", "host"]
  ],
  ["GET https://gateway.lighthouse.storage/ipfs/{cid}", fetched, ["accept", "connection", "host"]],
  [
    "GET https://encryption.lighthouse.storage/api/message/{address}",
    [...fetched, "authorization", "content-type"],
    ["authorization", "connection", "content-type", "host"]
  ],
  [
    "POST https://upload-walrus.lighthouse.storage/api/v0/add",
    [...fetched, ...upload, "transfer-encoding", "x-storage-type"],
    ["connection", "host", ...upload, "content-length", "x-storage-type"]
  ],
  ["GET https://gateway-walrus.lighthouse.storage/ipfs/{cid}", fetched, ["accept", "connection", "host"]],
  [
    "GET https://encryption.lighthouse.storage/api/message/{address}",
    [...fetched, "authorization", "content-type"],
    ["authorization", "connection", "content-type", "host"]
  ],
  [
    "POST https://encryption.lighthouse.storage/api/message/get-jwt",
    [...fetched, "authorization", "content-length", "content-type"],
    ["authorization", "connection", "content-length", "content-type", "host"]
  ]
]

/** What was sent: each request's method, URL (CIDs and addresses as placeholders) and header names. */
const received = () =>
  sent.map((request) => [
    `${request.method} ${request.origin}${request.path.replace(/\/ipfs\/\w+$/, "/ipfs/{cid}").replace(/\/api\/message\/0x\w+$/, "/api/message/{address}")}`,
    request.headers
  ])

const transports = [
  ["fetch (Lighthouse.layer)", (options: Lighthouse.Options) => Lighthouse.layer(options), 1],
  ["node:http (lighthouse-effect/node layer)", (options: Lighthouse.Options) => LighthouseNode.layer(options), 2]
] as const satisfies ReadonlyArray<
  readonly [string, (options: Lighthouse.Options) => Layer.Layer<Lighthouse.Services, Errors.ConfigConflict>, 1 | 2]
>

describe("the headers every host receives", () => {
  it.effect.each(transports)("%s: the protocol's and the transport's, no tracing headers", ([, make, column]) =>
    Effect.gen(function* () {
      yield* program
      assert.deepStrictEqual(
        received(),
        expected.map((row) => [row[0], [...row[column]].sort()])
      )
    }).pipe(Effect.provide(make({})))
  )

  it.effect.each(transports)("%s with tracePropagation: b3 and traceparent added to each", ([, make, column]) =>
    Effect.gen(function* () {
      yield* program
      assert.deepStrictEqual(
        received(),
        expected.map((row) => [row[0], [...row[column], "b3", "traceparent"].sort()])
      )
      for (const request of sent) {
        assert.match(request.values.traceparent ?? "", /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
        assert.match(request.values.b3 ?? "", /^[0-9a-f]{32}-[0-9a-f]{16}-1(-[0-9a-f]{16})?$/)
      }
    }).pipe(Effect.provide(make({ tracePropagation: true })))
  )
})
