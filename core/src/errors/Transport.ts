/**
 * Transport errors. HTTP answers: non-2xx statuses, no answer, time-outs, malformed bodies, key-node errors.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A non-2xx answer from the API host (`Request failed with status code {n}`). */
export class RequestFailed extends Schema.TaggedError<RequestFailed>()("RequestFailed", {
  status: Schema.Number,
  url: Schema.String,
  /** The server's error text, when it sent one. */
  body: Schema.optional(Schema.String)
}) {
  get isRetryable() {
    return this.status >= 500 || this.status === 429
  }
  override get message() {
    return `Request failed with status code ${this.status}`
  }
}

/** A non-2xx answer where the provider uses the `HTTP error!` form (file info, gateway, ticker…). */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", {
  status: Schema.Number,
  url: Schema.String,
  body: Schema.optional(Schema.String)
}) {
  get isRetryable() {
    return this.status >= 500 || this.status === 429
  }
  override get message() {
    return `HTTP error! status ${this.status}`
  }
}

/** No answer at all: DNS, refused connection, reset. */
export class NetworkError extends Schema.TaggedError<NetworkError>()("NetworkError", {
  url: Schema.String,
  cause: Schema.Defect()
}) {
  get isRetryable() {
    return true
  }
  override get message() {
    return "Network error"
  }
}

/** No answer within the configured time-out. */
export class RequestTimedOut extends Schema.TaggedError<RequestTimedOut>()("RequestTimedOut", {
  url: Schema.String,
  timeoutMillis: Schema.Number
}) {
  get isRetryable() {
    return true
  }
  override get message() {
    return "Request timed out"
  }
}

/** The server answered 2xx with a body that is not what the endpoint promises. */
export class InvalidResponse extends Schema.TaggedError<InvalidResponse>()("InvalidResponse", {
  url: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `Invalid response from ${this.url}: ${this.detail}`
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
