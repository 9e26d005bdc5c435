/**
 * The one place HTTP answers become catalogue errors.
 *
 * Every call to the API host, the upload node and the gateway goes through
 * `execute` / `executeJson`: a time-out (`Request timed out`), a transport
 * failure (`Network error`), a non-2xx answer in the style the provider uses for
 * the endpoint (`Request failed with status code {n}` or `HTTP error! status {n}`),
 * and a body that does not match its schema (`InvalidResponse`).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import {
  HttpStatusError,
  InvalidResponse,
  NetworkError,
  RequestFailed,
  RequestTimedOut,
  type TransportFailure
} from "../Errors.ts"
import type { Credential } from "../schema/Credential.ts"

/** Which wording the provider gives a non-2xx answer of this endpoint. */
export type StatusStyle = "request-failed" | "http-error"

export type StatusFailure<S extends StatusStyle> = S extends "request-failed" ? RequestFailed : HttpStatusError

export interface ExecuteOptions<S extends StatusStyle, E> {
  readonly style: S
  readonly timeout: Duration.Duration
  /** Turns a particular non-2xx answer into a more precise error (e.g. 400 → `Proof Doesn't exist yet`). */
  readonly onStatus?: (status: number, body: string) => E | undefined
}

/** A non-2xx answer in `style`'s wording, with its body when it has one. */
export const statusError = (style: StatusStyle, status: number, url: string, body: string) => {
  const fields = { status, url, ...(body === "" ? {} : { body }) }
  return style === "request-failed" ? new RequestFailed(fields) : new HttpStatusError(fields)
}

/** A request that got no usable answer: `Network error`, or `InvalidResponse` for a broken one. */
export const fromHttpClientError = (error: HttpClientError.HttpClientError, url: string): TransportFailure => {
  switch (error.reason._tag) {
    case "TransportError":
    case "InvalidUrlError":
    case "EncodeError":
      return new NetworkError({ url, cause: error.reason })
    default:
      return new InvalidResponse({ url, detail: error.reason.message })
  }
}

/** Sends a request; succeeds with the 2xx response, fails with a catalogue error otherwise. */
export const execute = <S extends StatusStyle, E = never>(
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  options: ExecuteOptions<S, E>
): Effect.Effect<HttpClientResponse.HttpClientResponse, TransportFailure | StatusFailure<S> | E> => {
  const url = request.url
  return client.execute(request).pipe(
    Effect.catchTag("HttpClientError", (e) => Effect.fail(fromHttpClientError(e, url))),
    Effect.timeoutOrElse({
      duration: options.timeout,
      orElse: () => Effect.fail(new RequestTimedOut({ url, timeoutMillis: Duration.toMillis(options.timeout) }))
    }),
    Effect.flatMap((response) => {
      if (response.status >= 200 && response.status < 300) return Effect.succeed(response)
      return response.text.pipe(
        Effect.orElseSucceed(() => ""),
        Effect.flatMap((body) => {
          const precise = options.onStatus?.(response.status, body)
          return Effect.fail(
            precise === undefined
              ? (statusError(options.style, response.status, url, body) as StatusFailure<S>)
              : precise
          )
        })
      )
    })
  )
}

/** Decodes a response body as JSON against `schema`. */
export const decodeJson =
  <A, I>(schema: Schema.Codec<A, I>) =>
  (response: HttpClientResponse.HttpClientResponse): Effect.Effect<A, InvalidResponse> =>
    response.json.pipe(
      Effect.mapError((e) => new InvalidResponse({ url: response.request.url, detail: e.message })),
      Effect.flatMap((json) =>
        Schema.decodeUnknownEffect(schema)(json).pipe(
          Effect.mapError((e) => new InvalidResponse({ url: response.request.url, detail: e.message }))
        )
      )
    )

/** `execute`, then `decodeJson`. */
export const executeJson = <A, I, S extends StatusStyle, E = never>(
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  schema: Schema.Codec<A, I>,
  options: ExecuteOptions<S, E>
): Effect.Effect<A, TransportFailure | StatusFailure<S> | E> =>
  execute(client, request, options).pipe(Effect.flatMap(decodeJson(schema)))

/** A token given as a string or `Redacted` (public as `Auth.Credential`): the value goes on the wire, never into logs. */
export type Token = Credential

export const reveal = (token: Token): string => (Redacted.isRedacted(token) ? Redacted.value(token) : token)

/** `Authorization: Bearer <token>`. */
export const withBearer = (token: Token) => HttpClientRequest.bearerToken(reveal(token))

/** `base` + `path`, with each query value URL-encoded (the provider concatenated them raw). */
export const url = (base: string, path: string, query?: Readonly<Record<string, string | number | undefined>>) => {
  // Joined as text so a host configured with a path prefix keeps it.
  const target = new URL(`${base.replace(/\/+$/, "")}${path}`)
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined) target.searchParams.set(key, String(value))
  return target.toString()
}
