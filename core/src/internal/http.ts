/**
 * How HTTP answers become catalogue errors: a transport failure (`Network error`), a non-2xx
 * answer in the style the provider uses for the endpoint (`Request failed with status code {n}` or
 * `HTTP error! status {n}`), and a body that does not match its schema (`InvalidResponse`). The
 * per-host clients of `Hosts.ts` apply them, with each host's time-out (`Request timed out`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { HttpStatusError, InvalidResponse, NetworkError, RequestFailed, type TransportFailure } from "../Errors.ts"
import type { Credential } from "../schema/Credential.ts"

/** Which wording the provider gives a non-2xx answer of this endpoint. */
export type StatusStyle = "request-failed" | "http-error"

/** A non-2xx answer in `style`'s wording, with its body when it has one. */
export const statusError = (style: StatusStyle, status: number, url: string, body: string, method?: string) => {
  const fields = { status, url, ...(method === undefined ? {} : { method }), ...(body === "" ? {} : { body }) }
  return style === "request-failed" ? new RequestFailed(fields) : new HttpStatusError(fields)
}

/** A request that got no usable answer: `Network error`, or `InvalidResponse` for a broken one. */
export const fromHttpClientError = (error: HttpClientError.HttpClientError, url: string): TransportFailure => {
  const method = error.request.method
  switch (error.reason._tag) {
    case "TransportError":
    case "InvalidUrlError":
    case "EncodeError":
      return new NetworkError({ method, url, cause: error.reason })
    default:
      return new InvalidResponse({ method, url, detail: error.reason.message })
  }
}

/** An answer's body that is not what `response`'s endpoint promises. */
const invalidBody = (response: HttpClientResponse.HttpClientResponse) => (error: { readonly message: string }) =>
  new InvalidResponse({ method: response.request.method, url: response.request.url, detail: error.message })

/** Decodes a response body as JSON against `schema`. */
export const decodeJson =
  <A, I>(schema: Schema.Codec<A, I>) =>
  (response: HttpClientResponse.HttpClientResponse): Effect.Effect<A, InvalidResponse> =>
    response.json.pipe(
      Effect.mapError(invalidBody(response)),
      Effect.flatMap((json) => Schema.decodeUnknownEffect(schema)(json).pipe(Effect.mapError(invalidBody(response))))
    )

/** A secret's value, for the wire only (a `Credential` is never put into logs). */
export const reveal = (token: Credential): string => (Redacted.isRedacted(token) ? Redacted.value(token) : token)

/** `Authorization: Bearer <token>`. */
export const withBearer = (token: Credential) => HttpClientRequest.bearerToken(reveal(token))
