/**
 * One call to one key node: up to `tries` attempts, `retryDelay` apart, only when the failure is
 * a transport failure or a 404 (which the provider reports as `fetch Error`); any other non-2xx
 * answer fails at once with the node's body and status code. A token with a session (`Sessions`)
 * is sent as the session's current token, and a 401 for it renews the session and repeats the
 * call once.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Schedule from "effect/Schedule"
import { NodeError } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { reveal } from "../internal/http.ts"
import type { NodeReport, NodeRequest } from "./Models.ts"
import type { Session, Sessions } from "./Sessions.ts"

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

type Attempted = Effect.Success<ReturnType<typeof callCounting>>

/**
 * The call with the session's current token; after a 401 (expired, or a JWT the network no
 * longer knows) the session is renewed and the call made once more. A renewal that fails leaves
 * the node's refusal as the answer.
 */
const callInSession = (hosts: Hosts, session: Session, nodeId: number, request: NodeRequest) =>
  Effect.gen(function* () {
    const token = yield* session.current.pipe(Effect.orElseSucceed(() => request.token!))
    const first = yield* callCounting(hosts, nodeId, { ...request, token })
    if (first.result._tag === "Success" || first.result.failure.statusCode !== 401) return first
    const renewed = yield* Effect.result(session.renew(token))
    if (renewed._tag === "Failure") {
      yield* Effect.logDebug(
        `KeyNodes: node ${nodeId} refused the session's token and renewing it failed`,
        renewed.failure
      )
      return first
    }
    yield* Effect.logDebug(
      `KeyNodes: node ${nodeId} refused the session's token (${first.result.failure.message}); renewed`
    )
    const second = yield* callCounting(hosts, nodeId, { ...request, token: renewed.success })
    return { result: second.result, attempts: first.attempts + second.attempts }
  })

const attempt = (hosts: Hosts, sessions: Sessions, nodeId: number, request: NodeRequest): Effect.Effect<Attempted> => {
  const session = sessions.of(request.token)
  return session === undefined ? callCounting(hosts, nodeId, request) : callInSession(hosts, session, nodeId, request)
}

/** One node, with the retry policy and the token's session. */
export const call = (
  hosts: Hosts,
  sessions: Sessions,
  nodeId: number,
  request: NodeRequest
): Effect.Effect<unknown, NodeError> =>
  attempt(hosts, sessions, nodeId, request).pipe(
    Effect.flatMap(({ result }) =>
      result._tag === "Success" ? Effect.succeed(result.success) : Effect.fail(result.failure)
    ),
    Effect.withSpan("KeyNodes.call", { attributes: { nodeId, path: request.path } })
  )

/** One node, with the retry policy and the token's session, as a report that never fails. */
export const report = (
  hosts: Hosts,
  sessions: Sessions,
  nodeId: number,
  request: NodeRequest
): Effect.Effect<NodeReport> =>
  attempt(hosts, sessions, nodeId, request).pipe(
    Effect.map(({ result, attempts }) =>
      result._tag === "Success"
        ? { nodeId, outcome: "succeeded" as const, attempts, answer: result.success }
        : { nodeId, outcome: "failed" as const, attempts, error: result.failure }
    )
  )
