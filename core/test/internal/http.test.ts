import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Redacted, Schema } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { HttpResponse, http } from "msw"
import { setupServer } from "msw/node"
import { afterAll, afterEach, beforeAll } from "vitest"
import { ProofNotFound } from "../../src/Errors.ts"
import { decodeJson, execute, executeJson, reveal, url, withBearer } from "../../src/internal/http.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"

const api = "https://api.lighthouse.storage"
const timeout = Duration.millis(8000)

/** A client answering every request with `body` and `status`, recording what it was sent. */
const answering = (body: string, status = 200, seen: Array<HttpClientRequest.HttpClientRequest> = []) =>
  HttpClient.make((request) =>
    Effect.sync(() => {
      seen.push(request)
      return HttpClientResponse.fromWeb(request, new Response(body, { status }))
    })
  )

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

const get = (path: string) => HttpClientRequest.get(`${api}${path}`)

const Usage = Schema.Struct({ dataLimit: Schema.Number, dataUsed: Schema.Number })

describe("internal/http", () => {
  describe("execute", () => {
    it.effect("a 2xx answer is handed back untouched", () =>
      Effect.gen(function* () {
        const response = yield* execute(answering("hello", 201), get("/api/x"), { style: "request-failed", timeout })
        assert.strictEqual(response.status, 201)
        assert.strictEqual(yield* response.text, "hello")
      })
    )

    it.effect("request-failed style: `Request failed with status code {n}`, with status, url and body", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          execute(answering(`{"error":"bad key"}`, 401), get("/api/user/user_data_usage"), {
            style: "request-failed",
            timeout
          })
        )
        if (error._tag !== "RequestFailed") return assert.fail(`expected RequestFailed, got ${error._tag}`)
        assert.strictEqual(error.message, "Request failed with status code 401")
        assert.deepStrictEqual(
          { status: error.status, url: error.url, body: error.body },
          { status: 401, url: `${api}/api/user/user_data_usage`, body: `{"error":"bad key"}` }
        )
        assert.isFalse(error.isRetryable)
      })
    )

    it.effect("http-error style: `HTTP error! status {n}`", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          execute(answering("upstream down", 500), get("/api/lighthouse/file_info?cid=Qm"), {
            style: "http-error",
            timeout
          })
        )
        if (error._tag !== "HttpStatusError") return assert.fail(`expected HttpStatusError, got ${error._tag}`)
        assert.strictEqual(error.message, "HTTP error! status 500")
        assert.strictEqual(error.status, 500)
        assert.strictEqual(error.url, `${api}/api/lighthouse/file_info?cid=Qm`)
        assert.strictEqual(error.body, "upstream down")
        assert.isTrue(error.isRetryable)
      })
    )

    it.effect("an empty error body leaves `body` out", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(execute(answering("", 404), get("/x"), { style: "request-failed", timeout }))
        if (error._tag !== "RequestFailed") return assert.fail(`expected RequestFailed, got ${error._tag}`)
        assert.strictEqual(error.message, "Request failed with status code 404")
        assert.isUndefined(error.body)
        assert.isFalse(Object.hasOwn(error, "body"))
      })
    )

    it.effect.each([300, 304, 418, 429, 503])("status %i is not a success", (status) =>
      Effect.gen(function* () {
        const client = HttpClient.make((request) =>
          Effect.succeed(HttpClientResponse.fromWeb(request, new Response(null, { status })))
        )
        const error = yield* Effect.flip(execute(client, get("/x"), { style: "request-failed", timeout }))
        assert.strictEqual(error.message, `Request failed with status code ${status}`)
      })
    )

    it.effect.each([200, 201, 204, 299])("status %i is a success", (status) =>
      Effect.gen(function* () {
        const client = HttpClient.make((request) =>
          Effect.succeed(HttpClientResponse.fromWeb(request, new Response(null, { status })))
        )
        const response = yield* execute(client, get("/x"), { style: "request-failed", timeout })
        assert.strictEqual(response.status, status)
      })
    )

    it.effect("onStatus turns a chosen status into a precise error, with the body", () =>
      Effect.gen(function* () {
        const bodies: Array<string> = []
        const options = {
          style: "request-failed" as const,
          timeout,
          onStatus: (status: number, body: string) => {
            bodies.push(body)
            return status === 400 ? new ProofNotFound({ cid: "QmX" }) : undefined
          }
        }
        const precise = yield* Effect.flip(
          execute(answering("no proof", 400), get("/api/lighthouse/get_proof"), options)
        )
        assert.strictEqual(precise._tag, "ProofNotFound")
        assert.strictEqual(precise.message, "Proof Doesn't exist yet")
        const fallback = yield* Effect.flip(execute(answering("boom", 502), get("/api/lighthouse/get_proof"), options))
        assert.strictEqual(fallback._tag, "RequestFailed")
        assert.strictEqual(fallback.message, "Request failed with status code 502")
        assert.deepStrictEqual(bodies, ["no proof", "boom"])
      })
    )

    it.effect("onStatus is not asked about a success", () =>
      Effect.gen(function* () {
        let asked = 0
        yield* execute(answering("{}", 200), get("/x"), {
          style: "http-error",
          timeout,
          onStatus: () => {
            asked++
            return undefined
          }
        })
        assert.strictEqual(asked, 0)
      })
    )

    it.effect.each(["TransportError", "InvalidUrlError"] as const)("%s → Network error", (reason) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(execute(failing(reason), get("/api/v0/add"), { style: "http-error", timeout }))
        assert.strictEqual(error._tag, "NetworkError")
        assert.strictEqual(error.message, "Network error")
        if (error._tag !== "NetworkError") return
        assert.strictEqual(error.url, `${api}/api/v0/add`)
        assert.isTrue(error.isRetryable)
        assert.strictEqual((error.cause as { _tag: string })._tag, reason)
      })
    )

    it.effect("no answer within the time-out → Request timed out, on the TestClock", () =>
      Effect.gen(function* () {
        const silent = HttpClient.make(() => Effect.never)
        const fiber = yield* Effect.forkChild(execute(silent, get("/api/x"), { style: "request-failed", timeout }))
        yield* TestClock.adjust(7999)
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust(1)
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.strictEqual(error._tag, "RequestTimedOut")
        assert.strictEqual(error.message, "Request timed out")
        if (error._tag !== "RequestTimedOut") return
        assert.strictEqual(error.url, `${api}/api/x`)
        assert.strictEqual(error.timeoutMillis, 8000)
        assert.isTrue(error.isRetryable)
      })
    )

    it.effect("an answer just inside the time-out is a success", () =>
      Effect.gen(function* () {
        const slow = HttpClient.make((request) =>
          Effect.sleep(Duration.millis(7_199_999)).pipe(
            Effect.as(HttpClientResponse.fromWeb(request, new Response("late but fine")))
          )
        )
        const fiber = yield* Effect.forkChild(
          execute(slow, get("/api/v0/cat/Qm"), { style: "http-error", timeout: Duration.millis(7_200_000) })
        )
        yield* TestClock.adjust(7_199_999)
        const response = yield* Fiber.join(fiber)
        assert.strictEqual(yield* response.text, "late but fine")
      })
    )
  })

  describe("decodeJson / executeJson", () => {
    it.effect("decodes a body against its schema", () =>
      Effect.gen(function* () {
        const usage = yield* executeJson(answering(`{"dataLimit":1000,"dataUsed":10}`), get("/u"), Usage, {
          style: "request-failed",
          timeout
        })
        assert.deepStrictEqual(usage, { dataLimit: 1000, dataUsed: 10 })
      })
    )

    it.effect("a body that is not JSON → InvalidResponse", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          executeJson(answering("<html>oops</html>"), get("/u"), Usage, { style: "request-failed", timeout })
        )
        assert.strictEqual(error._tag, "InvalidResponse")
        if (error._tag !== "InvalidResponse") return
        assert.strictEqual(error.url, `${api}/u`)
        assert.strictEqual(error.detail, `Decode error (200 GET ${api}/u)`)
        assert.strictEqual(error.message, `Invalid response from ${api}/u: Decode error (200 GET ${api}/u)`)
      })
    )

    it.effect("JSON of the wrong shape → InvalidResponse naming the field", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          decodeJson(Usage)(HttpClientResponse.fromWeb(get("/u"), new Response(`{"dataLimit":"lots","dataUsed":1}`)))
        )
        assert.strictEqual(error._tag, "InvalidResponse")
        assert.strictEqual(error.detail, `Expected number\n  at ["dataLimit"]`)
      })
    )

    it.effect("a missing field → InvalidResponse", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          decodeJson(Usage)(HttpClientResponse.fromWeb(get("/u"), new Response(`{"dataLimit":1}`)))
        )
        assert.strictEqual(error.detail, `Missing key\n  at ["dataUsed"]`)
      })
    )

    it.effect("a status error wins over decoding", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          executeJson(answering("not json", 503), get("/u"), Usage, { style: "http-error", timeout })
        )
        assert.strictEqual(error.message, "HTTP error! status 503")
      })
    )
  })

  describe("url", () => {
    it.effect("query values are URL-encoded (the provider concatenated them raw)", () =>
      Effect.sync(() => {
        assert.strictEqual(
          url(api, "/api/ipns/publish_record", { cid: "Qm1", keyName: "my key&x=1/?é" }),
          `${api}/api/ipns/publish_record?cid=Qm1&keyName=my+key%26x%3D1%2F%3F%C3%A9`
        )
        assert.strictEqual(
          url(api, "/api/auth/get_message", { publicKey: "0xAbC" }),
          `${api}/api/auth/get_message?publicKey=0xAbC`
        )
      })
    )

    it.effect("numbers are written out and undefined values left out", () =>
      Effect.sync(() => {
        assert.strictEqual(
          url(api, "/api/user/files_uploaded", { lastKey: undefined, page: 2 }),
          `${api}/api/user/files_uploaded?page=2`
        )
        assert.strictEqual(url(api, "/api/user/files_uploaded"), `${api}/api/user/files_uploaded`)
        assert.strictEqual(url(api, "/api/user/files_uploaded", {}), `${api}/api/user/files_uploaded`)
      })
    )

    it.effect("a host with a path prefix keeps it; trailing slashes are folded", () =>
      Effect.sync(() => {
        assert.strictEqual(url("http://127.0.0.1:4000/lighthouse", "/api/x"), "http://127.0.0.1:4000/lighthouse/api/x")
        assert.strictEqual(
          url("http://127.0.0.1:4000/lighthouse//", "/api/x"),
          "http://127.0.0.1:4000/lighthouse/api/x"
        )
        assert.strictEqual(
          url("http://localhost/mock/api-host/", "/api/lighthouse/deal_status", { cid: "b a" }),
          "http://localhost/mock/api-host/api/lighthouse/deal_status?cid=b+a"
        )
      })
    )
  })

  describe("bearer tokens", () => {
    it.effect("withBearer sets `Authorization: Bearer <token>` from a string or a Redacted", () =>
      Effect.gen(function* () {
        const seen: Array<HttpClientRequest.HttpClientRequest> = []
        const client = answering("{}", 200, seen)
        yield* execute(client, get("/a").pipe(withBearer("jwt:abc")), { style: "request-failed", timeout })
        yield* execute(client, get("/b").pipe(withBearer(Redacted.make("secret-key"))), {
          style: "request-failed",
          timeout
        })
        assert.deepStrictEqual(
          seen.map((r) => r.headers.authorization),
          ["Bearer jwt:abc", "Bearer secret-key"]
        )
        assert.strictEqual(reveal(Redacted.make("k")), "k")
        assert.strictEqual(reveal("k"), "k")
      })
    )
  })

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

    it.effect("the encoded query and the bearer token reach the server", () =>
      Effect.gen(function* () {
        received.length = 0
        const client = yield* HttpClient.HttpClient
        const request = HttpClientRequest.get(url(api, "/api/lighthouse/get_ticker", { symbol: "a b&c" })).pipe(
          withBearer("tok")
        )
        const response = yield* execute(client, request, { style: "http-error", timeout })
        assert.strictEqual(yield* response.text, "0.52")
        assert.deepStrictEqual(received, [
          { method: "GET", url: `${api}/api/lighthouse/get_ticker?symbol=a+b%26c`, authorization: "Bearer tok" }
        ])
      }).pipe(Effect.provide(Lighthouse.httpLayer))
    )

    it.effect("a 503 over fetch → HTTP error! status 503 with its body", () =>
      Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        const error = yield* Effect.flip(
          execute(client, HttpClientRequest.get(url(api, "/api/lighthouse/deal_status", { cid: "Qm" })), {
            style: "http-error",
            timeout
          })
        )
        assert.strictEqual(error.message, "HTTP error! status 503")
        assert.strictEqual(error._tag === "HttpStatusError" ? error.body : undefined, "deal service down")
      }).pipe(Effect.provide(Lighthouse.httpLayer))
    )

    it.effect("a dropped connection over fetch → Network error", () =>
      Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        const error = yield* Effect.flip(
          execute(client, HttpClientRequest.get(`${api}/api/user/user_data_usage`), {
            style: "request-failed",
            timeout
          })
        )
        assert.strictEqual(error._tag, "NetworkError")
        assert.strictEqual(error.message, "Network error")
      }).pipe(Effect.provide(Lighthouse.httpLayer))
    )
  })
})
