/**
 * One call to one key node: up to `tries` attempts, `retryDelay` apart, only when the failure is
 * a transport failure or a 404 (which the provider reports as `fetch Error`); any other non-2xx
 * answer fails at once with the node's body and status code.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import { NodeError } from "../Errors.ts"
import { reveal, url } from "../internal/http.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import type { NodeReport, NodeRequest } from "./Models.ts"

/** What a call to a key node needs. */
export interface NodeDeps {
  readonly client: HttpClient.HttpClient
  readonly config: LighthouseConfig.Options
}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The `message` field of an answer, if it has one. */
export const messageOf = (answer: unknown): unknown =>
  typeof answer === "object" && answer !== null && "message" in answer ? answer.message : undefined

const failure = (nodeId: number, statusCode: number, body: unknown, nodeMessage: string) =>
  new NodeError({ nodeId, statusCode, body, nodeMessage })

const toHttpRequest = (config: LighthouseConfig.Options, request: NodeRequest) => {
  const httpRequest = HttpClientRequest.make(request.method)(url(config.hosts.encryption, request.path)).pipe(
    HttpClientRequest.setHeader("Authorization", request.token === undefined ? "" : `Bearer ${reveal(request.token)}`)
  )
  return request.body === undefined
    ? HttpClientRequest.setHeader(httpRequest, "Content-Type", "application/json")
    : HttpClientRequest.bodyJsonUnsafe(httpRequest, request.body)
}

/** A node's answer: its JSON body on a 2xx, else a `NodeError` with the node's own message. */
const readAnswer = (
  nodeId: number,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<unknown, NodeError> => {
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
        failure(nodeId, response.status, withStatus, typeof message === "string" ? message : JSON.stringify(withStatus))
      )
    })
  )
}

const sendOnce = (
  { client, config }: NodeDeps,
  nodeId: number,
  request: NodeRequest
): Effect.Effect<unknown, NodeError> =>
  client.execute(toHttpRequest(config, request)).pipe(
    Effect.timeoutOrElse({
      duration: config.requestTimeout,
      orElse: () => Effect.fail(failure(nodeId, 0, { message: "Request timed out" }, "Request timed out"))
    }),
    Effect.catchTag("HttpClientError", (e) =>
      Effect.fail(failure(nodeId, 0, { message: "fetch failed", cause: String(e.reason) }, "fetch failed"))
    ),
    Effect.flatMap((response) => readAnswer(nodeId, response))
  )

const callCounting = (deps: NodeDeps, nodeId: number, request: NodeRequest) =>
  Effect.suspend(() => {
    const policy = deps.config.nodes
    let attempts = 0
    return Effect.suspend(() => {
      attempts++
      return sendOnce(deps, nodeId, request)
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

/** One node, with the retry policy. */
export const call = (deps: NodeDeps, nodeId: number, request: NodeRequest): Effect.Effect<unknown, NodeError> =>
  callCounting(deps, nodeId, request).pipe(
    Effect.flatMap(({ result }) =>
      result._tag === "Success" ? Effect.succeed(result.success) : Effect.fail(result.failure)
    ),
    Effect.withSpan("KeyNodes.call", { attributes: { nodeId, path: request.path } })
  )

/** One node, with the retry policy, as a report that never fails. */
export const report = (deps: NodeDeps, nodeId: number, request: NodeRequest): Effect.Effect<NodeReport> =>
  callCounting(deps, nodeId, request).pipe(
    Effect.map(({ result, attempts }) =>
      result._tag === "Success"
        ? { nodeId, outcome: "succeeded" as const, attempts, answer: result.success }
        : { nodeId, outcome: "failed" as const, attempts, error: result.failure }
    )
  )
