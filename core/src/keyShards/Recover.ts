/**
 * Recovering a file's shards: read from `count` distinct random nodes, in ascending order, and
 * when one of them is unreachable or failing (transport error, time-out, 5xx) ask the remaining
 * nodes before giving up; then, for `fetchKey`, recover the master key from them.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import { addressOf, resolveOwner } from "../auth/Owner.ts"
import * as Shamir from "../crypto/Shamir.ts"
import {
  AccessDenied,
  CannotRecoverKey,
  CidNotFound,
  InvalidKeySplit,
  KeyNodesUnavailable,
  NodeError
} from "../Errors.ts"
import { innermostMessage } from "../internal/nodeAnswers.ts"
import { allNodes, type KeyNodes } from "../KeyNodes.ts"
import { callOf, Routes } from "../routes/Routes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Credential } from "../schema/Credential.ts"
import type { KeyShard } from "../schema/KeyShard.ts"
import type { FetchKeyInput, KeyShardsDeps, RecoverInput } from "./Models.ts"

/** Shards needed to recover a key. */
export const threshold = 3

/** Who asks for which file's shards, checked. */
interface ShardRequest {
  readonly cid: string
  readonly address: string
  readonly token: Credential
  readonly dynamicData: Readonly<Record<string, unknown>>
  /** Sent only when asking as a delegate of the owner. */
  readonly ownerAddress: string | undefined
}

/** What a node hands out: `{ message: "success", payload: { key, index } }`. */
export const RetrieveAnswer = Schema.Struct({ payload: Schema.Struct({ key: Schema.String, index: Schema.String }) })

/** A node that cannot answer now (transport failure, time-out, 404, 5xx): another node may. */
const isUnavailable = (error: NodeError): boolean =>
  error.statusCode === 0 || error.statusCode === 404 || error.statusCode >= 500

type NodeOutcome =
  | { readonly _tag: "shard"; readonly nodeId: number; readonly shard: KeyShard }
  | { readonly _tag: "unavailable"; readonly error: NodeError }

const ascending = (ids: ReadonlyArray<number>) => [...ids].sort((a, b) => a - b)

/** One node: its shard, or "unavailable" (another node may answer), or a refusal that ends the recovery. */
const askNode = Effect.fnUntraced(function* (
  nodes: KeyNodes["Service"],
  request: ShardRequest,
  nodeId: number
): Effect.fn.Return<NodeOutcome, AccessDenied | CidNotFound | NodeError> {
  const { address, cid, dynamicData, ownerAddress } = request
  const answer = yield* nodes
    .call(nodeId, {
      ...callOf(Routes.keyNodes.retrieveShard, { node: nodeId }),
      body: ownerAddress === undefined ? { address, cid, dynamicData } : { address, cid, dynamicData, ownerAddress },
      token: request.token
    })
    .pipe(Effect.result)
  if (answer._tag === "Failure") {
    const error = answer.failure
    if (isUnavailable(error)) return { _tag: "unavailable", error }
    const innermost = innermostMessage(error.body)
    if (typeof innermost === "string" && /access denied/i.test(innermost))
      return yield* new AccessDenied({ nodeId, cid })
    // The provider's rule: an error whose text contains `null` means no record for the CID.
    if (JSON.stringify(error.body ?? null).includes("null")) return yield* new CidNotFound({ cid })
    return yield* error
  }
  const decoded = Schema.decodeUnknownOption(RetrieveAnswer)(answer.success)
  // A 2xx without a shard is a faulty node: ask another one.
  if (decoded._tag === "None")
    return {
      _tag: "unavailable",
      error: new NodeError({ nodeId, statusCode: 200, body: answer.success, nodeMessage: "Invalid shard payload" })
    }
  return { _tag: "shard", nodeId, shard: decoded.value.payload }
})

/** Asks `count` of the nodes in `order`, replacing each unavailable one by the next spare one. */
const collectShards = Effect.fnUntraced(function* (
  { nodes, policy }: KeyShardsDeps,
  request: ShardRequest,
  order: ReadonlyArray<number>,
  count: number
) {
  const ask = (nodeId: number) => askNode(nodes, request, nodeId)
  const spare = ascending(order.slice(count))
  const shards: Array<{ readonly nodeId: number; readonly shard: KeyShard }> = []
  const failures: Array<NodeError> = []
  let batch = ascending(order.slice(0, count))
  let called = 0
  while (batch.length > 0) {
    const outcomes: Array<NodeOutcome> = []
    if (policy.mode === "concurrent") {
      outcomes.push(...(yield* Effect.forEach(batch, ask, { concurrency: "unbounded" })))
    } else {
      for (const nodeId of batch) {
        if (called > 0 && Duration.isGreaterThan(policy.pause, Duration.zero)) yield* Effect.sleep(policy.pause)
        called++
        outcomes.push(yield* ask(nodeId))
      }
    }
    for (const outcome of outcomes) {
      if (outcome._tag === "shard") shards.push(outcome)
      else failures.push(outcome.error)
    }
    // Replace each unavailable node by the next spare one, so `count` distinct nodes answer if they can.
    batch = spare.splice(0, count - shards.length)
    if (failures.length > 0 && batch.length > 0)
      yield* Effect.logDebug(
        `KeyShards.recover: nodes ${failures.map((f) => f.nodeId).join(", ")} unavailable, asking ${batch.join(", ")}`
      )
  }
  return { shards, failures }
})

export const recover = Effect.fn("KeyShards.recover")(function* (deps: KeyShardsDeps, input: RecoverInput) {
  const cid = yield* parseCid(input.cid)
  const address = yield* parsePublicKey(addressOf(input))
  const ownerAddress = input.ownerAddress === undefined ? undefined : yield* parsePublicKey(input.ownerAddress)
  const count = input.count ?? threshold
  if (!Number.isInteger(count) || count < 1 || count > allNodes.length)
    return yield* new InvalidKeySplit({
      threshold: count,
      keyCount: allNodes.length,
      reason: `count must be an integer from 1 to ${allNodes.length}`
    })
  const order = yield* Random.shuffle(allNodes)
  yield* Effect.annotateCurrentSpan({ cid, address, count })
  const { token } = yield* resolveOwner(deps.auth, input)
  const request = { cid, address, token, dynamicData: input.dynamicData ?? {}, ownerAddress }
  const { shards, failures } = yield* collectShards(deps, request, order, count)
  if (shards.length < count)
    return yield* new KeyNodesUnavailable({
      cid,
      needed: count,
      received: shards.length,
      failures: failures.map((f) => ({ nodeId: f.nodeId, statusCode: f.statusCode, nodeMessage: f.nodeMessage }))
    })
  const sorted = [...shards].sort((a, b) => a.nodeId - b.nodeId)
  return { shards: sorted.map((s) => s.shard), nodes: sorted.map((s) => s.nodeId) }
})

export const fetchKey = Effect.fn("KeyShards.fetchKey")(function* (deps: KeyShardsDeps, input: FetchKeyInput) {
  const { shards } = yield* recover(deps, { ...input, count: threshold })
  return yield* Shamir.recoverKey(shards, { threshold }).pipe(
    Effect.mapError((e) =>
      e._tag === "CannotRecoverKey" ? e : new CannotRecoverKey({ reason: `${e._tag}: ${e.message}` })
    )
  )
})
