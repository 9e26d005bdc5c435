/**
 * The nodes' refusals in the caller's terms: `Access Denied` and `cid not found` when no node
 * had accepted the change yet, else the `NodeError` whose `succeededNodes` shows the partial write.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { AccessDenied, CidNotFound, type NodeError, type NodesDisagree } from "../Errors.ts"
import { innermostMessage } from "../internal/nodeAnswers.ts"
import type { FanOut, KeyNodes } from "../KeyNodes.ts"
import type { NodeRefusal } from "./Models.ts"

/** A node's refusal as a {@link NodeRefusal}. */
export const refine =
  (cid: string) =>
  (error: NodeError | NodesDisagree): NodeRefusal => {
    if (error._tag === "NodesDisagree" || (error.succeededNodes?.length ?? 0) > 0) return error
    const innermost = innermostMessage(error.body)
    if (typeof innermost === "string" && /access denied/i.test(innermost))
      return new AccessDenied({ nodeId: error.nodeId, cid })
    if (error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 404) {
      if (JSON.stringify(error.body ?? null).includes("null")) return new CidNotFound({ cid })
    }
    return error
  }

/** A call to several nodes, its refusals refined. */
export const fanOutRefined = (nodes: KeyNodes["Service"], cid: string, spec: FanOut) =>
  nodes.fanOut(spec).pipe(Effect.mapError(refine(cid)))
