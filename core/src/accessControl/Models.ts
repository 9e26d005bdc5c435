/**
 * What the access-control operations take and give back, and how they fail.
 *
 * @since 0.1.0
 */

import * as Schema from "effect/Schema"
import type { SignInFailure } from "../auth/Models.ts"
import type { SignerTokens } from "../auth/Owner.ts"
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
import type { KeyNodes } from "../KeyNodes.ts"
import { Owner, owned } from "../schema/Owner.ts"
import { AnyObject, KeyShardInput } from "../schema/Shape.ts"

/**
 * Who changes a file's access: its owner (`{ signer }` or `{ address, token }`, see `Owner`) and
 * the file.
 */
const file = { cid: Schema.String }

const conditionFields = {
  ...file,
  /** EVM, Solana, Coreum or Radix conditions; validated before any request. */
  conditions: Schema.Array(AnyObject),
  /** Required with more than one condition, e.g. `([1] and [2]) or [3]`. */
  aggregator: Schema.optional(Schema.String),
  /** `EVM` (default), `SOLANA`, `COREUM` or `RADIX`, any case. */
  chainType: Schema.optional(Schema.String)
}

/**
 * `apply` / `update`.
 *
 * @category schemas
 */
export const ApplyInput = owned({
  ...conditionFields,
  /** `ADDRESS` (default) or `ACCESS_CONDITIONS`, any case. Sent only when creating. */
  decryptionType: Schema.optional(Schema.String),
  /** 5 shards to create the conditions (POST); none to update them (PUT). */
  keyShards: Schema.optional(Schema.Array(KeyShardInput))
})
/** @category models */
export type ApplyInput = typeof ApplyInput.Type

/**
 * `update`: `apply` without shards.
 *
 * @category schemas
 */
export const UpdateInput = owned(conditionFields)
/** @category models */
export type UpdateInput = typeof UpdateInput.Type

/**
 * `share`.
 *
 * @category schemas
 */
export const ShareInput = owned({
  ...file,
  /** Addresses that may recover the key from now on. */
  shareTo: Schema.Array(Schema.String)
})
/** @category models */
export type ShareInput = typeof ShareInput.Type

/**
 * `revoke`.
 *
 * @category schemas
 */
export const RevokeInput = owned({
  ...file,
  /** Addresses that may no longer recover the key. */
  revokeTo: Schema.Union([Schema.String, Schema.Array(Schema.String)])
})
/** @category models */
export type RevokeInput = typeof RevokeInput.Type

/**
 * `transferOwnership`.
 *
 * @category schemas
 */
export const TransferInput = owned({
  ...file,
  newOwner: Schema.String,
  /** Clear the sharing list on transfer. @default true */
  resetSharedTo: Schema.optional(Schema.Boolean)
})
/** @category models */
export type TransferInput = typeof TransferInput.Type

/**
 * What the operations need: the key nodes, and `Auth` to sign in an owner given as `{ signer }`.
 *
 * @internal
 */
export interface AccessControlDeps {
  readonly nodes: KeyNodes["Service"]
  readonly auth: SignerTokens
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

/** Failures of `apply` (signing in included, when a signer is given). */
export type ApplyFailure =
  | ConditionValidationError
  | InvalidKeyShards
  | InvalidCid
  | InvalidPublicKey
  | NodeRefusal
  | SignInFailure

/** Failures of `share`, `revoke` and `transferOwnership` (signing in included, when a signer is given). */
export type ChangeFailure = InvalidCid | InvalidPublicKey | NodeRefusal | SignInFailure

/**
 * `delegateAllFiles`: the owner (`{ signer }`, or `{ address, token }` with its JWT `jwt:…` or a
 * raw signature of the node message), and the addresses that may recover any of its keys
 * (replacing the owner's delegates; `[]` revokes every one).
 *
 * @category schemas
 */
export const DelegateInput = owned({ delegates: Schema.Array(Schema.String) })
/** @category models */
export type DelegateInput = typeof DelegateInput.Type

/**
 * `revokeDelegates`: the owner.
 *
 * @category schemas
 */
export const RevokeDelegatesInput = Owner
/** @category models */
export type RevokeDelegatesInput = typeof RevokeDelegatesInput.Type

/** Failures of a delegation change: a bad address, a node's refusal, nodes that disagree, signing in. */
export type DelegationFailure = InvalidPublicKey | NodeError | NodesDisagree | SignInFailure
