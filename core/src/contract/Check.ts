/**
 * One answer held against the contract: the endpoint's declared decoders (`HttpApiClient`'s, the
 * same a client built from the contract uses) read it, and what they refuse is named: the field
 * and the value it had, a status the endpoint does not declare, a media type it does not answer.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import { HttpApiClient } from "effect/http-api"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { LighthouseApi } from "./Api.ts"

/** Where an answer departs from the contract: a body field (its path), `status` or `content-type`. */
export interface Difference {
  /** `dataUsed`, `accepts[0].network`, `status`, `content-type`. */
  readonly field: string
  /** The value the answer had there (`undefined` for a field it lacks). */
  readonly value: unknown
  /** What the contract says of it. */
  readonly problem: string
}

/** How an answer compares with the contract: as declared (a success or a declared error), or not. */
export type Comparison =
  | { readonly _tag: "AsDeclared"; readonly status: number; readonly declaredError: boolean }
  | { readonly _tag: "Differs"; readonly status: number; readonly differences: ReadonlyArray<Difference> }

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const at = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (current, key) =>
      current !== null && typeof current === "object" ? (current as Record<PropertyKey, unknown>)[key] : undefined,
    value
  )

const fieldName = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (name, key) => (typeof key === "number" ? `${name}[${key}]` : name === "" ? String(key) : `${name}.${String(key)}`),
    ""
  ) || "(body)"

/** The differences a refusal names: schema issues on the body, or the status or media type. */
const differencesOf = (cause: Cause.Cause<unknown>, status: number, contentType: string, body: unknown) => {
  const errors = cause.reasons.filter(Cause.isFailReason).map((reason) => reason.error)
  const schemaError = errors.find(Schema.isSchemaError)
  if (schemaError !== undefined) {
    return formatIssue(schemaError.issue).issues.map((issue): Difference => {
      const path = (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
      return { field: fieldName(path), value: at(body, path), problem: issue.message }
    })
  }
  const clientError = errors.find(HttpClientError.isHttpClientError)
  const description = clientError?.reason._tag === "DecodeError" ? (clientError.reason.description ?? "") : ""
  if (description.startsWith("Unsupported response content-type")) {
    return [{ field: "content-type", value: contentType, problem: description }]
  }
  if (description === "undeclared status code") {
    return [{ field: "status", value: status, problem: `the contract declares no ${status} answer here` }]
  }
  return [{ field: "(body)", value: body, problem: Cause.pretty(cause).split("\n")[0] ?? "unreadable" }]
}

/** An answer (already read, its text given) compared with the answers `group.endpoint` declares. */
export const compare = Effect.fnUntraced(function* (
  group: string,
  endpoint: string,
  request: HttpClientRequest.HttpClientRequest,
  answer: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly text: string }
) {
  const decode = HttpApiClient.decodeResponse(LighthouseApi, { group, endpoint } as never) as unknown as (
    response: HttpClientResponse.HttpClientResponse
  ) => Effect.Effect<unknown, unknown>
  const empty = answer.status === 204 || answer.status === 304
  const replay = HttpClientResponse.fromWeb(
    request,
    new Response(empty ? null : answer.text, { status: answer.status, headers: answer.headers })
  )
  const exit = yield* Effect.exit(Effect.scoped(decode(replay)))
  if (Exit.isSuccess(exit)) return { _tag: "AsDeclared", status: answer.status, declaredError: false } as Comparison
  const failure = exit.cause.reasons.find(Cause.isFailReason)?.error
  const undeclared = Schema.isSchemaError(failure) || HttpClientError.isHttpClientError(failure)
  if (failure !== undefined && !undeclared && exit.cause.reasons.length === 1) {
    return { _tag: "AsDeclared", status: answer.status, declaredError: true } as Comparison
  }
  return {
    _tag: "Differs",
    status: answer.status,
    differences: differencesOf(exit.cause, answer.status, answer.headers["content-type"] ?? "", parseJson(answer.text))
  } as Comparison
})
