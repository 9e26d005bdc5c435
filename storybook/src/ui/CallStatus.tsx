/**
 * What a call is doing, announced to assistive technology: a polite live region while it runs or
 * succeeds, an alert when it fails (with the error's catalogue text, and which key nodes had
 * already taken a change that failed on another).
 */
import type { CallState } from "../runtime/useEffectCall.ts"

export interface CallStatusProps {
  readonly call: CallState<unknown, { readonly message: string }>
  /** Shown while running. */
  readonly running: string
  /** Shown on success, when given. */
  readonly success?: string
}

/** The nodes a failed key-node change had reached (`NodeError.succeededNodes`). */
const partialWrite = (error: object): ReadonlyArray<number> =>
  "succeededNodes" in error && Array.isArray(error.succeededNodes) ? error.succeededNodes : []

/** A key node's own message says nothing of which node it was: `NodeError` names it. */
const failedNode = (error: object): number | undefined =>
  "_tag" in error && error._tag === "NodeError" && "nodeId" in error && typeof error.nodeId === "number"
    ? error.nodeId
    : undefined

export const CallStatus = ({ call, running, success }: CallStatusProps) => {
  if (call.state === "failure") {
    const changed = partialWrite(call.error)
    const node = failedNode(call.error)
    return (
      <div role="alert" className="lh-error">
        <p>
          {/* Node 0 is the encryption host's own routes (auth messages, JWTs). */}
          {node === undefined ? "" : node === 0 ? "Key nodes: " : `Key node ${node}: `}
          {call.error.message}
        </p>
        {changed.length > 0 && <p>Already changed on key nodes {changed.join(", ")}.</p>}
      </div>
    )
  }
  return (
    <p aria-live="polite" className="lh-status">
      {call.state === "running" ? running : call.state === "success" ? (success ?? "") : ""}
    </p>
  )
}
