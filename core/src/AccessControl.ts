/**
 * `AccessControl`: who may recover a file's key, set by its owner on the 5 key nodes.
 *
 * - `apply` sets access conditions: with 5 shards it creates them (`POST
 *   /api/fileAccessConditions/{1..5}`, shard i to node i), without shards it updates them (`PUT`).
 *   The request is validated before anything is sent; every node is called and their `message`s
 *   must all be `success`.
 * - `get` reads a file's conditions, owner and sharing list.
 * - `share`, `revoke` and `transferOwnership` change who holds the right, stopping at the first
 *   node that fails (the error names the nodes already changed).
 * - `delegateAllFiles` / `revokeDelegates` set which addresses may recover the key of every file
 *   of the owner (account delegation), in the same way.
 *
 * The work lives in `accessControl/`: `Conditions.ts`, `Sharing.ts`, `Delegation.ts`, `Refusal.ts`,
 * `Models.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Auth } from "./Auth.ts"
import * as Conditions from "./accessControl/Conditions.ts"
import * as Delegation from "./accessControl/Delegation.ts"
import type {
  AccessConditions,
  ApplyFailure,
  ApplyInput,
  ChangeFailure,
  DelegateInput,
  DelegationFailure,
  RevokeDelegatesInput,
  RevokeInput,
  ShareInput,
  TransferInput,
  UpdateInput
} from "./accessControl/Models.ts"
import * as Sharing from "./accessControl/Sharing.ts"
import type { CidNotFound, InvalidCid, InvalidResponse, NodeError } from "./Errors.ts"
import { type FanOutResult, KeyNodes } from "./KeyNodes.ts"

export * from "./accessControl/Models.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `AccessControl` service offers.
 *
 * @category models
 */
export interface Service {
  /** Creates (5 shards, POST) or updates (no shards, PUT) a file's access conditions on all 5 nodes. */
  readonly apply: (input: ApplyInput) => Effect.Effect<FanOutResult, ApplyFailure>
  /** Updates a file's access conditions (PUT on all 5 nodes). */
  readonly update: (input: UpdateInput) => Effect.Effect<FanOutResult, ApplyFailure>
  /** Reads a file's access conditions (`GET /api/fileAccessConditions/get/{cid}`). */
  readonly get: (cid: string) => Effect.Effect<AccessConditions, InvalidCid | CidNotFound | NodeError | InvalidResponse>
  /** Shares the key with more addresses (`PUT /api/setSharedKey/{n}`). */
  readonly share: (input: ShareInput) => Effect.Effect<FanOutResult, ChangeFailure>
  /** Revokes addresses' access (`DELETE /api/setSharedKey/{n}` with a JSON body). */
  readonly revoke: (input: RevokeInput) => Effect.Effect<FanOutResult, ChangeFailure>
  /** Makes `newOwner` the file's owner (`POST /api/transferOwnership/{n}`). */
  readonly transferOwnership: (input: TransferInput) => Effect.Effect<FanOutResult, ChangeFailure>
  /** Lets `delegates` recover the key of every file the owner has (`POST /api/setAllFilesAccess/{n}`); replaces the list. */
  readonly delegateAllFiles: (input: DelegateInput) => Effect.Effect<FanOutResult, DelegationFailure>
  /** Revokes every delegate of the owner. */
  readonly revokeDelegates: (input: RevokeDelegatesInput) => Effect.Effect<FanOutResult, DelegationFailure>
}

/**
 * Access rules of encrypted files on the 5 key nodes.
 *
 * @category services
 */
export class AccessControl extends Context.Service<AccessControl, Service>()("lighthouse-effect/AccessControl") {}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the service over the key nodes, and `Auth` to sign in owners given as `{ signer }`.
 *
 * @category constructors
 */
export const make: Effect.Effect<Service, never, KeyNodes | Auth> = Effect.gen(function* () {
  const deps = { nodes: yield* KeyNodes, auth: yield* Auth }
  return AccessControl.of({
    apply: (input) => Conditions.apply(deps, input),
    update: (input) => Conditions.update(deps, input),
    get: (cid) => Conditions.get(deps.nodes, cid),
    share: (input) => Sharing.share(deps, input),
    revoke: (input) => Sharing.revoke(deps, input),
    transferOwnership: (input) => Sharing.transferOwnership(deps, input),
    delegateAllFiles: (input) => Delegation.delegateAllFiles(deps, input),
    revokeDelegates: (input) => Delegation.revokeDelegates(deps, input)
  })
})

/**
 * The `AccessControl` service; needs the key nodes and `Auth`.
 *
 * @category layers
 */
export const layer: Layer.Layer<AccessControl, never, KeyNodes | Auth> = Layer.effect(AccessControl, make)
