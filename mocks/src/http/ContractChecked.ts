/**
 * Every handler of a declared endpoint holds its own JSON answer against the contract before it
 * leaves: a status the endpoint does not declare, or a body its declared schema for that status
 * refuses, is replaced by a `500` naming the endpoint and each difference, so a test that reaches
 * it fails loudly instead of teaching the client a wire the provider does not speak.
 *
 * An answer that is not JSON (a CAR, a raw block, bytes, text) is held by its head alone, its body
 * left unread: its status must be one the endpoint declares, and its media type one declared for
 * that status.
 *
 * Exempt: an answer a fault made or touched and a guarded route's 500 for a throw (both marked
 * `deliberate`), a request outside the endpoint's declared path parameters (key node `6`) and
 * HEAD; `serve --drift` rewrites answers after the handlers ran. Costs ~50 µs a JSON answer (the
 * decoders are built once per endpoint).
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import { HttpApiClient } from "effect/http-api"
import * as Schema from "effect/Schema"
import {
  compare,
  type Difference,
  Endpoints,
  LighthouseApi,
  openApi,
  type Route,
  Routes
} from "lighthouse-effect/contract"
import { errorResponse } from "./Respond.ts"

type Decode = (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, unknown>

/** Each declared route's `group.endpoint`, by the route object itself. */
const endpointByRoute: ReadonlyMap<Route, string> = new Map(
  Object.entries(Routes).flatMap(([group, endpoints]) =>
    Object.entries(endpoints as Record<string, Route>).map(([endpoint, route]) => [route, `${group}.${endpoint}`])
  )
)

/** The `group.endpoint` `route` is declared as, if it is one of `Routes`. */
export const endpointOf = (route: Route): string | undefined => endpointByRoute.get(route)

// Built once per endpoint, on its first answer: the per-response cost is the decode alone.
const decoders = new Map<string, Decode>()
const decoderOf = (endpoint: string): Decode => {
  const known = decoders.get(endpoint)
  if (known !== undefined) return known
  const [group, name] = endpoint.split(".")
  const decode = HttpApiClient.decodeResponse(LighthouseApi, { group, endpoint: name } as never) as unknown as Decode
  decoders.set(endpoint, decode)
  return decode
}

type ParamsCheck = (params: unknown) => boolean
// A request whose path parameters the endpoint does not declare (key node `6`) is not the
// endpoint's: the host answers it as an unknown path, which the contract does not describe.
const paramChecks = new Map<string, ParamsCheck>()
const paramsCheckOf = (endpoint: string): ParamsCheck => {
  const known = paramChecks.get(endpoint)
  if (known !== undefined) return known
  const schema = Endpoints.get(endpoint)?.params
  const check: ParamsCheck =
    schema === undefined ? () => true : (params) => Exit.isSuccess(Schema.decodeUnknownExit(schema as never)(params))
  paramChecks.set(endpoint, check)
  return check
}

const marked = new WeakSet<Response>()

/** `response`, marked as an answer off the contract on purpose (a fault's): it is not checked. */
export const deliberate = (response: Response): Response => {
  marked.add(response)
  return response
}

const isJson = (response: Response): boolean =>
  (response.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")

const replayOf = (request: HttpClientRequest.HttpClientRequest, response: Response, text: string) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(response.status === 204 || response.status === 304 ? null : text, {
      status: response.status,
      headers: response.headers
    })
  )

/** Whether a decode's failure is the endpoint's own declared error (an answer as declared). */
const declaredError = (cause: Cause.Cause<unknown>): boolean => {
  const failure = cause.reasons.find(Cause.isFailReason)?.error
  return (
    cause.reasons.length === 1 &&
    failure !== undefined &&
    !Schema.isSchemaError(failure) &&
    !HttpClientError.isHttpClientError(failure)
  )
}

/** The differences of a JSON answer of `endpoint` from the contract; none when it is as declared. */
const differencesOf = Effect.fnUntraced(function* (endpoint: string, request: Request, response: Response) {
  const text = yield* Effect.promise(() => response.clone().text())
  const clientRequest = HttpClientRequest.make(request.method as "GET")(request.url)
  const exit = yield* Effect.exit(Effect.scoped(decoderOf(endpoint)(replayOf(clientRequest, response, text))))
  if (Exit.isSuccess(exit) || declaredError(exit.cause)) return []
  const [group = "", name = ""] = endpoint.split(".")
  const comparison = yield* compare(group, name, clientRequest, {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text
  })
  return comparison._tag === "Differs" ? comparison.differences : []
})

type DeclaredMediaTypes = ReadonlyMap<number, ReadonlySet<string>>
// Read from the contract's OpenAPI document once, on the first answer that is not JSON.
let mediaTypesByEndpoint: ReadonlyMap<string, DeclaredMediaTypes> | undefined
const declaredMediaTypes = (endpoint: string): DeclaredMediaTypes => {
  mediaTypesByEndpoint ??= new Map(
    Object.values(openApi().paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string; responses?: object }>).map(
        ({ operationId = "", responses = {} }) => [
          operationId,
          new Map(
            Object.entries(responses as Record<string, { content?: object }>).map(([status, answer]) => [
              Number(status),
              new Set(Object.keys(answer.content ?? {}))
            ])
          )
        ]
      )
    )
  )
  return mediaTypesByEndpoint.get(endpoint) ?? new Map()
}

/** The media type of a `content-type` value, without its parameters (`; version=1`). */
const mediaTypeOf = (contentType: string): string => (contentType.split(";")[0] ?? "").trim().toLowerCase()

/** How the head of an answer that is not JSON departs from `endpoint`'s: its status, or its media type. */
const headDifferencesOf = (endpoint: string, response: Response): ReadonlyArray<Difference> => {
  const declared = declaredMediaTypes(endpoint).get(response.status)
  if (declared === undefined) {
    const problem = `the contract declares no ${response.status} answer here`
    return [{ field: "status", value: response.status, problem }]
  }
  const contentType = response.headers.get("content-type")
  if (declared.size === 0 ? contentType === null : declared.has(mediaTypeOf(contentType ?? ""))) return []
  const problem =
    declared.size === 0
      ? `the contract declares no body for ${response.status}`
      : `the contract declares ${[...declared].join(", ")} for ${response.status}`
  return [{ field: "content-type", value: contentType ?? undefined, problem }]
}

const describe = (difference: Difference): string =>
  `${difference.field}: ${JSON.stringify(difference.value) ?? "undefined"} (${difference.problem})`

/** The `500` that replaces an answer of `endpoint` outside the contract. */
export const outsideContract = (endpoint: string, differences: ReadonlyArray<Difference>): Response =>
  errorResponse(
    500,
    `the simulated network answered ${endpoint} outside the contract: ${differences.map(describe).join("; ")}`
  )

/** Whether an answer is one to check: not to HEAD, made by the route itself. */
const checkable = (request: Request, response: Response): boolean =>
  request.method !== "HEAD" && response.status !== 0 && !marked.has(response)

/** `response` of `endpoint` to `request` if the contract allows it, else the `500` naming why. */
export const checkAnswer = async (
  endpoint: string,
  request: Request,
  params: unknown,
  response: Response
): Promise<Response> => {
  if (!checkable(request, response) || !paramsCheckOf(endpoint)(params)) return response
  const differences = isJson(response)
    ? await Effect.runPromise(differencesOf(endpoint, request, response))
    : headDifferencesOf(endpoint, response)
  return differences.length === 0 ? response : outsideContract(endpoint, differences)
}
