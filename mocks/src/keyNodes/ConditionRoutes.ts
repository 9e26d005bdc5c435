/**
 * Access-condition routes:
 *
 * - `POST /api/fileAccessConditions/{n}` `{ address, cid, conditions, aggregator, decryptionType,
 *   chainType, payload }` creates (or, for its owner, replaces) the record with this node's shard.
 *   `decryptionType: ACCESS_CONDITIONS` makes the zero address the owner, as the provider's README
 *   warns: from then on only conditions grant access and nobody can change them.
 * - `PUT /api/fileAccessConditions/{n}` `{ address, cid, conditions, aggregator, chainType }`
 *   replaces the conditions of an existing record (owner only); shard and `sharedTo` stay.
 * - `GET /api/fileAccessConditions/get/{cid}` → `{ aggregator, conditions, conditionsSolana,
 *   sharedTo, owner, cid }`, read from node 1 (the provider served it from its first node, port 9001
 *   in dev mode), so faults on node 1 reach it.
 *
 * Conditions are validated by the library's condition schema (`AccessCondition.validateConditions`):
 * a failure is a 400 whose `message` is `Condition validation error: "<path>" <problem>`. EVM,
 * Coreum and Radix conditions are stored in `conditions`, Solana ones in `conditionsSolana`; an
 * update with another chain type empties the other list. An empty list is refused like any other
 * invalid one (`"conditions" must contain at least 1 items`): a file keeps at least one condition.
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import { AccessCondition, Cid } from "lighthouse-effect"
import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { on } from "../http/Routes.ts"
import { type KeyNodeContext, type NodeCall, nodeRoute, withFaults } from "./Context.ts"
import { type FileRecord, zeroAddress } from "./NodeState.ts"
import { accessDenied, badRequest, cidNotFound, invalidCid, reply, success } from "./Replies.ts"
import { parseShard } from "./ShardRoutes.ts"

/** Runs the condition schema on a request body; the 400 to answer when it fails. */
const validate = (body: NodeCall["body"], decryptionType: unknown): AccessCondition.ValidConditions | Response => {
  const result = Effect.runSync(
    Effect.result(
      AccessCondition.validateConditions({
        conditions: body.conditions as ReadonlyArray<unknown>,
        aggregator: body.aggregator as string | undefined,
        chainType: (body.chainType ?? undefined) as string | undefined,
        decryptionType: (decryptionType ?? undefined) as string | undefined
      })
    )
  )
  return Result.isSuccess(result) ? result.success : badRequest(result.failure.message)
}

const applyConditions = (record: FileRecord, valid: AccessCondition.ValidConditions, aggregator: unknown) => {
  record.chainType = valid.chainType
  record.conditions = valid.chainType === "SOLANA" ? [] : valid.conditions
  record.conditionsSolana = valid.chainType === "SOLANA" ? valid.conditions : []
  // Stored as sent: with 0 or 1 condition the provider accepts any aggregator, even a number.
  record.aggregator = aggregator === undefined || aggregator === null ? "" : String(aggregator)
}

const create = (call: NodeCall): Response => {
  const cid = call.body.cid
  if (typeof cid !== "string" || !Cid.isValidCid(cid)) return invalidCid()
  const shard = parseShard(call.body.payload)
  if (shard === undefined) return badRequest("payload must be a key shard {key, index}")
  const valid = validate(call.body, call.body.decryptionType)
  if (valid instanceof Response) return valid
  const existing = call.node.files.get(cid)
  if (existing !== undefined && existing.owner !== call.address) return accessDenied()
  const record: FileRecord = existing ?? {
    cid,
    owner: call.address,
    shard,
    sharedTo: [],
    conditions: [],
    conditionsSolana: [],
    aggregator: "",
    chainType: "EVM",
    decryptionType: "ADDRESS"
  }
  record.shard = shard
  record.decryptionType = valid.decryptionType
  record.owner = valid.decryptionType === "ACCESS_CONDITIONS" ? zeroAddress : call.address
  applyConditions(record, valid, call.body.aggregator)
  call.node.files.set(cid, record)
  return success({ cid })
}

const update = (call: NodeCall): Response => {
  const cid = call.body.cid
  if (typeof cid !== "string" || !Cid.isValidCid(cid)) return invalidCid()
  const record = call.node.files.get(cid)
  if (record === undefined) return cidNotFound()
  if (record.owner !== call.address) return accessDenied()
  const valid = validate(call.body, record.decryptionType)
  if (valid instanceof Response) return valid
  applyConditions(record, valid, call.body.aggregator)
  return success({ cid })
}

/** The public view of a record, as `GET /api/fileAccessConditions/get/{cid}` answers it. */
export const conditionView = (record: FileRecord) => ({
  aggregator: record.aggregator,
  conditions: record.conditions,
  conditionsSolana: record.conditionsSolana,
  sharedTo: record.sharedTo,
  owner: record.owner,
  cid: record.cid
})

export const conditionRoutes = (context: KeyNodeContext): Array<HttpHandler> => [
  on(context.host, Routes.keyNodes.getConditions, ({ request, params }) =>
    withFaults(context, 1, request, () => {
      const record = typeof params.cid === "string" ? context.nodes[0]?.files.get(params.cid) : undefined
      return record === undefined ? cidNotFound() : reply(conditionView(record))
    })
  ),
  on(context.host, Routes.keyNodes.createConditions, nodeRoute(context, create)),
  on(context.host, Routes.keyNodes.updateConditions, nodeRoute(context, update))
]
