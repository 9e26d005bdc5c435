/**
 * What the access-control operations take and give back, and how they fail.
 *
 * @since 0.1.0
 */
import type {
  AccessDenied,
  CidNotFound,
  ConditionValidationError,
  InvalidCid,
  InvalidKeyShards,
  InvalidPublicKey,
  NodeError,
  NodesDisagree
} from "../Errors.ts"
import type { Credential } from "../schema/Credential.ts"
import type { KeyShard } from "../schema/KeyShard.ts"

/** `apply` / `update`. */
export interface ApplyInput {
  /** The owner: EVM address (any case) or 44-character base58 key. */
  readonly address: string
  readonly cid: string
  readonly token: Credential
  /** EVM, Solana, Coreum or Radix conditions; validated before any request. */
  readonly conditions: ReadonlyArray<unknown>
  /** Required with more than one condition, e.g. `([1] and [2]) or [3]`. */
  readonly aggregator?: string | undefined
  /** `EVM` (default), `SOLANA`, `COREUM` or `RADIX`, any case. */
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
  readonly token: Credential
  /** Addresses that may recover the key from now on. */
  readonly shareTo: ReadonlyArray<string>
}

/** `revoke`. */
export interface RevokeInput {
  readonly address: string
  readonly cid: string
  readonly token: Credential
  /** Addresses that may no longer recover the key. */
  readonly revokeTo: string | ReadonlyArray<string>
}

/** `transferOwnership`. */
export interface TransferInput {
  readonly address: string
  readonly cid: string
  readonly token: Credential
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

/**
 * What a refusal by the nodes becomes: `Access Denied` (not the owner) and `cid not found` (no
 * record) when no node had accepted the change yet; otherwise the `NodeError`, whose
 * `succeededNodes` shows the partial write.
 */
export type NodeRefusal = AccessDenied | CidNotFound | NodeError | NodesDisagree

/** Failures of `apply`. */
export type ApplyFailure = ConditionValidationError | InvalidKeyShards | InvalidCid | InvalidPublicKey | NodeRefusal

/** Failures of `share`, `revoke` and `transferOwnership`. */
export type ChangeFailure = InvalidCid | InvalidPublicKey | NodeRefusal
