/**
 * The per-host clients' addresses: what a key node error names is the address its client sends to.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import * as Hosts from "../../src/internal/Hosts.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"

/** A client that answers `[]` to everything and records the URL each request went to. */
const recording = (seen: Array<string>) =>
  HttpClient.make((request) => {
    seen.push(request.url)
    return Effect.succeed(HttpClientResponse.fromWeb(request, new Response("[]")))
  })

describe("Hosts", () => {
  it.effect("keyNodeUrl is the address the key node client sends to, a host's path prefix kept", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const config = LighthouseConfig.make({ hosts: { encryption: "http://127.0.0.1:4000/enc//" } })
      const hosts = Hosts.make(config, recording(seen))
      yield* hosts.keyNode(1).execute(HttpClientRequest.get("/api/message/0xabc"))
      assert.deepStrictEqual(seen, ["http://127.0.0.1:4000/enc/api/message/0xabc"])
      assert.strictEqual(hosts.keyNodeUrl("/api/message/0xabc"), seen[0])
      assert.strictEqual(
        Hosts.make(LighthouseConfig.make({}), recording([])).keyNodeUrl("/api/fileAccessConditions/get/bafy"),
        "https://encryption.lighthouse.storage/api/fileAccessConditions/get/bafy"
      )
    })
  )
})
