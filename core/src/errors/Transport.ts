/**
 * Transport errors. HTTP answers: non-2xx statuses, no answer, time-outs, malformed bodies, key-node errors.
 *
 * Each HTTP failure says where and why besides its catalogue `message`: the request's `method`,
 * its `url` without secrets (credentials, query values named like a key, token or signature, and
 * the fragment are `<redacted>`, already when the error is made: the error never holds them),
 * and `reason`, the underlying cause in a few words (`connect ECONNREFUSED`). `where` and
 * `describe` put them on one line:
 * `Network error (POST http://127.0.0.1:8732/api/v0/add: connect ECONNREFUSED)`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { causeText, cleanCause, oneLine, redactUrl, scrub } from "./Redact.ts"

/** The request a failure is about, as `METHOD url` (the method when it is known). */
const whereOf = (method: string | undefined, url: string) => (method === undefined ? url : `${method} ${url}`)

/** A server's error body in a few words: its JSON `error` or `message`, else its first line, at most 200 characters. */
const bodyText = (body: string | undefined): string | undefined => {
  if (body === undefined || body.trim() === "") return undefined
  let text = body
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null) {
      const said = "error" in parsed ? parsed.error : "message" in parsed ? parsed.message : undefined
      if (typeof said === "string") text = said
    }
  } catch {
    // not JSON: the text as it is
  }
  const line = oneLine(text)
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

const StatusFields = {
  status: Schema.Number,
  /** The request's method, when known. */
  method: Schema.optionalKey(Schema.String),
  /** The request's address, secrets redacted. */
  url: Schema.String,
  /** The server's error text, when it sent one (without the address's secrets). */
  body: Schema.optional(Schema.String)
}

/** What a status error is made from: the request's own address (its secrets are taken out here). */
interface StatusInput {
  readonly status: number
  readonly method?: string
  readonly url: string
  readonly body?: string | undefined
}

const cleanStatus = (input: StatusInput) => ({
  ...input,
  url: redactUrl(input.url),
  ...(input.body === undefined ? {} : { body: scrub(input.body, input.url) })
})
/** A non-2xx answer from the API host (`Request failed with status code {n}`). */
export class RequestFailed extends Schema.TaggedError<RequestFailed>()("RequestFailed", StatusFields) {
  constructor(input: StatusInput, options?: Schema.MakeOptions) {
    super(cleanStatus(input), options)
  }
  get isRetryable() {
    return this.status >= 500 || this.status === 429
  }
  override get message() {
    return `Request failed with status code ${this.status}`
  }
  /** The request, as `METHOD url`. */
  get where() {
    return whereOf(this.method, this.url)
  }
  /** The server's error text in a few words, if it sent one. */
  get reason(): string | undefined {
    return bodyText(this.body)
  }
}

/** A non-2xx answer where the provider uses the `HTTP error!` form (file info, gateway, ticker…). */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", StatusFields) {
  constructor(input: StatusInput, options?: Schema.MakeOptions) {
    super(cleanStatus(input), options)
  }
  get isRetryable() {
    return this.status >= 500 || this.status === 429
  }
  override get message() {
    return `HTTP error! status ${this.status}`
  }
  /** The request, as `METHOD url`. */
  get where() {
    return whereOf(this.method, this.url)
  }
  /** The server's error text in a few words, if it sent one. */
  get reason(): string | undefined {
    return bodyText(this.body)
  }
}

/** No answer at all: DNS, refused connection, reset. */
export class NetworkError extends Schema.TaggedError<NetworkError>()("NetworkError", {
  method: Schema.optionalKey(Schema.String),
  url: Schema.String,
  /** The innermost error (the socket's: `code`, `syscall` kept), its text without the address's secrets. */
  cause: Schema.Defect()
}) {
  constructor(
    input: { readonly method?: string; readonly url: string; readonly cause: unknown },
    options?: Schema.MakeOptions
  ) {
    super({ ...input, url: redactUrl(input.url), cause: cleanCause(input.cause, input.url) }, options)
  }
  get isRetryable() {
    return true
  }
  override get message() {
    return "Network error"
  }
  /** The request, as `METHOD url`. */
  get where() {
    return whereOf(this.method, this.url)
  }
  /** The underlying cause in a few words: `connect ECONNREFUSED`, `getaddrinfo ENOTFOUND`. */
  get reason(): string {
    return oneLine(causeText(this.cause))
  }
}

/** No answer within the configured time-out. */
export class RequestTimedOut extends Schema.TaggedError<RequestTimedOut>()("RequestTimedOut", {
  method: Schema.optionalKey(Schema.String),
  url: Schema.String,
  timeoutMillis: Schema.Number
}) {
  constructor(
    input: { readonly method?: string; readonly url: string; readonly timeoutMillis: number },
    options?: Schema.MakeOptions
  ) {
    super({ ...input, url: redactUrl(input.url) }, options)
  }
  get isRetryable() {
    return true
  }
  override get message() {
    return "Request timed out"
  }
  /** The request, as `METHOD url`. */
  get where() {
    return whereOf(this.method, this.url)
  }
  get reason(): string {
    return `no answer within ${this.timeoutMillis} ms`
  }
}

/** The server answered 2xx with a body that is not what the endpoint promises. */
export class InvalidResponse extends Schema.TaggedError<InvalidResponse>()("InvalidResponse", {
  method: Schema.optionalKey(Schema.String),
  url: Schema.String,
  detail: Schema.String
}) {
  constructor(
    input: { readonly method?: string; readonly url: string; readonly detail: string },
    options?: Schema.MakeOptions
  ) {
    super({ ...input, url: redactUrl(input.url), detail: scrub(input.detail, input.url) }, options)
  }
  override get message() {
    return `Invalid response from ${this.url}: ${this.detail}`
  }
  /** The request, as `METHOD url`. */
  get where() {
    return whereOf(this.method, this.url)
  }
  get reason(): string {
    return oneLine(this.detail)
  }
}

/**
 * A request that got no usable answer: none at all (`Network error`), none in time (`Request
 * timed out`), or one that is not what the endpoint promises (`InvalidResponse`). Every call over
 * HTTP can fail this way, besides its own non-2xx wording.
 *
 * @category errors
 * @since 0.1.0
 */
export type TransportFailure = NetworkError | RequestTimedOut | InvalidResponse

/**
 * A key node answered with an error. `message` is the node's own message:
 * `fetch Error` for a 404 or an unreachable node, else the body's `message`.
 */
export class NodeError extends Schema.TaggedError<NodeError>()("NodeError", {
  nodeId: Schema.Number,
  /** 0 when no HTTP answer arrived. */
  statusCode: Schema.Number,
  /** The node's error body, as parsed JSON (or text). */
  body: Schema.Unknown,
  nodeMessage: Schema.String,
  /** In a call to several nodes: the nodes that had already accepted it, so a partial write is visible. */
  succeededNodes: Schema.optionalKey(Schema.Array(Schema.Number))
}) {
  /** The provider retries exactly the errors whose text contains `fetch`: 404s and transport failures. */
  get isRetryable() {
    return this.statusCode === 0 || this.statusCode === 404
  }
  override get message() {
    return this.nodeMessage
  }
  /**
   * What a wrapping error shows: the node's innermost message (a node nests it,
   * `{"message":{"message":"Access Denied"}}`) and which node, with where and why when no answer
   * came: `Access Denied (node 1)`, `fetch failed (node 3: POST http://…/api/setSharedKey/3: connect ECONNREFUSED)`.
   */
  get firstCause(): string {
    const detail = isRecord(this.body) && typeof this.body.cause === "string" ? `: ${this.body.cause}` : ""
    return oneLine(`${innermostMessage(this.body) ?? this.nodeMessage} (node ${this.nodeId}${detail})`)
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** The deepest string `message` of a node's body. */
const innermostMessage = (body: unknown): string | undefined => {
  let current = body
  for (let depth = 0; depth < 5 && isRecord(current); depth++) current = current.message
  return typeof current === "string" ? current : undefined
}

/** The 5 nodes did not all answer the same, or did not all answer `success`. */
export class NodesDisagree extends Schema.TaggedError<NodesDisagree>()("NodesDisagree", {
  operation: Schema.String,
  answers: Schema.Array(Schema.Unknown)
}) {
  override get message() {
    return `The key nodes did not agree on ${this.operation}`
  }
}

/**
 * The caller aborted the call through its `AbortSignal` (the Promise facade's trailing
 * `{ signal }`): the call was interrupted and its requests cancelled. The message is the one
 * `fetch` rejects with.
 */
export class Aborted extends Schema.TaggedError<Aborted>()("Aborted", {}) {
  override get message() {
    return "This operation was aborted"
  }
}
