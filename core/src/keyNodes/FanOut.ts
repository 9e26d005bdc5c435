/**
 * The same call on several key nodes. `sequential` walks nodes in order with `pause` between two
 * calls (the provider's way, the default); `concurrent` calls them all at once. `onError: "stop"`
 * (save, share, revoke, transfer) ends at the first failing node; `"continue"` (access
 * conditions) calls every node and then compares. Success needs every answer to agree and, where
 * asked, every `message` to be `success`. Each result reports every node's outcome, so a partial
 * write is visible.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { NodeError, NodesDisagree } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { messageOf, report } from "./Call.ts"
import { type Agreement, allNodes, type FanOut, type FanOutResult, type NodeReport } from "./Models.ts"
import type { Sessions } from "./Sessions.ts"

/** JSON with sorted keys: two answers agree whatever order their keys came in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  ) ?? "undefined"

const comparable = (agreement: Agreement, answer: unknown): string => {
  switch (agreement) {
    case "identical":
      return canonical(answer)
    case "identical-ignoring-data":
      return canonical(typeof answer === "object" && answer !== null ? { ...answer, data: null } : answer)
    case "message":
      return canonical(messageOf(answer))
    case "none":
      return ""
  }
}

/** Node after node with the pause between them; after a failure with `onError: "stop"` the rest are skipped. */
const walkInOrder = Effect.fnUntraced(function* (
  hosts: Hosts,
  sessions: Sessions,
  nodes: ReadonlyArray<number>,
  spec: FanOut
) {
  const pause = hosts.config.nodes.pause
  const reports: Array<NodeReport> = []
  let stopped = false
  for (const [i, nodeId] of nodes.entries()) {
    if (stopped) {
      reports.push({ nodeId, outcome: "skipped", attempts: 0 })
      continue
    }
    if (i > 0 && Duration.isGreaterThan(pause, Duration.zero)) yield* Effect.sleep(pause)
    const r = yield* report(hosts, sessions, nodeId, spec.request(nodeId))
    reports.push(r)
    if (r.outcome === "failed" && spec.onError === "stop") stopped = true
  }
  return reports
})

export const fanOut = Effect.fn("KeyNodes.fanOut")(function* (
  hosts: Hosts,
  sessions: Sessions,
  spec: FanOut
): Effect.fn.Return<FanOutResult, NodeError | NodesDisagree> {
  const nodes = spec.nodes ?? allNodes
  const mode = spec.mode ?? hosts.config.nodes.mode
  yield* Effect.annotateCurrentSpan({ operation: spec.operation, mode })
  const reports =
    mode === "concurrent"
      ? yield* Effect.forEach(nodes, (nodeId) => report(hosts, sessions, nodeId, spec.request(nodeId)), {
          concurrency: "unbounded"
        })
      : yield* walkInOrder(hosts, sessions, nodes, spec)
  const firstFailure = reports.find((r) => r.outcome === "failed")
  if (firstFailure?.error !== undefined) {
    const succeeded = reports.filter((r) => r.outcome === "succeeded").map((r) => r.nodeId)
    return yield* new NodeError({ ...firstFailure.error, succeededNodes: succeeded })
  }
  const answers = reports.map((r) => r.answer)
  const first = answers[0]
  const disagrees =
    spec.agreement !== "none" &&
    answers.some((a) => comparable(spec.agreement, a) !== comparable(spec.agreement, first))
  const unsuccessful = spec.requireSuccess && answers.some((a) => messageOf(a) !== "success")
  if (disagrees || unsuccessful) return yield* new NodesDisagree({ operation: spec.operation, answers })
  return { answers, reports }
})
