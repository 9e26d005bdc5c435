import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Redacted } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { HttpResponse, http } from "msw"
import { setupServer } from "msw/node"
import { afterAll, afterEach, beforeAll } from "vitest"
import type { NodeError } from "../src/Errors.ts"
import { type FanOut, KeyNodes, layer as keyNodesLayer, type NodeRequest } from "../src/KeyNodes.ts"
import * as Lighthouse from "../src/Lighthouse.ts"
import * as Config from "../src/LighthouseConfig.ts"

const host = "https://encryption.lighthouse.storage"
const address = "0xf0bc72fa04aea04d04b1fa80b359adb566e1c8b1"
const cid = "QmWATWQ7fVPP2EFGu71UkfnqhYXDYH566qy47CnJDgvs8u"

// =============================================================================
// A fake transport on the TestClock: every call is stamped with the test time
// =============================================================================

type Reply = { readonly status: number; readonly body?: string } | "network" | "never"
interface Call {
  readonly method: string
  readonly path: string
  readonly nodeId: number
  readonly attempt: number
  readonly at: number
}

const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) })
const success = (extra: object = {}): Reply => json(200, { message: "success", data: null, ...extra })

const fakeNodes = (reply: (call: Omit<Call, "at" | "method">) => Reply, options: Config.PartialOptions = {}) => {
  const calls: Array<Call> = []
  const client = HttpClient.make((request, url) =>
    Effect.gen(function* () {
      const at = yield* Clock.currentTimeMillis
      const path = url.pathname
      const nodeId = Number(path.split("/").at(-1))
      const attempt = calls.filter((c) => c.path === path).length + 1
      calls.push({ method: request.method, path, nodeId, attempt, at })
      const r = reply({ path, nodeId, attempt })
      if (r === "never") return yield* Effect.never
      if (r === "network")
        return yield* new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, cause: new TypeError("fetch failed") })
        })
      return HttpClientResponse.fromWeb(request, new Response(r.body ?? null, { status: r.status }))
    })
  )
  const layer = keyNodesLayer.pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, client)),
    Layer.provide(Config.layer(options))
  )
  return { calls, layer }
}

const saveRequest =
  (path = "/api/setSharedKey") =>
  (nodeId: number): NodeRequest => ({
    method: "POST",
    path: `${path}/${nodeId}`,
    body: { address, cid, payload: { key: `k${nodeId}`, index: `i${nodeId}` } },
    token: "jwt:abc"
  })

const spec = (overrides: Partial<FanOut> = {}): FanOut => ({
  operation: "saveShards",
  request: saveRequest(),
  onError: "stop",
  agreement: "identical-ignoring-data",
  requireSuccess: true,
  ...overrides
})

const times = (calls: ReadonlyArray<Call>) => calls.map((c) => [c.nodeId, c.attempt, c.at])

/** `times` of nodes 1→5 called once each, 1000 ms apart (the sequential policy). */
const oneSecondApart = [1, 2, 3, 4, 5].map((nodeId) => [nodeId, 1, (nodeId - 1) * 1000])

// =============================================================================
// Retries per node
// =============================================================================

describe("KeyNodes.call: retries on the TestClock", () => {
  it.effect("404, 404, 404 → 3 calls 1000 ms apart, then `fetch Error` with statusCode 404", () => {
    const { calls, layer } = fakeNodes(() => ({ status: 404, body: "Not Found" }))
    return Effect.gen(function* () {
      const nodes = yield* KeyNodes
      const fiber = yield* Effect.forkChild(Effect.flip(nodes.call(2, saveRequest()(2))))
      yield* TestClock.adjust(1000)
      assert.deepStrictEqual(times(calls), [
        [2, 1, 0],
        [2, 2, 1000]
      ])
      yield* TestClock.adjust(999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.deepStrictEqual(times(calls), [
        [2, 1, 0],
        [2, 2, 1000],
        [2, 3, 2000]
      ])
      assert.strictEqual(error._tag, "NodeError")
      assert.strictEqual(error.message, "fetch Error")
      assert.strictEqual(error.nodeId, 2)
      assert.strictEqual(error.statusCode, 404)
      // The 404's body is never read, as on the provider.
      assert.deepStrictEqual(error.body, { message: "fetch Error", statusCode: 404 })
      assert.isTrue(error.isRetryable)
    }).pipe(Effect.provide(layer))
  })

  it.effect("404 then 200 → 2 calls, success with the answer", () => {
    const { calls, layer } = fakeNodes(({ attempt }) => (attempt === 1 ? { status: 404 } : success({ data: 7 })))
    return Effect.gen(function* () {
      const nodes = yield* KeyNodes
      const fiber = yield* Effect.forkChild(nodes.call(1, saveRequest()(1)))
      yield* TestClock.adjust(1000)
      const answer = yield* Fiber.join(fiber)
      assert.deepStrictEqual(answer, { message: "success", data: 7 })
      assert.deepStrictEqual(times(calls), [
        [1, 1, 0],
        [1, 2, 1000]
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("transport failure, failure, success → 3 calls at 0, 1000, 2000 ms", () => {
    const { calls, layer } = fakeNodes(({ attempt }) => (attempt < 3 ? "network" : success()))
    return Effect.gen(function* () {
      const nodes = yield* KeyNodes
      const fiber = yield* Effect.forkChild(nodes.call(5, saveRequest()(5)))
      yield* TestClock.adjust(2000)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { message: "success", data: null })
      assert.deepStrictEqual(times(calls), [
        [5, 1, 0],
        [5, 2, 1000],
        [5, 3, 2000]
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("transport failure three times → `fetch failed`, statusCode 0", () => {
    const { calls, layer } = fakeNodes(() => "network")
    return Effect.gen(function* () {
      const nodes = yield* KeyNodes
      const fiber = yield* Effect.forkChild(Effect.flip(nodes.call(3, saveRequest()(3))))
      yield* TestClock.adjust(2000)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(calls.length, 3)
      assert.strictEqual(error.message, "fetch failed")
      assert.strictEqual(error.statusCode, 0)
      assert.strictEqual((error.body as { message: string }).message, "fetch failed")
    }).pipe(Effect.provide(layer))
  })

  it.effect("500 with a body → 1 call, the body plus statusCode, no retry", () => {
    const { calls, layer } = fakeNodes(() => json(500, { message: "boom", data: null }))
    return Effect.gen(function* () {
      const nodes = yield* KeyNodes
      const error = yield* Effect.flip(nodes.call(4, saveRequest()(4)))
      assert.deepStrictEqual(times(calls), [[4, 1, 0]])
      assert.strictEqual(error.message, "boom")
      assert.strictEqual(error.statusCode, 500)
      assert.deepStrictEqual(error.body, { message: "boom", data: null, statusCode: 500 })
      assert.isFalse(error.isRetryable)
    }).pipe(Effect.provide(layer))
  })

  it.effect("401 whose body says `fetch` → NOT retried (the provider retried it 3 times)", () => {
    const { calls, layer } = fakeNodes(() => json(401, { message: "could not fetch user" }))
    return Effect.gen(function* () {
      const nodes = yield* KeyNodes
      const error = yield* Effect.flip(nodes.call(1, saveRequest()(1)))
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(error.message, "could not fetch user")
      assert.deepStrictEqual(error.body, { message: "could not fetch user", statusCode: 401 })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a nested server error keeps its shape", () => {
    const body = { message: { message: { message: "Access Denied" } } }
    const { layer } = fakeNodes(() => json(403, body))
    return Effect.gen(function* () {
      const error = yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.deepStrictEqual(error.body, { ...body, statusCode: 403 })
      assert.strictEqual(error.message, `{"message":{"message":{"message":"Access Denied"}},"statusCode":403}`)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a non-JSON error body becomes the message, with statusCode", () => {
    const { calls, layer } = fakeNodes(() => ({ status: 502, body: "Bad Gateway" }))
    return Effect.gen(function* () {
      const error = yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual(error.body, { message: "Bad Gateway", statusCode: 502 })
      assert.strictEqual(error.message, `{"message":"Bad Gateway","statusCode":502}`)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a 200 that is not JSON fails at once with `Invalid JSON response`", () => {
    const { calls, layer } = fakeNodes(() => ({ status: 200, body: "OK" }))
    return Effect.gen(function* () {
      const error = yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(error.message, "Invalid JSON response")
      assert.strictEqual(error.statusCode, 200)
      assert.strictEqual(error.body, "OK")
    }).pipe(Effect.provide(layer))
  })

  it.effect("no answer within the request time-out counts as a transport failure (retried)", () => {
    const { calls, layer } = fakeNodes(() => "never")
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.flip((yield* KeyNodes).call(1, saveRequest()(1))))
      yield* TestClock.adjust(8000 + 1000 + 8000 + 1000 + 7999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.deepStrictEqual(times(calls), [
        [1, 1, 0],
        [1, 2, 9000],
        [1, 3, 18000]
      ])
      assert.strictEqual(error.message, "Request timed out")
      assert.strictEqual(error.statusCode, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("`tries` and `retryDelay` come from the config", () => {
    const { calls, layer } = fakeNodes(() => ({ status: 404 }), { nodes: { tries: 5, retryDelay: "250 millis" } })
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.flip((yield* KeyNodes).call(1, saveRequest()(1))))
      yield* TestClock.adjust(1000)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        calls.map((c) => c.at),
        [0, 250, 500, 750, 1000]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("one try: no retry at all", () => {
    const { calls, layer } = fakeNodes(() => ({ status: 404 }), { nodes: { tries: 1 } })
    return Effect.gen(function* () {
      yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(calls.length, 1)
    }).pipe(Effect.provide(layer))
  })
})

// =============================================================================
// Fan-out across nodes
// =============================================================================

describe("KeyNodes.fanOut", () => {
  it.effect("sequential (default): nodes 1→5, 1000 ms apart, reports for each", () => {
    const { calls, layer } = fakeNodes(({ nodeId }) => success({ data: nodeId }))
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild((yield* KeyNodes).fanOut(spec()))
      yield* TestClock.adjust(3999)
      assert.isUndefined(fiber.pollUnsafe())
      assert.strictEqual(calls.length, 4)
      yield* TestClock.adjust(1)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(times(calls), oneSecondApart)
      assert.deepStrictEqual(
        calls.map((c) => [c.method, c.path]),
        [1, 2, 3, 4, 5].map((n) => ["POST", `/api/setSharedKey/${n}`])
      )
      assert.deepStrictEqual(
        result.answers,
        [1, 2, 3, 4, 5].map((n) => ({ message: "success", data: n }))
      )
      assert.deepStrictEqual(
        result.reports,
        [1, 2, 3, 4, 5].map((nodeId) => ({
          nodeId,
          outcome: "succeeded",
          attempts: 1,
          answer: { message: "success", data: nodeId }
        }))
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("sequential with a retry: the pause follows the retried node; attempts are reported", () => {
    const { calls, layer } = fakeNodes(({ nodeId, attempt }) =>
      nodeId === 2 && attempt === 1 ? { status: 404 } : success()
    )
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild((yield* KeyNodes).fanOut(spec()))
      yield* TestClock.adjust(5000)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(times(calls), [
        [1, 1, 0],
        [2, 1, 1000],
        [2, 2, 2000],
        [3, 1, 3000],
        [4, 1, 4000],
        [5, 1, 5000]
      ])
      assert.deepStrictEqual(
        result.reports.map((r) => [r.nodeId, r.outcome, r.attempts]),
        [
          [1, "succeeded", 1],
          [2, "succeeded", 2],
          [3, "succeeded", 1],
          [4, "succeeded", 1],
          [5, "succeeded", 1]
        ]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("concurrent (config): all 5 at once, answers in node order", () => {
    const { calls, layer } = fakeNodes(({ nodeId }) => success({ data: nodeId }), { nodes: { mode: "concurrent" } })
    return Effect.gen(function* () {
      const result = yield* (yield* KeyNodes).fanOut(spec())
      assert.deepStrictEqual(
        calls.map((c) => c.at),
        [0, 0, 0, 0, 0]
      )
      assert.deepStrictEqual([...calls.map((c) => c.nodeId)].sort(), [1, 2, 3, 4, 5])
      assert.deepStrictEqual(
        result.answers.map((a) => (a as { data: number }).data),
        [1, 2, 3, 4, 5]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("concurrent (per call) overrides a sequential config; retries still wait 1000 ms", () => {
    const { calls, layer } = fakeNodes(({ nodeId, attempt }) => (nodeId === 4 && attempt === 1 ? "network" : success()))
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild((yield* KeyNodes).fanOut(spec({ mode: "concurrent" })))
      yield* TestClock.adjust(1000)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        [...times(calls)].sort((a, b) => (a[2] ?? 0) - (b[2] ?? 0) || (a[0] ?? 0) - (b[0] ?? 0)),
        [
          [1, 1, 0],
          [2, 1, 0],
          [3, 1, 0],
          [4, 1, 0],
          [5, 1, 0],
          [4, 2, 1000]
        ]
      )
      assert.strictEqual(result.reports[3]?.attempts, 2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("stop: a failing node ends the walk; later nodes are not called; succeededNodes names the earlier", () => {
    const { calls, layer } = fakeNodes(({ nodeId }) =>
      nodeId === 3 ? json(500, { message: "disk full", data: null }) : success()
    )
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.flip((yield* KeyNodes).fanOut(spec({ onError: "stop" }))))
      yield* TestClock.adjust(10_000)
      const error = yield* Fiber.join(fiber)
      assert.deepStrictEqual(times(calls), [
        [1, 1, 0],
        [2, 1, 1000],
        [3, 1, 2000]
      ])
      assert.strictEqual(error._tag, "NodeError")
      const nodeError = error as NodeError
      assert.strictEqual(nodeError.nodeId, 3)
      assert.strictEqual(nodeError.statusCode, 500)
      assert.strictEqual(nodeError.message, "disk full")
      assert.deepStrictEqual(nodeError.succeededNodes, [1, 2])
      assert.deepStrictEqual(nodeError.body, { message: "disk full", data: null, statusCode: 500 })
    }).pipe(Effect.provide(layer))
  })

  it.effect("stop at the first node: nothing succeeded", () => {
    const { calls, layer } = fakeNodes(() => json(400, { message: "Invalid address" }))
    return Effect.gen(function* () {
      const error = (yield* Effect.flip((yield* KeyNodes).fanOut(spec()))) as NodeError
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual(error.succeededNodes, [])
      assert.strictEqual(error.message, "Invalid address")
    }).pipe(Effect.provide(layer))
  })

  it.effect("continue: every node is called; the first failure is reported with the nodes that succeeded", () => {
    const { calls, layer } = fakeNodes(({ nodeId }) =>
      nodeId === 2 || nodeId === 4 ? json(500, { message: `node ${nodeId} down` }) : success()
    )
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        Effect.flip((yield* KeyNodes).fanOut(spec({ operation: "accessControl", onError: "continue" })))
      )
      yield* TestClock.adjust(4000)
      const error = (yield* Fiber.join(fiber)) as NodeError
      assert.deepStrictEqual(times(calls), oneSecondApart)
      assert.strictEqual(error.nodeId, 2)
      assert.strictEqual(error.message, "node 2 down")
      assert.deepStrictEqual(error.succeededNodes, [1, 3, 5])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a subset of nodes, in the order given", () => {
    const { calls, layer } = fakeNodes(({ nodeId }) => json(200, { payload: `shard-${nodeId}` }))
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        (yield* KeyNodes).fanOut(
          spec({
            operation: "recoverShards",
            nodes: [1, 3, 4],
            request: saveRequest("/api/retrieveSharedKey"),
            agreement: "none",
            requireSuccess: false
          })
        )
      )
      yield* TestClock.adjust(2000)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(times(calls), [
        [1, 1, 0],
        [3, 1, 1000],
        [4, 1, 2000]
      ])
      assert.deepStrictEqual(result.answers, [{ payload: "shard-1" }, { payload: "shard-3" }, { payload: "shard-4" }])
      assert.deepStrictEqual(
        result.reports.map((r) => r.nodeId),
        [1, 3, 4]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("pause 0: sequential calls follow each other at once", () => {
    const { calls, layer } = fakeNodes(() => success(), { nodes: { pause: 0 } })
    return Effect.gen(function* () {
      yield* (yield* KeyNodes).fanOut(spec())
      assert.deepStrictEqual(
        calls.map((c) => [c.nodeId, c.at]),
        [
          [1, 0],
          [2, 0],
          [3, 0],
          [4, 0],
          [5, 0]
        ]
      )
    }).pipe(Effect.provide(layer))
  })
})

// =============================================================================
// Agreement rules
// =============================================================================

describe("KeyNodes.fanOut: agreement", () => {
  /** Runs a concurrent fan-out (no pauses) where node n answers `answers[n - 1]`. */
  const agree = (answers: ReadonlyArray<unknown>, overrides: Partial<FanOut>) => {
    const { layer } = fakeNodes(({ nodeId }) => json(200, answers[nodeId - 1]), { nodes: { mode: "concurrent" } })
    return Effect.gen(function* () {
      return yield* (yield* KeyNodes).fanOut(spec(overrides))
    }).pipe(Effect.provide(layer))
  }
  const five = (f: (n: number) => unknown) => [1, 2, 3, 4, 5].map(f)

  const disagreement = (answers: ReadonlyArray<unknown>, overrides: Partial<FanOut>) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(agree(answers, overrides))
      assert.strictEqual(error._tag, "NodesDisagree")
      assert.strictEqual(error.message, `The key nodes did not agree on ${overrides.operation ?? "saveShards"}`)
      assert.deepStrictEqual((error as { answers: ReadonlyArray<unknown> }).answers, answers)
    })

  it.effect("identical: key order does not matter, at any depth", () =>
    Effect.gen(function* () {
      const answers = five((n) =>
        n % 2 === 0
          ? { message: "success", data: { cid, shared: [address], meta: { a: 1, b: 2 } } }
          : { data: { meta: { b: 2, a: 1 }, shared: [address], cid }, message: "success" }
      )
      const result = yield* agree(answers, { agreement: "identical" })
      assert.deepStrictEqual(result.answers, answers)
    })
  )

  it.effect("identical: answers that differ only in data disagree (transferOwnership)", () =>
    disagreement(
      five((n) => ({ message: "success", data: { node: n } })),
      { operation: "transferOwnership", agreement: "identical" }
    )
  )

  it.effect("identical: array order does matter", () =>
    disagreement(
      five((n) => ({ message: "success", data: n === 5 ? [2, 1] : [1, 2] })),
      { agreement: "identical" }
    )
  )

  it.effect("identical-ignoring-data: differing data agree (saveShards, share)", () =>
    Effect.gen(function* () {
      const answers = five((n) => ({ message: "success", data: { node: n } }))
      const result = yield* agree(answers, { agreement: "identical-ignoring-data" })
      assert.deepStrictEqual(result.answers, answers)
    })
  )

  it.effect("identical-ignoring-data: any other field that differs disagrees", () =>
    disagreement(
      five((n) => ({ message: "success", data: null, owner: n === 3 ? "0x1" : "0x2" })),
      { agreement: "identical-ignoring-data" }
    )
  )

  it.effect("message: only the messages are compared (accessControl)", () =>
    Effect.gen(function* () {
      const answers = five((n) => ({ message: "success", node: n, data: { n } }))
      const result = yield* agree(answers, { operation: "accessControl", agreement: "message" })
      assert.strictEqual(result.answers.length, 5)
    })
  )

  it.effect("message: differing messages disagree", () =>
    disagreement(
      five((n) => ({ message: n === 1 ? "success" : "updated" })),
      { operation: "accessControl", agreement: "message", requireSuccess: false }
    )
  )

  it.effect("none: answers are not compared (recoverShards)", () =>
    Effect.gen(function* () {
      const answers = five((n) => ({ payload: `shard-${n}` }))
      const result = yield* agree(answers, { operation: "recoverShards", agreement: "none", requireSuccess: false })
      assert.deepStrictEqual(result.answers, answers)
    })
  )

  it.effect("requireSuccess: every message must be `success`, not just the first", () =>
    disagreement(
      five((n) => ({ message: n === 4 ? "failed" : "success" })),
      { agreement: "none", requireSuccess: true }
    )
  )

  it.effect("requireSuccess: an answer without a message fails", () =>
    disagreement(
      five(() => ({ ok: true })),
      { agreement: "identical", requireSuccess: true }
    )
  )

  it.effect("without requireSuccess, five identical `failed` answers succeed (revokeAccess, as on the provider)", () =>
    Effect.gen(function* () {
      const answers = five(() => ({ message: "failed" }))
      const result = yield* agree(answers, { operation: "revokeAccess", agreement: "identical", requireSuccess: false })
      assert.deepStrictEqual(result.answers, answers)
    })
  )
})

// =============================================================================
// On the wire (fetch + msw)
// =============================================================================

describe("KeyNodes on the wire", () => {
  interface Seen {
    readonly method: string
    readonly path: string
    readonly authorization: string | null
    readonly contentType: string | null
    readonly body: string
  }
  const seen: Array<Seen> = []
  let answer: (path: string, attempt: number) => Response = () => HttpResponse.json({ message: "success", data: null })

  const server = setupServer(
    http.all(`${host}/api/*`, async ({ request }) => {
      const path = new URL(request.url).pathname
      seen.push({
        method: request.method,
        path,
        authorization: request.headers.get("authorization"),
        contentType: request.headers.get("content-type"),
        body: await request.text()
      })
      return answer(path, seen.filter((s) => s.path === path).length)
    }),
    http.all("http://127.0.0.1:4000/kms/api/*", ({ request }) => {
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        authorization: request.headers.get("authorization"),
        contentType: request.headers.get("content-type"),
        body: ""
      })
      return HttpResponse.json({ message: "success" })
    })
  )
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
  afterEach(() => {
    server.resetHandlers()
    seen.length = 0
    answer = () => HttpResponse.json({ message: "success", data: null })
  })
  afterAll(() => server.close())

  /** No pauses and no retry waits, so the real transport needs no clock. */
  const wire = (options: Config.PartialOptions = {}) =>
    keyNodesLayer.pipe(
      Layer.provide(Lighthouse.httpLayer),
      Layer.provide(Config.layer({ ...options, nodes: { pause: 0, retryDelay: 0, ...options.nodes } }))
    )

  it.effect("POST with a bearer token and a JSON body", () =>
    Effect.gen(function* () {
      const answer = yield* (yield* KeyNodes).call(3, saveRequest()(3))
      assert.deepStrictEqual(answer, { message: "success", data: null })
      assert.deepStrictEqual(seen, [
        {
          method: "POST",
          path: "/api/setSharedKey/3",
          authorization: "Bearer jwt:abc",
          contentType: "application/json",
          body: JSON.stringify({ address, cid, payload: { key: "k3", index: "i3" } })
        }
      ])
    }).pipe(Effect.provide(wire()))
  )

  it.effect("GET without a token: Authorization goes out empty, Content-Type is still JSON, no body", () =>
    Effect.gen(function* () {
      yield* (yield* KeyNodes).call(1, { method: "GET", path: `/api/fileAccessConditions/get/${cid}` })
      assert.deepStrictEqual(seen, [
        {
          method: "GET",
          path: `/api/fileAccessConditions/get/${cid}`,
          authorization: "",
          contentType: "application/json",
          body: ""
        }
      ])
    }).pipe(Effect.provide(wire()))
  )

  it.effect("DELETE carries its JSON body; a Redacted token is revealed only on the wire", () =>
    Effect.gen(function* () {
      yield* (yield* KeyNodes).call(2, {
        method: "DELETE",
        path: "/api/setSharedKey/2",
        body: { address, cid, revokeTo: ["0x0000000000000000000000000000000000000001"] },
        token: Redacted.make("0xsignature")
      })
      assert.deepStrictEqual(seen, [
        {
          method: "DELETE",
          path: "/api/setSharedKey/2",
          authorization: "Bearer 0xsignature",
          contentType: "application/json",
          body: `{"address":"${address}","cid":"${cid}","revokeTo":["0x0000000000000000000000000000000000000001"]}`
        }
      ])
    }).pipe(Effect.provide(wire()))
  )

  it.effect("PUT to every node in turn, each with its own path and body", () =>
    Effect.gen(function* () {
      const result = yield* (yield* KeyNodes).fanOut(
        spec({
          operation: "shareToAddress",
          request: (n) => ({
            method: "PUT",
            path: `/api/setSharedKey/${n}`,
            body: { address, cid, shareTo: [`0x${String(n).repeat(40)}`] },
            token: "jwt:abc"
          })
        })
      )
      assert.strictEqual(result.answers.length, 5)
      assert.deepStrictEqual(
        seen.map((s) => [s.method, s.path, JSON.parse(s.body).shareTo[0]]),
        [1, 2, 3, 4, 5].map((n) => ["PUT", `/api/setSharedKey/${n}`, `0x${String(n).repeat(40)}`])
      )
    }).pipe(Effect.provide(wire()))
  )

  it.effect("404 on the wire: 3 requests, then `fetch Error` 404", () =>
    Effect.gen(function* () {
      answer = () => new HttpResponse("gone", { status: 404 })
      const error = yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(seen.length, 3)
      assert.strictEqual(error.message, "fetch Error")
      assert.strictEqual(error.statusCode, 404)
    }).pipe(Effect.provide(wire()))
  )

  it.effect("404 then 200 on the wire: 2 requests", () =>
    Effect.gen(function* () {
      answer = (_, attempt) => (attempt === 1 ? new HttpResponse(null, { status: 404 }) : HttpResponse.json({ ok: 1 }))
      assert.deepStrictEqual(yield* (yield* KeyNodes).call(1, saveRequest()(1)), { ok: 1 })
      assert.strictEqual(seen.length, 2)
    }).pipe(Effect.provide(wire()))
  )

  it.effect("a dropped connection on the wire: 3 requests, `fetch failed`", () =>
    Effect.gen(function* () {
      answer = () => HttpResponse.error()
      const error = yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(seen.length, 3)
      assert.strictEqual(error.message, "fetch failed")
      assert.strictEqual(error.statusCode, 0)
    }).pipe(Effect.provide(wire()))
  )

  it.effect("500 with a body on the wire: 1 request, body plus statusCode", () =>
    Effect.gen(function* () {
      answer = () => HttpResponse.json({ message: "Invalid Signature" }, { status: 500 })
      const error = yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual(error.body, { message: "Invalid Signature", statusCode: 500 })
      assert.strictEqual(error.message, "Invalid Signature")
    }).pipe(Effect.provide(wire()))
  )

  it.effect("401 with `fetch` in its body on the wire: 1 request", () =>
    Effect.gen(function* () {
      answer = () => HttpResponse.json({ message: "could not fetch user" }, { status: 401 })
      yield* Effect.flip((yield* KeyNodes).call(1, saveRequest()(1)))
      assert.strictEqual(seen.length, 1)
    }).pipe(Effect.provide(wire()))
  )

  it.effect("stop on the wire: node 2 fails, nodes 3-5 never see a request", () =>
    Effect.gen(function* () {
      answer = (path) =>
        path.endsWith("/2")
          ? HttpResponse.json({ message: "boom" }, { status: 500 })
          : HttpResponse.json({ message: "success" })
      const error = (yield* Effect.flip((yield* KeyNodes).fanOut(spec()))) as NodeError
      assert.deepStrictEqual(
        seen.map((s) => s.path),
        ["/api/setSharedKey/1", "/api/setSharedKey/2"]
      )
      assert.deepStrictEqual(error.succeededNodes, [1])
    }).pipe(Effect.provide(wire()))
  )

  it.effect("continue on the wire: all 5 nodes are called", () =>
    Effect.gen(function* () {
      answer = (path) =>
        path.endsWith("/2")
          ? HttpResponse.json({ message: "boom" }, { status: 500 })
          : HttpResponse.json({ message: "success" })
      const error = (yield* Effect.flip((yield* KeyNodes).fanOut(spec({ onError: "continue" })))) as NodeError
      assert.strictEqual(seen.length, 5)
      assert.deepStrictEqual(error.succeededNodes, [1, 3, 4, 5])
    }).pipe(Effect.provide(wire()))
  )

  it.effect("the configured encryption host, path prefix included", () =>
    Effect.gen(function* () {
      yield* (yield* KeyNodes).call(4, { method: "POST", path: "/api/transferOwnership/4", body: {}, token: "t" })
      assert.deepStrictEqual(
        seen.map((s) => [s.method, s.path, s.authorization]),
        [["POST", "/kms/api/transferOwnership/4", "Bearer t"]]
      )
    }).pipe(Effect.provide(wire({ hosts: { encryption: "http://127.0.0.1:4000/kms/" } })))
  )
})
