/**
 * The 5 key nodes of the encryption host (`/api/…/{1..5}`) and the one helper
 * every key-node call goes through.
 *
 * Per node: up to `tries` attempts, `retryDelay` apart, only when the
 * failure is a transport failure or a 404 (which the provider reports as
 * `fetch Error`); any other non-2xx answer fails at once with the node's body
 * and status code.
 *
 * Across nodes: `sequential` walks nodes in order with `pause`
 * between two calls (the provider's way, the default); `concurrent` calls them
 * all at once. `onError: "stop"` (save, share, revoke, transfer) ends at the
 * first failing node; `"continue"` (access conditions) calls every node and
 * then compares. Success needs every answer to agree and, where asked, every
 * `message` to be `success`. Each result reports every node's outcome, so a
 * partial write is visible.
 *
 * Sessions: a token `Auth.token` handed out carries its session (`sessions`); a call made with
 * it sends the session's current token, and a 401 for it (`jwt expired`) renews the session
 * (refresh token, else a new sign-in) and repeats the call once.
 *
 * The work lives in `keyNodes/`: `Call.ts` (one node), `FanOut.ts` (several), `Sessions.ts`,
 * `Models.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type { NodeError, NodesDisagree } from "./Errors.ts"
import * as Hosts from "./internal/Hosts.ts"
import * as Call from "./keyNodes/Call.ts"
import * as FanOutOps from "./keyNodes/FanOut.ts"
import type { FanOut, FanOutResult, NodeRequest } from "./keyNodes/Models.ts"
import { makeSessions, type Sessions } from "./keyNodes/Sessions.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"

export * from "./keyNodes/Models.ts"
export type { Session, Sessions } from "./keyNodes/Sessions.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `KeyNodes` service offers.
 *
 * @category models
 */
export interface Service {
  /** One node, with the retry policy. */
  readonly call: (nodeId: number, request: NodeRequest) => Effect.Effect<unknown, NodeError>
  /** The same call on several nodes, with the pause, stop and agreement rules. */
  readonly fanOut: (spec: FanOut) => Effect.Effect<FanOutResult, NodeError | NodesDisagree>
  /** The full URL of `path` on the encryption host (what an error about a node's answer names). */
  readonly urlOf: (path: string) => string
  /** The sessions of the tokens `Auth` hands out: a call renews a refused one and repeats once. */
  readonly sessions: Sessions
}

/**
 * The 5 key nodes of the encryption host.
 *
 * @category services
 */
export class KeyNodes extends Context.Service<KeyNodes, Service>()("lighthouse-effect/KeyNodes") {}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the service from the HTTP client and the configuration.
 *
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const hosts = Hosts.make(yield* LighthouseConfig, yield* HttpClient.HttpClient)
  const sessions = makeSessions()
  return KeyNodes.of({
    call: (nodeId, request) => Call.call(hosts, sessions, nodeId, request),
    fanOut: (spec) => FanOutOps.fanOut(hosts, sessions, spec),
    urlOf: hosts.keyNodeUrl,
    sessions
  })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The key nodes over the configured encryption host; needs an `HttpClient` and the config.
 *
 * @category layers
 */
export const layer: Layer.Layer<KeyNodes, never, LighthouseConfig | HttpClient.HttpClient> = Layer.effect(
  KeyNodes,
  make
)
