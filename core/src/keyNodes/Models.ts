/**
 * What a call to the key nodes takes and reports.
 *
 * @since 0.1.0
 */
import type { NodeError } from "../Errors.ts"
import type { Credential } from "../schema/Credential.ts"

/** Node ids on the encryption host. */
export const allNodes: ReadonlyArray<number> = [1, 2, 3, 4, 5]

export interface NodeRequest {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  /** Path on the encryption host, e.g. `/api/setSharedKey/3`. */
  readonly path: string
  /** JSON body; DELETE carries one too, as on the provider. */
  readonly body?: unknown
  /** Sent as `Authorization: Bearer <token>`; the header goes out empty without one, as on the provider. */
  readonly token?: Credential | undefined
}

export interface NodeReport {
  readonly nodeId: number
  readonly outcome: "succeeded" | "failed" | "skipped"
  readonly attempts: number
  readonly answer?: unknown
  readonly error?: NodeError
}

/** Which part of the nodes' answers must be the same. */
export type Agreement =
  /** The whole answers. */
  | "identical"
  /** The answers with their `data` field blanked (saving and sharing). */
  | "identical-ignoring-data"
  /** Only the `message` fields (access conditions). */
  | "message"
  /** No comparison (shard retrieval: each node has its own shard). */
  | "none"

export interface FanOut {
  /** Named in errors and spans, e.g. `saveShards`. */
  readonly operation: string
  readonly nodes?: ReadonlyArray<number>
  readonly request: (nodeId: number) => NodeRequest
  readonly onError: "stop" | "continue"
  readonly agreement: Agreement
  /** Every answer's `message` must be `success`. */
  readonly requireSuccess: boolean
  /** Overrides the configured mode for this call. */
  readonly mode?: "sequential" | "concurrent"
}

export interface FanOutResult {
  /** The answers of the nodes, in node order. */
  readonly answers: ReadonlyArray<unknown>
  readonly reports: ReadonlyArray<NodeReport>
}
