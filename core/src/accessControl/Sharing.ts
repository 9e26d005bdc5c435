/**
 * Who holds the right to a file's key: `share`, `revoke` and `transferOwnership`, each stopping
 * at the first node that fails (the error names the nodes already changed).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Token } from "../internal/http.ts"
import type { KeyNodes } from "../KeyNodes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import { parseCid } from "../schema/Cid.ts"
import type { RevokeInput, ShareInput, TransferInput } from "./Models.ts"
import { fanOutRefined } from "./Refusal.ts"

/** The owner, the CID and a list of addresses, checked before any request. */
const checkChange = Effect.fnUntraced(function* (address: string, cidInput: string, others: ReadonlyArray<string>) {
  const cid = yield* parseCid(cidInput)
  const owner = yield* parsePublicKey(address)
  const list = yield* Effect.forEach(others, parsePublicKey)
  return { cid, owner, list }
})

const change = (
  nodes: KeyNodes["Service"],
  operation: string,
  cid: string,
  method: "POST" | "PUT" | "DELETE",
  route: string,
  token: Token,
  body: unknown,
  agreement: "identical" | "identical-ignoring-data"
) =>
  fanOutRefined(nodes, cid, {
    operation,
    request: (nodeId) => ({ method, path: `${route}/${nodeId}`, body, token }),
    onError: "stop",
    agreement,
    requireSuccess: true
  })

export const share = Effect.fn("AccessControl.share")(function* (nodes: KeyNodes["Service"], input: ShareInput) {
  const { cid, owner, list } = yield* checkChange(input.address, input.cid, input.shareTo)
  yield* Effect.annotateCurrentSpan({ cid, count: list.length })
  return yield* change(
    nodes,
    "shareToAddress",
    cid,
    "PUT",
    "/api/setSharedKey",
    input.token,
    { address: owner, cid, shareTo: list },
    "identical-ignoring-data"
  )
})

export const revoke = Effect.fn("AccessControl.revoke")(function* (nodes: KeyNodes["Service"], input: RevokeInput) {
  const revokeTo = typeof input.revokeTo === "string" ? [input.revokeTo] : input.revokeTo
  const { cid, owner, list } = yield* checkChange(input.address, input.cid, revokeTo)
  yield* Effect.annotateCurrentSpan({ cid, count: list.length })
  // Unlike the provider, the nodes' `message` must be `success` here too.
  return yield* change(
    nodes,
    "revokeAccess",
    cid,
    "DELETE",
    "/api/setSharedKey",
    input.token,
    { address: owner, cid, revokeTo: list },
    "identical-ignoring-data"
  )
})

export const transferOwnership = Effect.fn("AccessControl.transferOwnership")(function* (
  nodes: KeyNodes["Service"],
  input: TransferInput
) {
  const { cid, owner, list } = yield* checkChange(input.address, input.cid, [input.newOwner])
  yield* Effect.annotateCurrentSpan({ cid })
  return yield* change(
    nodes,
    "transferOwnership",
    cid,
    "POST",
    "/api/transferOwnership",
    input.token,
    { address: owner, cid, newOwner: list[0], resetSharedTo: input.resetSharedTo ?? true },
    "identical"
  )
})
