/**
 * A file's access conditions: `apply` creates them with 5 shards (`POST
 * /api/fileAccessConditions/{1..5}`, shard i to node i) or updates them without (`PUT`), after
 * validating the whole request, calling every node and requiring every `message` to be
 * `success`; `get` reads them with the owner and sharing list.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { addressOf, resolveOwner } from "../auth/Owner.ts"
import { InvalidResponse } from "../Errors.ts"
import type { KeyNodes } from "../KeyNodes.ts"
import { callOf, pathOf, Routes } from "../routes/Routes.ts"
import { validateConditionRequest } from "../schema/AccessCondition.ts"
import { parseCid } from "../schema/Cid.ts"
import type { AccessControlDeps, ApplyInput, UpdateInput } from "./Models.ts"
import { fanOutRefined, refine } from "./Refusal.ts"

export const AccessConditionsResponse = Schema.Struct({
  cid: Schema.String,
  owner: Schema.String,
  sharedTo: Schema.Array(Schema.String),
  conditions: Schema.Array(Schema.Unknown),
  conditionsSolana: Schema.Array(Schema.Unknown),
  aggregator: Schema.String,
  chainType: Schema.optionalKey(Schema.String),
  decryptionType: Schema.optionalKey(Schema.String)
})

export const apply = Effect.fn("AccessControl.apply")(function* (deps: AccessControlDeps, input: ApplyInput) {
  const creating = (input.keyShards?.length ?? 0) > 0
  // Shard count, CID, address and conditions are all checked before anything is sent or signed.
  const valid = yield* validateConditionRequest({ ...input, address: addressOf(input) }, { creating })
  const { token } = yield* resolveOwner(deps.auth, input)
  const common = {
    address: valid.address,
    cid: valid.cid,
    conditions: valid.conditions,
    aggregator: valid.aggregator,
    chainType: valid.chainType
  }
  yield* Effect.annotateCurrentSpan({ cid: valid.cid, creating, chainType: valid.chainType })
  return yield* fanOutRefined(deps.nodes, valid.cid, {
    operation: creating ? "accessControl" : "updateAccessControl",
    request: (nodeId) => ({
      ...callOf(creating ? Routes.keyNodes.createConditions : Routes.keyNodes.updateConditions, { node: nodeId }),
      body: creating
        ? { ...common, decryptionType: valid.decryptionType, payload: valid.keyShards[nodeId - 1] }
        : common,
      token
    }),
    // Every node is asked, so the result shows which ones hold the new conditions.
    onError: "continue",
    agreement: "message",
    requireSuccess: true
  })
})

export const update = Effect.fn("AccessControl.update")(function* (deps: AccessControlDeps, input: UpdateInput) {
  return yield* apply(deps, { ...input, keyShards: [] })
})

export const get = Effect.fn("AccessControl.get")(function* (nodes: KeyNodes["Service"], cidInput: string) {
  const cid = yield* parseCid(cidInput)
  const path = pathOf(Routes.keyNodes.getConditions, { cid: `${cid}` })
  // The provider serves this from its first node.
  const answer = yield* nodes.call(1, { method: Routes.keyNodes.getConditions.method, path }).pipe(
    Effect.mapError((e) => {
      const refined = refine(cid)(e)
      return refined._tag === "CidNotFound" ? refined : e
    })
  )
  return yield* Schema.decodeUnknownEffect(AccessConditionsResponse)(answer).pipe(
    Effect.mapError((e) => new InvalidResponse({ url: nodes.urlOf(path), detail: e.message }))
  )
})
