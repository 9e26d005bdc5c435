/**
 * Who holds the right to a file's key: `share`, `revoke` and `transferOwnership`, each stopping
 * at the first node that fails (the error names the nodes already changed). Everything is
 * checked before a signer owner signs in.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { addressOf, resolveOwner } from "../auth/Owner.ts"
import { callOf, Routes } from "../routes/Routes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import { parseCid } from "../schema/Cid.ts"
import type { Owner } from "../schema/Owner.ts"
import type { AccessControlDeps, RevokeInput, ShareInput, TransferInput } from "./Models.ts"
import { fanOutRefined } from "./Refusal.ts"

/** One change of a file's key holders on the 5 nodes. */
interface ChangeRequest {
  /** The span's and the fan-out's name. */
  readonly operation: string
  readonly owner: Owner
  readonly cid: string
  /** Addresses the change is about (shared with, revoked, the new owner): checked first. */
  readonly others: ReadonlyArray<string>
  /** The per-node route. */
  readonly route:
    | typeof Routes.keyNodes.share
    | typeof Routes.keyNodes.revoke
    | typeof Routes.keyNodes.transferOwnership
  /** The body sent to every node, from the checked owner, CID and addresses. */
  readonly body: (checked: {
    readonly owner: string
    readonly cid: string
    readonly list: ReadonlyArray<string>
  }) => unknown
  readonly agreement: "identical" | "identical-ignoring-data"
}

/** Checks the CID, the owner and the other addresses, signs the owner in, then changes every node. */
const change = Effect.fnUntraced(function* (deps: AccessControlDeps, request: ChangeRequest) {
  const cid = yield* parseCid(request.cid)
  const owner = yield* parsePublicKey(addressOf(request.owner))
  const list = yield* Effect.forEach(request.others, parsePublicKey)
  yield* Effect.annotateCurrentSpan({ cid, count: list.length })
  const { token } = yield* resolveOwner(deps.auth, request.owner)
  const { route } = request
  const body = request.body({ owner, cid, list })
  return yield* fanOutRefined(deps.nodes, cid, {
    operation: request.operation,
    request: (nodeId) => ({ ...callOf(route, { node: nodeId }), body, token }),
    onError: "stop",
    agreement: request.agreement,
    requireSuccess: true
  })
})

export const share = Effect.fn("AccessControl.share")(function* (deps: AccessControlDeps, input: ShareInput) {
  return yield* change(deps, {
    operation: "shareToAddress",
    owner: input,
    cid: input.cid,
    others: input.shareTo,
    route: Routes.keyNodes.share,
    body: ({ owner, cid, list }) => ({ address: owner, cid, shareTo: list }),
    agreement: "identical-ignoring-data"
  })
})

export const revoke = Effect.fn("AccessControl.revoke")(function* (deps: AccessControlDeps, input: RevokeInput) {
  // Unlike the provider, the nodes' `message` must be `success` here too.
  return yield* change(deps, {
    operation: "revokeAccess",
    owner: input,
    cid: input.cid,
    others: typeof input.revokeTo === "string" ? [input.revokeTo] : input.revokeTo,
    route: Routes.keyNodes.revoke,
    body: ({ owner, cid, list }) => ({ address: owner, cid, revokeTo: list }),
    agreement: "identical-ignoring-data"
  })
})

export const transferOwnership = Effect.fn("AccessControl.transferOwnership")(function* (
  deps: AccessControlDeps,
  input: TransferInput
) {
  return yield* change(deps, {
    operation: "transferOwnership",
    owner: input,
    cid: input.cid,
    others: [input.newOwner],
    route: Routes.keyNodes.transferOwnership,
    body: ({ owner, cid, list }) => ({
      address: owner,
      cid,
      newOwner: list[0],
      resetSharedTo: input.resetSharedTo ?? true
    }),
    agreement: "identical"
  })
})
