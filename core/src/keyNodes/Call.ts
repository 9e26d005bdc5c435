/**
 * One call to one key node: up to `tries` attempts, `retryDelay` apart, only when the failure is
 * a transport failure or a 404 (which the provider reports as `fetch Error`); any other non-2xx
 * answer fails at once with the node's body and status code.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { NodeError } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { reveal } from "../internal/http.ts"
import type { NodeReport, NodeRequest } from "./Models.ts"

export { messageOf } from "../internal/Hosts.ts"

const toHttpRequest = (request: NodeRequest) => {
  const httpRequest = HttpClientRequest.make(request.method)(request.path).pipe(
    HttpClientRequest.setHeader("Authorization", request.token === undefined ? "" : `Bearer ${reveal(request.token)}`)
  )
  return request.body === undefined
    ? HttpClientRequest.setHeader(httpRequest, "Content-Type", "application/json")
    : HttpClientRequest.bodyJsonUnsafe(httpRequest, request.body)
}

/** A 2xx answer's JSON body; a body that is not JSON is the provider's `Invalid JSON response`. */
const parseAnswer = (nodeId: number, status: number, text: string): Effect.Effect<unknown, NodeError> => {
  if (text === "") return Effect.succeed("")
  try {
    return Effect.succeed(JSON.parse(text))
  } catch {
    return Effect.fail(new NodeError({ nodeId, statusCode: status, body: text, nodeMessage: "Invalid JSON response" }))
  }
}

/** One attempt; time-outs, transport failures and refusals are mapped by the key node's client. */
const sendOnce = (hosts: Hosts, nodeId: number, request: NodeRequest): Effect.Effect<unknown, NodeError> =>
  hosts
    .keyNode(nodeId)
    .execute(toHttpRequest(request))
    .pipe(
      Effect.flatMap((response) =>
        response.text.pipe(
          Effect.orElseSucceed(() => ""),
          Effect.flatMap((text) => parseAnswer(nodeId, response.status, text))
        )
      )
    )

const callCounting = (hosts: Hosts, nodeId: number, request: NodeRequest) =>
  Effect.suspend(() => {
    const policy = hosts.config.nodes
    let attempts = 0
    return Effect.suspend(() => {
      attempts++
      return sendOnce(hosts, nodeId, request)
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
export const call = (hosts: Hosts, nodeId: number, request: NodeRequest): Effect.Effect<unknown, NodeError> =>
  callCounting(hosts, nodeId, request).pipe(
    Effect.flatMap(({ result }) =>
      result._tag === "Success" ? Effect.succeed(result.success) : Effect.fail(result.failure)
    ),
    Effect.withSpan("KeyNodes.call", { attributes: { nodeId, path: request.path } })
  )

/** One node, with the retry policy, as a report that never fails. */
export const report = (hosts: Hosts, nodeId: number, request: NodeRequest): Effect.Effect<NodeReport> =>
  callCounting(hosts, nodeId, request).pipe(
    Effect.map(({ result, attempts }) =>
      result._tag === "Success"
        ? { nodeId, outcome: "succeeded" as const, attempts, answer: result.success }
        : { nodeId, outcome: "failed" as const, attempts, error: result.failure }
    )
  )
