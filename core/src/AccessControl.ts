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
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type {
  ConditionValidationError,
  InvalidCid,
  InvalidKeyShards,
  InvalidPublicKey,
  NodeError,
  NodesDisagree
} from "./Errors.ts"
import type { Token } from "./internal/http.ts"
import type { FanOutResult } from "./Nodes.ts"
import type { KeyShard } from "./schema/KeyShard.ts"

// =============================================================================
// Models
// =============================================================================

/** `apply` / `update`. */
export interface ApplyInput {
  /** The owner: EVM address (any case) or 44-character base58 key. */
  readonly address: string
  readonly cid: string
  readonly token: Token
  /** EVM, Solana or Coreum conditions (spec §5); validated before any request. */
  readonly conditions: ReadonlyArray<unknown>
  /** Required with more than one condition, e.g. `([1] and [2]) or [3]`. */
  readonly aggregator?: string | undefined
  /** `EVM` (default), `SOLANA` or `COREUM`, any case. */
  readonly chainType?: string | undefined
  /** `ADDRESS` (default) or `ACCESS_CONDITIONS`, any case. Sent only when creating. */
  readonly decryptionType?: string | undefined
  /** 5 shards to create the conditions (POST); none to update them (PUT). */
  readonly keyShards?: ReadonlyArray<KeyShard> | undefined
}

/** `update`: `apply` without shards. */
export type UpdateInput = Omit<ApplyInput, "keyShards" | "decryptionType">

/** `share`. */
export interface ShareInput {
  readonly address: string
  readonly cid: string
  readonly token: Token
  /** Addresses that may recover the key from now on. */
  readonly shareTo: ReadonlyArray<string>
}

/** `revoke`. */
export interface RevokeInput {
  readonly address: string
  readonly cid: string
  readonly token: Token
  /** Addresses that may no longer recover the key. */
  readonly revokeTo: string | ReadonlyArray<string>
}

/** `transferOwnership`. */
export interface TransferInput {
  readonly address: string
  readonly cid: string
  readonly token: Token
  readonly newOwner: string
  /** Clear the sharing list on transfer. @default true */
  readonly resetSharedTo?: boolean | undefined
}

/** What `get` returns: the node's record of a file's access rules. */
export interface AccessConditions {
  readonly cid: string
  readonly owner: string
  readonly sharedTo: ReadonlyArray<string>
  readonly conditions: ReadonlyArray<unknown>
  readonly conditionsSolana: ReadonlyArray<unknown>
  readonly aggregator: string
  readonly chainType?: string | undefined
  readonly decryptionType?: string | undefined
}

/** Failures of `apply`. */
export type ApplyFailure =
  | ConditionValidationError
  | InvalidKeyShards
  | InvalidCid
  | InvalidPublicKey
  | NodeError
  | NodesDisagree

/** Failures of `share`, `revoke` and `transferOwnership`. */
export type ChangeFailure = InvalidCid | InvalidPublicKey | NodeError | NodesDisagree

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** Creates (5 shards, POST) or updates (no shards, PUT) a file's access conditions on all 5 nodes. */
  readonly apply: (input: ApplyInput) => Effect.Effect<FanOutResult, ApplyFailure>
  /** Updates a file's access conditions (PUT on all 5 nodes). */
  readonly update: (input: UpdateInput) => Effect.Effect<FanOutResult, ApplyFailure>
  /** Reads a file's access conditions (`GET /api/fileAccessConditions/get/{cid}`). */
  readonly get: (cid: string) => Effect.Effect<AccessConditions, InvalidCid | NodeError>
  /** Shares the key with more addresses (`PUT /api/setSharedKey/{n}`). */
  readonly share: (input: ShareInput) => Effect.Effect<FanOutResult, ChangeFailure>
  /** Revokes addresses' access (`DELETE /api/setSharedKey/{n}` with a JSON body). */
  readonly revoke: (input: RevokeInput) => Effect.Effect<FanOutResult, ChangeFailure>
  /** Makes `newOwner` the file's owner (`POST /api/transferOwnership/{n}`). */
  readonly transferOwnership: (input: TransferInput) => Effect.Effect<FanOutResult, ChangeFailure>
}

/**
 * Access rules of encrypted files on the 5 key nodes.
 *
 * @category services
 */
export class AccessControl extends Context.Service<AccessControl, Service>()("lighthouse-effect/AccessControl") {}
