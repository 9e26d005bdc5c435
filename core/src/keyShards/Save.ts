/**
 * Saving a file's shards: shard i goes to node i (`POST /api/setSharedKey/{1..5}`), stopping at
 * the first node that fails; a failure is `Error encrypting file` whose cause names the failing
 * node and the nodes that already hold their shard.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { addressOf, resolveOwner } from "../auth/Owner.ts"
import { EncryptionFailed, InvalidKeyShards } from "../Errors.ts"
import { callOf, Routes } from "../routes/Routes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import { parseCid } from "../schema/Cid.ts"
import type { KeyShardsDeps, SaveInput } from "./Models.ts"

export const save = Effect.fn("KeyShards.save")(function* (deps: KeyShardsDeps, input: SaveInput) {
  // The provider's order: CID first, then the shard count.
  const cid = yield* parseCid(input.cid)
  const keyShards: ReadonlyArray<unknown> = input.keyShards
  if (!Array.isArray(keyShards) || keyShards.length !== 5 || keyShards.some((s) => typeof s !== "object" || s === null))
    return yield* new InvalidKeyShards({ count: Array.isArray(keyShards) ? keyShards.length : -1 })
  const address = yield* parsePublicKey(addressOf(input))
  const shareTo = yield* Effect.forEach(input.shareTo ?? [], parsePublicKey)
  yield* Effect.annotateCurrentSpan({ cid, address })
  const { token } = yield* resolveOwner(deps.auth, input)
  return yield* deps.nodes
    .fanOut({
      operation: "saveShards",
      request: (nodeId) => ({
        ...callOf(Routes.keyNodes.saveShard, { node: nodeId }),
        body: {
          address,
          cid,
          payload: input.keyShards[nodeId - 1],
          ...(shareTo.length > 0 ? { sharedTo: shareTo } : {})
        },
        token
      }),
      onError: "stop",
      agreement: "identical-ignoring-data",
      requireSuccess: true
    })
    .pipe(
      // The cause keeps which node failed (`nodeId`) and which already hold a shard (`succeededNodes`).
      Effect.mapError((cause) => new EncryptionFailed({ cause }))
    )
})
