/**
 * Account delegation: an owner lets other addresses recover the key of every file it owns, on the
 * 5 key nodes (`POST /api/setAllFilesAccess/{1..5}` with `{ address, allFilesAccess }` and the
 * owner's token). Each call replaces the owner's list of delegates; an empty list revokes them
 * all. A delegate then recovers a file's key with its own token, naming the owner
 * (`KeyShards.fetchKey({ …, ownerAddress })`).
 *
 * Like share and revoke, the call stops at the first node that fails (the error names the nodes
 * already changed), and the 5 answers must be identical and `success`.
 *
 * The provider's SDKs have no call for this route; see docs/PROTOCOL.md#account-delegation.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { addressOf, resolveOwner } from "../auth/Owner.ts"
import { callOf, Routes } from "../routes/Routes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { AccessControlDeps, DelegateInput, RevokeDelegatesInput } from "./Models.ts"

/** Sets the owner's delegates on the 5 nodes (the delegates' addresses checked first). */
export const delegateAllFiles = Effect.fn("AccessControl.delegateAllFiles")(function* (
  deps: AccessControlDeps,
  input: DelegateInput
) {
  const owner = yield* parsePublicKey(addressOf(input))
  const delegates = yield* Effect.forEach(input.delegates, parsePublicKey)
  yield* Effect.annotateCurrentSpan({ owner, count: delegates.length })
  const { token } = yield* resolveOwner(deps.auth, input)
  return yield* deps.nodes.fanOut({
    operation: "setAllFilesAccess",
    request: (nodeId) => ({
      ...callOf(Routes.keyNodes.delegateAllFiles, { node: nodeId }),
      body: { address: owner, allFilesAccess: delegates },
      token
    }),
    onError: "stop",
    agreement: "identical",
    requireSuccess: true
  })
})

/** Revokes every delegate of the owner (an empty list on the 5 nodes). */
export const revokeDelegates = (deps: AccessControlDeps, input: RevokeDelegatesInput) =>
  delegateAllFiles(deps, { ...input, delegates: [] })
