/**
 * The 5 key nodes of the encryption host (`/api/…/{1..5}`) and the one helper
 * every key-node call goes through.
 *
 * Per node (spec §8): up to `tries` attempts, `retryDelay` apart, only when the
 * failure is a transport failure or a 404 (which the provider reports as
 * `fetch Error`); any other non-2xx answer fails at once with the node's body
 * and status code.
 *
 * Across nodes (spec §7): `sequential` walks nodes in order with `pause`
 * between two calls (the provider's way, the default); `concurrent` calls them
 * all at once. `onError: "stop"` (save, share, revoke, transfer) ends at the
 * first failing node; `"continue"` (access conditions) calls every node and
 * then compares. Success needs every answer to agree and, where asked, every
 * `message` to be `success`. Each result reports every node's outcome, so a
 * partial write is visible.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import { NodeError, NodesDisagree } from "./Errors.ts"
import { reveal, type Token, url } from "./internal/http.ts"

/** Node ids on the encryption host. */
export const allNodes: ReadonlyArray<number> = [1, 2, 3, 4, 5]

export interface NodeRequest {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  /** Path on the encryption host, e.g. `/api/setSharedKey/3`. */
  readonly path: string
  /** JSON body; DELETE carries one too, as on the provider. */
  readonly body?: unknown
  /** Sent as `Authorization: Bearer <token>`; the header goes out empty without one, as on the provider. */
  readonly token?: Token | undefined
}

export interface NodeReport {
  readonly nodeId: number
  readonly outcome: "succeeded" | "failed" | "skipped"
  readonly attempts: number
  readonly answer?: unknown
  readonly error?: NodeError
}

/** Which part of the nodes' answers must be the same. */
export type Agreement =
  /** The whole answers. */
  | "identical"
  /** The answers with their `data` field blanked (saving and sharing). */
  | "identical-ignoring-data"
  /** Only the `message` fields (access conditions). */
  | "message"
  /** No comparison (shard retrieval: each node has its own shard). */
  | "none"

export interface FanOut {
  /** Named in errors and spans, e.g. `saveShards`. */
  readonly operation: string
  readonly nodes?: ReadonlyArray<number>
  readonly request: (nodeId: number) => NodeRequest
  readonly onError: "stop" | "continue"
  readonly agreement: Agreement
  /** Every answer's `message` must be `success`. */
  readonly requireSuccess: boolean
  /** Overrides the configured mode for this call. */
  readonly mode?: "sequential" | "concurrent"
}

export interface FanOutResult {
  /** The answers of the nodes, in node order. */
  readonly answers: ReadonlyArray<unknown>
  readonly reports: ReadonlyArray<NodeReport>
}

export class KeyNodes extends Context.Service<
  KeyNodes,
  {
    /** One node, with the retry policy. */
    readonly call: (nodeId: number, request: NodeRequest) => Effect.Effect<unknown, NodeError>
    /** The same call on several nodes, with the pause, stop and agreement rules. */
    readonly fanOut: (spec: FanOut) => Effect.Effect<FanOutResult, NodeError | NodesDisagree>
  }
>()("lighthouse-effect/KeyNodes") {}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const messageOf = (answer: unknown): unknown =>
  typeof answer === "object" && answer !== null && "message" in answer ? answer.message : undefined

/** JSON with sorted keys: two answers agree whatever order their keys came in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  ) ?? "undefined"

const comparable = (agreement: Agreement, answer: unknown): string => {
  switch (agreement) {
    case "identical":
      return canonical(answer)
    case "identical-ignoring-data":
      return canonical(typeof answer === "object" && answer !== null ? { ...answer, data: null } : answer)
    case "message":
      return canonical(messageOf(answer))
    case "none":
      return ""
  }
}

export const make = Effect.gen(function* () {
  const config = yield* LighthouseConfig
  const client = yield* HttpClient.HttpClient
  const policy = config.nodes

  const failure = (nodeId: number, statusCode: number, body: unknown, nodeMessage: string) =>
    new NodeError({ nodeId, statusCode, body, nodeMessage })

  const sendOnce = (nodeId: number, request: NodeRequest): Effect.Effect<unknown, NodeError> => {
    let httpRequest = HttpClientRequest.make(request.method)(url(config.hosts.encryption, request.path)).pipe(
      HttpClientRequest.setHeader("Authorization", request.token === undefined ? "" : `Bearer ${reveal(request.token)}`)
    )
    httpRequest =
      request.body === undefined
        ? HttpClientRequest.setHeader(httpRequest, "Content-Type", "application/json")
        : HttpClientRequest.bodyJsonUnsafe(httpRequest, request.body)
    return client.execute(httpRequest).pipe(
      Effect.timeoutOrElse({
        duration: config.requestTimeout,
        orElse: () => Effect.fail(failure(nodeId, 0, { message: "Request timed out" }, "Request timed out"))
      }),
      Effect.catchTag("HttpClientError", (e) =>
        Effect.fail(failure(nodeId, 0, { message: "fetch failed", cause: String(e.reason) }, "fetch failed"))
      ),
      Effect.flatMap((response) => {
        // The provider never reads a 404's body: it becomes `fetch Error`, which its retry rule matches.
        if (response.status === 404)
          return Effect.fail(failure(nodeId, 404, { message: "fetch Error", statusCode: 404 }, "fetch Error"))
        return response.text.pipe(
          Effect.orElseSucceed(() => ""),
          Effect.flatMap((text) => {
            const body = parseBody(text)
            if (response.status >= 200 && response.status < 300) {
              return typeof body === "string" && text !== ""
                ? Effect.fail(failure(nodeId, response.status, body, "Invalid JSON response"))
                : Effect.succeed(body)
            }
            const withStatus =
              typeof body === "object" && body !== null
                ? { ...body, statusCode: response.status }
                : { message: body, statusCode: response.status }
            const message = messageOf(body)
            return Effect.fail(
              failure(
                nodeId,
                response.status,
                withStatus,
                typeof message === "string" ? message : JSON.stringify(withStatus)
              )
            )
          })
        )
      })
    )
  }

  const callCounting = (nodeId: number, request: NodeRequest) =>
    Effect.suspend(() => {
      let attempts = 0
      return Effect.suspend(() => {
        attempts++
        return sendOnce(nodeId, request)
      }).pipe(
        Effect.retry({
          schedule: Schedule.spaced(policy.retryDelay),
          times: Math.max(0, policy.tries - 1),
          while: (e: NodeError) => e.isRetryable
        }),
        Effect.result,
        Effect.map((result) => ({ result, attempts }))
      )
    })

  const call = (nodeId: number, request: NodeRequest) =>
    callCounting(nodeId, request).pipe(
      Effect.flatMap(({ result }) =>
        result._tag === "Success" ? Effect.succeed(result.success) : Effect.fail(result.failure)
      ),
      Effect.withSpan("KeyNodes.call", { attributes: { nodeId, path: request.path } })
    )

  const report = (nodeId: number, request: NodeRequest): Effect.Effect<NodeReport> =>
    callCounting(nodeId, request).pipe(
      Effect.map(({ result, attempts }) =>
        result._tag === "Success"
          ? { nodeId, outcome: "succeeded" as const, attempts, answer: result.success }
          : { nodeId, outcome: "failed" as const, attempts, error: result.failure }
      )
    )

  const fanOut = Effect.fn("KeyNodes.fanOut")(function* (spec: FanOut) {
    const nodes = spec.nodes ?? allNodes
    const mode = spec.mode ?? policy.mode
    yield* Effect.annotateCurrentSpan({ operation: spec.operation, mode })
    let reports: Array<NodeReport>
    if (mode === "concurrent") {
      reports = yield* Effect.forEach(nodes, (nodeId) => report(nodeId, spec.request(nodeId)), {
        concurrency: "unbounded"
      })
    } else {
      reports = []
      let stopped = false
      for (const [i, nodeId] of nodes.entries()) {
        if (stopped) {
          reports.push({ nodeId, outcome: "skipped", attempts: 0 })
          continue
        }
        if (i > 0 && Duration.isGreaterThan(policy.pause, Duration.zero)) yield* Effect.sleep(policy.pause)
        const r = yield* report(nodeId, spec.request(nodeId))
        reports.push(r)
        if (r.outcome === "failed" && spec.onError === "stop") stopped = true
      }
    }
    const firstFailure = reports.find((r) => r.outcome === "failed")
    if (firstFailure?.error !== undefined) {
      const succeeded = reports.filter((r) => r.outcome === "succeeded").map((r) => r.nodeId)
      return yield* new NodeError({ ...firstFailure.error, succeededNodes: succeeded })
    }
    const answers = reports.map((r) => r.answer)
    const first = answers[0]
    const disagrees =
      spec.agreement !== "none" &&
      answers.some((a) => comparable(spec.agreement, a) !== comparable(spec.agreement, first))
    const unsuccessful = spec.requireSuccess && answers.some((a) => messageOf(a) !== "success")
    if (disagrees || unsuccessful) return yield* new NodesDisagree({ operation: spec.operation, answers })
    return { answers, reports }
  })

  return KeyNodes.of({ call, fanOut })
})

/** The key nodes over the configured encryption host; needs an `HttpClient` and the config. */
export const layer: Layer.Layer<KeyNodes, never, LighthouseConfig | HttpClient.HttpClient> = Layer.effect(
  KeyNodes,
  make
)
