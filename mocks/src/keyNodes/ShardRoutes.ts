/**
 * Per-node shard routes (`{n}` = 1…5; any other id is a 404):
 *
 * - `POST /api/setSharedKey/{n}` `{ address, cid, payload: {key, index}, sharedTo? }` saves this
 *   node's shard, owned by the caller. The owner may save again (key rotation; `sharedTo` is
 *   merged); anyone else gets `Access Denied`. Shard content is not checked beyond two strings, as
 *   on the provider (its own tests save `{key: "1", index: "1"}`).
 * - `PUT /api/setSharedKey/{n}` `{ address, cid, shareTo }` adds addresses (owner only).
 * - `DELETE /api/setSharedKey/{n}` `{ address, cid, revokeTo }` removes them (owner only); revoking
 *   an address that was never shared succeeds.
 * - `POST /api/transferOwnership/{n}` `{ address, cid, newOwner, resetSharedTo = true }`.
 * - `POST /api/retrieveSharedKey/{n}` `{ address, cid, dynamicData, ownerAddress? }` → `{ message:
 *   "success", payload: {key, index} }` to the owner, an address in `sharedTo`, a delegate of the
 *   owner named in `ownerAddress` (`DelegationRoutes.ts`), or a caller whose conditions hold; `Access Denied` otherwise; `cid not found` when this node has no record.
 *
 * Successful writes answer `{ message: "success", data }` with `data` the same on every healthy
 * node, so both kavach's comparison (which blanks `data`) and a strict one (transferOwnership)
 * see 5 identical answers.
 *
 * @since 0.1.0
 */

import { Cid } from "lighthouse-effect"
import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { on } from "../http/Routes.ts"
import { normalizeAddress } from "./Auth.ts"
import { conditionsGrant } from "./Conditions.ts"
import { type KeyNodeContext, type NodeCall, nodeRoute, parseAddressList, type Step } from "./Context.ts"
import { isDelegate } from "./DelegationRoutes.ts"
import type { FileRecord, KeyShard, Release } from "./NodeState.ts"
import { accessDenied, badRequest, cidNotFound, invalidAddress, invalidCid, reply, success } from "./Replies.ts"

/** `{key, index}` as two strings (extra fields dropped); `undefined` otherwise. */
export const parseShard = (input: unknown): KeyShard | undefined => {
  if (input === null || typeof input !== "object") return undefined
  const { key, index } = input as Record<string, unknown>
  return typeof key === "string" && typeof index === "string" ? { key, index } : undefined
}

/** The record of `cid` on this node when the caller owns it, else the refusal to answer. */
const ownedRecord = (call: NodeCall): FileRecord | Response => {
  const cid = call.body.cid
  if (typeof cid !== "string" || !Cid.isValidCid(cid)) return invalidCid()
  const record = call.node.files.get(cid)
  if (record === undefined) return cidNotFound()
  if (record.owner !== call.address) return accessDenied()
  return record
}

const saveShard: Step = (call) => {
  const cid = call.body.cid
  if (typeof cid !== "string" || !Cid.isValidCid(cid)) return invalidCid()
  const shard = parseShard(call.body.payload)
  if (shard === undefined) return badRequest("payload must be a key shard {key, index}")
  const sharedTo = call.body.sharedTo === undefined ? [] : parseAddressList(call.body.sharedTo)
  if (sharedTo === undefined) return invalidAddress()
  const existing = call.node.files.get(cid)
  if (existing !== undefined) {
    if (existing.owner !== call.address) return accessDenied()
    existing.shard = shard
    existing.sharedTo = [...new Set([...existing.sharedTo, ...sharedTo])]
    return success({ cid, owner: existing.owner, sharedTo: existing.sharedTo })
  }
  call.node.files.set(cid, {
    cid,
    owner: call.address,
    shard,
    sharedTo,
    conditions: [],
    conditionsSolana: [],
    aggregator: "",
    chainType: "EVM",
    decryptionType: "ADDRESS"
  })
  return success({ cid, owner: call.address, sharedTo })
}

const share: Step = (call) => {
  const record = ownedRecord(call)
  if (record instanceof Response) return record
  const shareTo = parseAddressList(call.body.shareTo)
  if (shareTo === undefined) return invalidAddress()
  record.sharedTo = [...new Set([...record.sharedTo, ...shareTo])]
  return success({ cid: record.cid, sharedTo: record.sharedTo })
}

const revoke: Step = (call) => {
  const record = ownedRecord(call)
  if (record instanceof Response) return record
  const revokeTo = parseAddressList(call.body.revokeTo)
  if (revokeTo === undefined) return invalidAddress()
  record.sharedTo = record.sharedTo.filter((address) => !revokeTo.includes(address))
  return success({ cid: record.cid, sharedTo: record.sharedTo })
}

const transfer: Step = (call) => {
  const record = ownedRecord(call)
  if (record instanceof Response) return record
  const newOwner = normalizeAddress(call.body.newOwner)
  if (newOwner === undefined) return invalidAddress()
  const reset = call.body.resetSharedTo ?? true
  if (typeof reset !== "boolean") return badRequest("resetSharedTo must be a boolean")
  record.owner = newOwner
  if (reset) record.sharedTo = []
  return success({ cid: record.cid, owner: newOwner })
}

const retrieve =
  (context: KeyNodeContext): Step =>
  async (call) => {
    const cid = call.body.cid
    const record = typeof cid === "string" ? call.node.files.get(cid) : undefined
    if (record === undefined) return cidNotFound()
    const dynamicData =
      call.body.dynamicData !== null &&
      typeof call.body.dynamicData === "object" &&
      !Array.isArray(call.body.dynamicData)
        ? (call.body.dynamicData as Record<string, unknown>)
        : {}
    const right: Release["right"] | undefined =
      record.owner === call.address
        ? "owner"
        : record.sharedTo.includes(call.address)
          ? "shared"
          : isDelegate(call, record)
            ? "delegated"
            : (await conditionsGrant(record, { caller: call.address, dynamicData }, context.conditions))
              ? "conditions"
              : undefined
    if (right === undefined) return accessDenied()
    call.node.released.push({ cid: record.cid, to: call.address, right, at: context.now() })
    return reply({ message: "success", payload: { ...record.shard } })
  }

export const shardRoutes = (context: KeyNodeContext): Array<HttpHandler> => [
  on(context.host, Routes.keyNodes.saveShard, nodeRoute(context, saveShard)),
  on(context.host, Routes.keyNodes.share, nodeRoute(context, share)),
  on(context.host, Routes.keyNodes.revoke, nodeRoute(context, revoke)),
  on(context.host, Routes.keyNodes.transferOwnership, nodeRoute(context, transfer)),
  on(context.host, Routes.keyNodes.retrieveShard, nodeRoute(context, retrieve(context)))
]
