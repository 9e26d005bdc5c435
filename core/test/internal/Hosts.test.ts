/**
 * The per-host clients: the address each request goes to, and how each host's failures become
 * catalogue errors (its status wording, `Network error`, `Request timed out` on its time-out), with
 * the bodies decoded against their schemas.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Redacted, Schema } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { HttpResponse, http } from "msw"
import { setupServer } from "msw/node"
import { afterAll, afterEach, beforeAll } from "vitest"
import * as Hosts from "../../src/internal/Hosts.ts"
import { decodeJson, reveal, withBearer } from "../../src/internal/http.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"

const api = "https://api.lighthouse.storage"
const gateway = "https://gateway.lighthouse.storage"
const config = LighthouseConfig.make({ requestTimeout: Duration.seconds(8), transferTimeout: Duration.hours(2) })

/** A client answering every request with `body` and `status`, recording what it was sent. */
const answering = (body: string | null, status = 200, seen: Array<HttpClientRequest.HttpClientRequest> = []) =>
  HttpClient.make((request) =>
    Effect.sync(() => {
      seen.push(request)
      return HttpClientResponse.fromWeb(request, new Response(body, { status }))
    })
  )

/** A client that answers `[]` to everything and records the URL each request went to. */
const recording = (seen: Array<string>) =>
  HttpClient.make((request) => {
    seen.push(request.url)
    return Effect.succeed(HttpClientResponse.fromWeb(request, new Response("[]")))
  })

const failing = (reason: "TransportError" | "InvalidUrlError") =>
  HttpClient.make((request) =>
    Effect.fail(
      new HttpClientError.HttpClientError({
        reason:
          reason === "TransportError"
            ? new HttpClientError.TransportError({ request, cause: new TypeError("fetch failed") })
            : new HttpClientError.InvalidUrlError({ request, cause: new TypeError("Invalid URL") })
      })
    )
  )

const Usage = Schema.Struct({ dataLimit: Schema.Number, dataUsed: Schema.Number })

describe("Hosts", () => {
  it.effect("keyNodeUrl is the address the key node client sends to, a host's path prefix kept", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const hosts = Hosts.make(
        LighthouseConfig.make({ hosts: { encryption: "http://127.0.0.1:4000/enc//" } }),
        recording(seen)
      )
      yield* hosts.keyNode(1).execute(HttpClientRequest.get("/api/message/0xabc"))
      assert.deepStrictEqual(seen, ["http://127.0.0.1:4000/enc/api/message/0xabc"])
      assert.strictEqual(hosts.keyNodeUrl("/api/message/0xabc"), seen[0])
      assert.strictEqual(
        Hosts.make(LighthouseConfig.make({}), recording([])).keyNodeUrl("/api/fileAccessConditions/get/bafy"),
        "https://encryption.lighthouse.storage/api/fileAccessConditions/get/bafy"
      )
    })
  )

  describe("addresses", () => {
    it.effect("query values are URL-encoded (the provider concatenated them raw); undefined ones left out", () =>
      Effect.gen(function* () {
        const seen: Array<string> = []
        const hosts = Hosts.make(config, recording(seen))
        yield* hosts.api.execute(
          HttpClientRequest.get("/api/ipns/publish_record", { urlParams: { cid: "Qm1", keyName: "my key&x=1/?é" } })
        )
        yield* hosts.api.execute(
          HttpClientRequest.get("/api/user/files_uploaded", { urlParams: { lastKey: undefined, page: 2 } })
        )
        yield* hosts.api.execute(HttpClientRequest.get("/api/user/files_uploaded"))
        assert.deepStrictEqual(seen, [
          `${api}/api/ipns/publish_record?cid=Qm1&keyName=my+key%26x%3D1%2F%3F%C3%A9`,
          `${api}/api/user/files_uploaded?page=2`,
          `${api}/api/user/files_uploaded`
        ])
      })
    )

    it.effect("a host with a path prefix keeps it; trailing slashes are folded", () =>
      Effect.gen(function* () {
        const seen: Array<string> = []
        const prefixed = (api: string) => Hosts.make(LighthouseConfig.make({ hosts: { api } }), recording(seen)).api
        yield* prefixed("http://127.0.0.1:4000/lighthouse").execute(HttpClientRequest.get("/api/x"))
        yield* prefixed("http://127.0.0.1:4000/lighthouse//").execute(HttpClientRequest.get("/api/x"))
        yield* prefixed("http://localhost/mock/api-host/").execute(
          HttpClientRequest.get("/api/lighthouse/deal_status", { urlParams: { cid: "b a" } })
        )
        assert.deepStrictEqual(seen, [
          "http://127.0.0.1:4000/lighthouse/api/x",
          "http://127.0.0.1:4000/lighthouse/api/x",
          "http://localhost/mock/api-host/api/lighthouse/deal_status?cid=b+a"
        ])
      })
    )

    it.effect("a request's own headers and body survive the query being written into the URL", () =>
      Effect.gen(function* () {
        const seen: Array<HttpClientRequest.HttpClientRequest> = []
        const hosts = Hosts.make(config, answering("{}", 200, seen))
        yield* hosts.api.execute(
          HttpClientRequest.post("/api/x", { urlParams: { a: "1" } }).pipe(
            HttpClientRequest.bodyText("hello", "text/plain"),
            HttpClientRequest.setHeader("content-type", "application/x-custom"),
            withBearer("jwt:abc")
          )
        )
        const [sent] = seen
        assert.strictEqual(sent?.url, `${api}/api/x?a=1`)
        assert.strictEqual(sent?.headers["content-type"], "application/x-custom")
        assert.strictEqual(sent?.headers.authorization, "Bearer jwt:abc")
        assert.strictEqual(sent?.body._tag, "Uint8Array")
      })
    )
  })

  describe("answers", () => {
    it.effect("a 2xx answer is handed back untouched", () =>
      Effect.gen(function* () {
        const response = yield* Hosts.make(config, answering("hello", 201)).api.execute(HttpClientRequest.get("/api/x"))
        assert.strictEqual(response.status, 201)
        assert.strictEqual(yield* response.text, "hello")
      })
    )

    it.effect("the API host: `Request failed with status code {n}`, with status, url and body", () =>
      Effect.gen(function* () {
        const hosts = Hosts.make(config, answering(`{"error":"bad key"}`, 401))
        const error = yield* Effect.flip(hosts.api.execute(HttpClientRequest.get("/api/user/user_data_usage")))
        if (error._tag !== "RequestFailed") return assert.fail(`expected RequestFailed, got ${error._tag}`)
        assert.strictEqual(error.message, "Request failed with status code 401")
        assert.deepStrictEqual(
          { status: error.status, url: error.url, body: error.body },
          { status: 401, url: `${api}/api/user/user_data_usage`, body: `{"error":"bad key"}` }
        )
        assert.isFalse(error.isRetryable)
      })
    )

    it.effect("the gateway and `apiHttpError`: `HTTP error! status {n}`", () =>
      Effect.gen(function* () {
        const hosts = Hosts.make(config, answering("upstream down", 500))
        const error = yield* Effect.flip(
          hosts.apiHttpError.execute(HttpClientRequest.get("/api/lighthouse/file_info", { urlParams: { cid: "Qm" } }))
        )
        if (error._tag !== "HttpStatusError") return assert.fail(`expected HttpStatusError, got ${error._tag}`)
        assert.strictEqual(error.message, "HTTP error! status 500")
        assert.strictEqual(error.url, `${api}/api/lighthouse/file_info?cid=Qm`)
        assert.strictEqual(error.body, "upstream down")
        assert.isTrue(error.isRetryable)
        const fromGateway = yield* Effect.flip(hosts.gateway.execute(HttpClientRequest.get("/ipfs/Qm")))
        assert.strictEqual(fromGateway.message, "HTTP error! status 500")
        assert.strictEqual(fromGateway._tag === "HttpStatusError" ? fromGateway.url : "", `${gateway}/ipfs/Qm`)
      })
    )

    it.effect("an empty error body leaves `body` out", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          Hosts.make(config, answering("", 404)).node.execute(HttpClientRequest.get("/x"))
        )
        if (error._tag !== "RequestFailed") return assert.fail(`expected RequestFailed, got ${error._tag}`)
        assert.isUndefined(error.body)
        assert.isFalse(Object.hasOwn(error, "body"))
      })
    )

    it.effect.each([300, 304, 418, 429, 503])("status %i is not a success", (status) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          Hosts.make(config, answering(null, status)).api.execute(HttpClientRequest.get("/x"))
        )
        assert.strictEqual(error.message, `Request failed with status code ${status}`)
      })
    )

    it.effect.each([200, 201, 204, 299])("status %i is a success", (status) =>
      Effect.gen(function* () {
        const response = yield* Hosts.make(config, answering(null, status)).api.execute(HttpClientRequest.get("/x"))
        assert.strictEqual(response.status, status)
      })
    )

    it.effect.each([
      ["TransportError", "fetch failed"],
      ["InvalidUrlError", "Invalid URL"]
    ] as const)("%s → Network error, naming the request and the innermost cause", ([reason, cause]) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          Hosts.make(config, failing(reason)).node.execute(HttpClientRequest.post("/api/v0/add"))
        )
        assert.strictEqual(error._tag, "NetworkError")
        assert.strictEqual(error.message, "Network error")
        if (error._tag !== "NetworkError") return
        assert.strictEqual(error.method, "POST")
        assert.strictEqual(error.url, "https://upload.lighthouse.storage/api/v0/add")
        assert.isTrue(error.isRetryable)
        // The innermost error, not the client's wrapper (which holds the request and its secrets).
        assert.strictEqual((error.cause as Error).message, cause)
        assert.strictEqual(error.reason, cause)
        assert.strictEqual(error.where, "POST https://upload.lighthouse.storage/api/v0/add")
      })
    )

    it.effect("the API host times out after the request time-out, on the TestClock", () =>
      Effect.gen(function* () {
        const silent = HttpClient.make(() => Effect.never)
        const fiber = yield* Effect.forkChild(Hosts.make(config, silent).api.execute(HttpClientRequest.get("/api/x")))
        yield* TestClock.adjust(7999)
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust(1)
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.strictEqual(error._tag, "RequestTimedOut")
        assert.strictEqual(error.message, "Request timed out")
        if (error._tag !== "RequestTimedOut") return
        assert.strictEqual(error.url, `${api}/api/x`)
        assert.strictEqual(error.method, "GET")
        assert.strictEqual(error.reason, "no answer within 8000 ms")
        assert.strictEqual(error.timeoutMillis, 8000)
        assert.isTrue(error.isRetryable)
      })
    )

    it.effect("a gateway answer just inside the transfer time-out is a success", () =>
      Effect.gen(function* () {
        const slow = HttpClient.make((request) =>
          Effect.sleep(Duration.millis(7_199_999)).pipe(
            Effect.as(HttpClientResponse.fromWeb(request, new Response("late but fine")))
          )
        )
        const fiber = yield* Effect.forkChild(
          Hosts.make(config, slow).gateway.execute(HttpClientRequest.get("/ipfs/Qm"))
        )
        yield* TestClock.adjust(7_199_999)
        const response = yield* Fiber.join(fiber)
        assert.strictEqual(yield* response.text, "late but fine")
      })
    )
  })

  describe("json bodies", () => {
    it.effect("decodes a body against its schema", () =>
      Effect.gen(function* () {
        const hosts = Hosts.make(config, answering(`{"dataLimit":1000,"dataUsed":10}`))
        const usage = yield* Hosts.json(hosts.api, HttpClientRequest.get("/u"), Usage)
        assert.deepStrictEqual(usage, { dataLimit: 1000, dataUsed: 10 })
      })
    )

    it.effect("a body that is not JSON → InvalidResponse", () =>
      Effect.gen(function* () {
        const hosts = Hosts.make(config, answering("<html>oops</html>"))
        const error = yield* Effect.flip(Hosts.json(hosts.api, HttpClientRequest.get("/u"), Usage))
        assert.strictEqual(error._tag, "InvalidResponse")
        if (error._tag !== "InvalidResponse") return
        assert.strictEqual(error.url, `${api}/u`)
        assert.strictEqual(error.detail, `Decode error (200 GET ${api}/u)`)
        assert.strictEqual(error.message, `Invalid response from ${api}/u: Decode error (200 GET ${api}/u)`)
      })
    )

    it.effect("JSON of the wrong shape → InvalidResponse naming the field", () =>
      Effect.gen(function* () {
        const wrong = (body: string) =>
          Effect.flip(
            decodeJson(Usage)(HttpClientResponse.fromWeb(HttpClientRequest.get(`${api}/u`), new Response(body)))
          )
        assert.strictEqual(
          (yield* wrong(`{"dataLimit":"lots","dataUsed":1}`)).detail,
          `Expected number\n  at ["dataLimit"]`
        )
        assert.strictEqual((yield* wrong(`{"dataLimit":1}`)).detail, `Missing key\n  at ["dataUsed"]`)
      })
    )

    it.effect("a status error wins over decoding", () =>
      Effect.gen(function* () {
        const hosts = Hosts.make(config, answering("not json", 503))
        const error = yield* Effect.flip(Hosts.json(hosts.apiHttpError, HttpClientRequest.get("/u"), Usage))
        assert.strictEqual(error.message, "HTTP error! status 503")
      })
    )
  })

  it.effect("withBearer sets `Authorization: Bearer <token>` from a string or a Redacted", () =>
    Effect.gen(function* () {
      const seen: Array<HttpClientRequest.HttpClientRequest> = []
      const hosts = Hosts.make(config, answering("{}", 200, seen))
      yield* hosts.api.execute(HttpClientRequest.get("/a").pipe(withBearer("jwt:abc")))
      yield* hosts.api.execute(HttpClientRequest.get("/b").pipe(withBearer(Redacted.make("secret-key"))))
      assert.deepStrictEqual(
        seen.map((r) => r.headers.authorization),
        ["Bearer jwt:abc", "Bearer secret-key"]
      )
      assert.strictEqual(reveal(Redacted.make("k")), "k")
      assert.strictEqual(reveal("k"), "k")
    })
  )

  describe("on the wire (fetch + msw)", () => {
    const received: Array<{ method: string; url: string; authorization: string | null }> = []
    const server = setupServer(
      http.get(`${api}/api/lighthouse/get_ticker`, ({ request }) => {
        received.push({ method: request.method, url: request.url, authorization: request.headers.get("authorization") })
        return HttpResponse.text("0.52")
      }),
      http.get(`${api}/api/lighthouse/deal_status`, () => HttpResponse.text("deal service down", { status: 503 })),
      http.get(`${api}/api/user/user_data_usage`, () => HttpResponse.error())
    )
    beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
    afterEach(() => server.resetHandlers())
    afterAll(() => server.close())

    const hostsOverFetch = Effect.map(HttpClient.HttpClient, (client) => Hosts.make(config, client))

    it.effect("the encoded query and the bearer token reach the server", () =>
      Effect.gen(function* () {
        received.length = 0
        const hosts = yield* hostsOverFetch
        const request = HttpClientRequest.get("/api/lighthouse/get_ticker", { urlParams: { symbol: "a b&c" } }).pipe(
          withBearer("tok")
        )
        const response = yield* hosts.apiHttpError.execute(request)
        assert.strictEqual(yield* response.text, "0.52")
        assert.deepStrictEqual(received, [
          { method: "GET", url: `${api}/api/lighthouse/get_ticker?symbol=a+b%26c`, authorization: "Bearer tok" }
        ])
      }).pipe(Effect.provide(Lighthouse.httpLayer))
    )

    it.effect("a 503 over fetch → HTTP error! status 503 with its body", () =>
      Effect.gen(function* () {
        const hosts = yield* hostsOverFetch
        const error = yield* Effect.flip(
          hosts.apiHttpError.execute(HttpClientRequest.get("/api/lighthouse/deal_status", { urlParams: { cid: "Qm" } }))
        )
        assert.strictEqual(error.message, "HTTP error! status 503")
        if (error._tag !== "HttpStatusError") return assert.fail(error._tag)
        assert.strictEqual(error.body, "deal service down")
        assert.strictEqual(error.where, `GET ${api}/api/lighthouse/deal_status?cid=Qm`)
        assert.strictEqual(error.reason, "deal service down")
      }).pipe(Effect.provide(Lighthouse.httpLayer))
    )

    it.effect("a dropped connection over fetch → Network error", () =>
      Effect.gen(function* () {
        const hosts = yield* hostsOverFetch
        const error = yield* Effect.flip(hosts.api.execute(HttpClientRequest.get("/api/user/user_data_usage")))
        assert.strictEqual(error._tag, "NetworkError")
        assert.strictEqual(error.message, "Network error")
      }).pipe(Effect.provide(Lighthouse.httpLayer))
    )
  })
})
