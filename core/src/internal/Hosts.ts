/**
 * One HTTP client per host, built once from the configuration.
 *
 * Each client prepends its host's base URL, applies the time-out that host's calls get (requests
 * for the API host and key nodes, transfers for the upload nodes and gateways) and turns every
 * failure into a catalogue error: no answer (`Network error`), no answer in time (`Request timed
 * out`), and a non-2xx answer in the wording the provider uses for it. The API host words its
 * answers two ways, so it has two clients (`api`, `apiHttpError`). Operations only say which path
 * they want: `HttpClientRequest.get("/api/user/user_data_usage")`.
 *
 * A key node answers failures its own way (a `NodeError` with the node's number), so `keyNode(id)`
 * maps them here too; keyNodes/Call.ts adds only the retry policy.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import type { HttpMethod } from "effect/http/HttpMethod"
import * as Url from "effect/http/Url"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import {
  type HttpStatusError,
  type InvalidResponse,
  NodeError,
  type RequestFailed,
  RequestTimedOut,
  type TransportFailure
} from "../Errors.ts"
import { causeText, redactUrl, scrub } from "../errors/Redact.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import type { StorageType } from "../schema/Walrus.ts"
import { decodeJson, fromHttpClientError, type StatusStyle, statusError } from "./http.ts"

/** A host's client: its failures are catalogue errors `E` (its non-2xx wording) or a transport failure. */
export type Client<E> = HttpClient.HttpClient.With<TransportFailure | E>

export interface Hosts {
  /** The API host; a non-2xx answer is `Request failed with status code {n}`. */
  readonly api: Client<RequestFailed>
  /** The API host's endpoints the provider words `HTTP error! status {n}` (auth messages, API keys, file info, ticker). */
  readonly apiHttpError: Client<HttpStatusError>
  /** The upload node (transfer time-out). */
  readonly node: Client<RequestFailed>
  /** The Walrus upload node (transfer time-out). */
  readonly walrusNode: Client<RequestFailed>
  /** The IPFS gateway (transfer time-out). */
  readonly gateway: Client<HttpStatusError>
  /** The Walrus gateway (transfer time-out). */
  readonly walrusGateway: Client<HttpStatusError>
  /** A gateway a caller named for one download (transfer time-out). */
  readonly gatewayAt: (base: string) => Client<HttpStatusError>
  /** Key node `id` of the encryption host: every failure is a `NodeError` naming the node. */
  readonly keyNode: (id: number) => HttpClient.HttpClient.With<NodeError>
  /** The full URL of `path` on the encryption host, as its clients send it (what an error about its answer names). */
  readonly keyNodeUrl: (path: string) => string
  /** The configuration the clients were built from. */
  readonly config: LighthouseConfig.Options
}

/** The full URL a request goes to, its query included (what errors report). */
export const urlOf = (request: HttpClientRequest.HttpClientRequest): string => {
  const built = Url.make(request.url, request.urlParams, Option.getOrUndefined(request.hash))
  return built._tag === "Success" ? built.success.toString() : request.url
}

/** The full URL `request` goes to through `client` (with the host's base URL prepended). */
export const resolvedUrl = <E, R>(
  client: HttpClient.HttpClient.With<E, R>,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<string, E, R> => Effect.map(client.preprocess(request), urlOf)

/** `request` sent to the host at `base`: joined as text, so a host configured with a path prefix keeps it. */
const onHost = (request: HttpClientRequest.HttpClientRequest, base: string) =>
  HttpClientRequest.prependUrl(request, base.replace(/\/+$/, ""))

/** The request an answer or a failure is about: its method and full URL. */
interface Sent {
  readonly method: string
  readonly url: string
}

/** Each request and its answer's status, at debug level (`--log-level debug`), its URL without secrets. */
const logged = (sent: Sent) => {
  const where = `${sent.method} ${redactUrl(sent.url)}`
  return <E>(answer: Effect.Effect<HttpClientResponse.HttpClientResponse, E>) =>
    Effect.logDebug(`HTTP ${where}`).pipe(
      Effect.andThen(answer),
      Effect.tap((response) => Effect.logDebug(`HTTP ${where} answered ${response.status}`)),
      Effect.tapError(() => Effect.logDebug(`HTTP ${where} failed`))
    )
}

/**
 * `client` with `base` prepended, a time-out, and `onFailure` / `onStatus` turning its failures
 * and non-2xx answers into `E` (each told the request's method and full URL).
 */
const hostClient = <E>(
  client: HttpClient.HttpClient,
  base: string,
  handlers: {
    readonly timeout: Duration.Duration
    readonly onTimeout: (sent: Sent) => E
    readonly onFailure: (error: HttpClientError.HttpClientError, sent: Sent) => E
    readonly onStatus: (response: HttpClientResponse.HttpClientResponse, sent: Sent) => Effect.Effect<never, E>
  }
): HttpClient.HttpClient.With<E> => {
  // The query is written into the URL, so the request's `url` is the whole address, as a client sees
  // it on the wire.
  const prefixed = HttpClient.mapRequest(client, (request) => {
    const full = onHost(request, base)
    return full.urlParams.params.length === 0
      ? full
      : HttpClientRequest.make(full.method as HttpMethod)(urlOf(full)).pipe(
          // The body before the headers: setting a body rewrites Content-Type, the caller's wins.
          HttpClientRequest.setBody(full.body),
          HttpClientRequest.setHeaders(full.headers)
        )
  })
  const preprocess: HttpClient.HttpClient.Preprocess<E, never> = (request) =>
    Effect.catchTag(prefixed.preprocess(request), "HttpClientError", (e) =>
      Effect.fail(handlers.onFailure(e, { method: request.method, url: urlOf(request) }))
    )
  const postprocess = (
    prepared: Effect.Effect<HttpClientRequest.HttpClientRequest, E>
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, E> =>
    Effect.flatMap(prepared, (request) => {
      const sent = { method: request.method, url: urlOf(request) }
      return prefixed.postprocess(Effect.succeed(request)).pipe(
        Effect.catchTag("HttpClientError", (e) => Effect.fail(handlers.onFailure(e, sent))),
        Effect.timeoutOrElse({ duration: handlers.timeout, orElse: () => Effect.fail(handlers.onTimeout(sent)) }),
        logged(sent),
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300 ? Effect.succeed(response) : handlers.onStatus(response, sent)
        )
      )
    })
  return HttpClient.makeWith(postprocess, preprocess)
}

/** A catalogue host: transport failures, time-outs and non-2xx answers in `style`'s wording. */
const catalogueClient = <S extends StatusStyle>(
  client: HttpClient.HttpClient,
  base: string,
  timeout: Duration.Duration,
  style: S
): Client<S extends "request-failed" ? RequestFailed : HttpStatusError> =>
  hostClient<TransportFailure | RequestFailed | HttpStatusError>(client, base, {
    timeout,
    onTimeout: ({ method, url }) => new RequestTimedOut({ method, url, timeoutMillis: Duration.toMillis(timeout) }),
    onFailure: (error, { url }) => fromHttpClientError(error, url),
    onStatus: (response, { method, url }) =>
      response.text.pipe(
        Effect.orElseSucceed(() => ""),
        Effect.flatMap((body) => Effect.fail(statusError(style, response.status, url, body, method)))
      )
  }) as Client<S extends "request-failed" ? RequestFailed : HttpStatusError>

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

const nodeFailure = (nodeId: number, statusCode: number, body: unknown, nodeMessage: string) =>
  new NodeError({ nodeId, statusCode, body, nodeMessage })

/** A key node's non-2xx answer, with the node's own message and the status added to its body. */
const nodeRefusal = (
  nodeId: number,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<never, NodeError> =>
  // The provider never reads a 404's body: it becomes `fetch Error`, which its retry rule matches.
  response.status === 404
    ? Effect.fail(nodeFailure(nodeId, 404, { message: "fetch Error", statusCode: 404 }, "fetch Error"))
    : response.text.pipe(
        Effect.orElseSucceed(() => ""),
        Effect.flatMap((text) => {
          const body = parseBody(text)
          const withStatus =
            typeof body === "object" && body !== null
              ? { ...body, statusCode: response.status }
              : { message: body, statusCode: response.status }
          const message = messageOf(body)
          return Effect.fail(
            nodeFailure(
              nodeId,
              response.status,
              withStatus,
              typeof message === "string" ? message : JSON.stringify(withStatus)
            )
          )
        })
      )

const keyNodeClient = (client: HttpClient.HttpClient, base: string, timeout: Duration.Duration) => (nodeId: number) =>
  hostClient<NodeError>(client, base, {
    timeout,
    onTimeout: () => nodeFailure(nodeId, 0, { message: "Request timed out" }, "Request timed out"),
    // The body says where and why, as a catalogue transport error does; its text is the provider's.
    onFailure: (e, { method, url }) =>
      nodeFailure(
        nodeId,
        0,
        { message: "fetch failed", cause: `${method} ${redactUrl(url)}: ${scrub(causeText(e.reason), url)}` },
        "fetch failed"
      ),
    onStatus: (response) => nodeRefusal(nodeId, response)
  })

/** Every host's client, over `client` and the hosts and time-outs of `config`. */
export const make = (config: LighthouseConfig.Options, client: HttpClient.HttpClient): Hosts => {
  const { hosts, requestTimeout, transferTimeout } = config
  const gatewayAt = (base: string) => catalogueClient(client, base, transferTimeout, "http-error")
  return {
    api: catalogueClient(client, hosts.api, requestTimeout, "request-failed"),
    apiHttpError: catalogueClient(client, hosts.api, requestTimeout, "http-error"),
    node: catalogueClient(client, hosts.node, transferTimeout, "request-failed"),
    walrusNode: catalogueClient(client, hosts.walrusNode, transferTimeout, "request-failed"),
    gateway: gatewayAt(hosts.gateway),
    walrusGateway: gatewayAt(hosts.walrusGateway),
    gatewayAt,
    keyNode: keyNodeClient(client, hosts.encryption, requestTimeout),
    keyNodeUrl: (path) => urlOf(onHost(HttpClientRequest.get(path), hosts.encryption)),
    config
  }
}

/** The upload node content of `storageType` goes to. */
export const uploadNodeOf = (hosts: Hosts, storageType: StorageType | undefined): Client<RequestFailed> =>
  storageType === "walrus" ? hosts.walrusNode : hosts.node

/** Sends `request` through a host's client and decodes its JSON body against `schema`. */
export const json = <A, I, E>(
  client: HttpClient.HttpClient.With<E>,
  request: HttpClientRequest.HttpClientRequest,
  schema: Schema.Codec<A, I>
): Effect.Effect<A, E | InvalidResponse> => Effect.flatMap(client.execute(request), decodeJson(schema))
