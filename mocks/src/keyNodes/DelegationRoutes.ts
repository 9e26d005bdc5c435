/**
 * Account delegation, per node (`{n}` = 1…5):
 *
 * `POST /api/setAllFilesAccess/{n}` `{ address, allFilesAccess: [addresses] }`, with the owner's
 * token, replaces the list of delegates of `address` on this node: each may then recover the key
 * of any file `address` owns, by naming it as `ownerAddress` in `retrieveSharedKey` (see
 * `ShardRoutes.ts`). An empty list revokes every delegate. Answer `{ message: "success", data:
 * { address, allFilesAccess } }`, the same on every node; `400 "allFilesAccess must be a list of
 * addresses"` for anything else (one bad address included).
 *
 * The token must prove `address` (checked by `admit`), so only the owner sets its delegates.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { on } from "../http/Routes.ts"
import { normalizeAddress } from "./Auth.ts"
import { type KeyNodeContext, type NodeCall, nodeRoute, parseAddressList, type Step } from "./Context.ts"
import type { FileRecord } from "./NodeState.ts"
import { badRequest, success } from "./Replies.ts"

const setAllFilesAccess: Step = (call) => {
  const list = Array.isArray(call.body.allFilesAccess) ? parseAddressList(call.body.allFilesAccess) : undefined
  if (list === undefined) return badRequest("allFilesAccess must be a list of addresses")
  const delegates = list.filter((delegate) => delegate !== call.address)
  if (delegates.length === 0) call.node.delegates.delete(call.address)
  else call.node.delegates.set(call.address, delegates)
  return success({ address: call.address, allFilesAccess: delegates })
}

/** Whether the caller asks as a delegate of the record's owner (named in `ownerAddress`) and is one on this node. */
export const isDelegate = (call: NodeCall, record: FileRecord): boolean => {
  const owner = normalizeAddress(call.body.ownerAddress)
  return owner !== undefined && owner === record.owner && (call.node.delegates.get(owner) ?? []).includes(call.address)
}

export const delegationRoutes = (context: KeyNodeContext): Array<HttpHandler> => [
  on(context.host, Routes.keyNodes.delegateAllFiles, nodeRoute(context, setAllFilesAccess))
]
