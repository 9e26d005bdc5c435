/**
 * What saving and recovering key shards take and give, and how they fail.
 *
 * @since 0.1.0
 */

import * as Schema from "effect/Schema"
import type { SignInFailure } from "../auth/Models.ts"
import type { SignerTokens } from "../auth/Owner.ts"
import type {
  AccessDenied,
  CannotRecoverKey,
  CidNotFound,
  EncryptionFailed,
  InvalidCid,
  InvalidKeyShards,
  InvalidKeySplit,
  InvalidPublicKey,
  KeyNodesUnavailable,
  NodeError
} from "../Errors.ts"
import type { KeyNodes } from "../KeyNodes.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import type { KeyShard } from "../schema/KeyShard.ts"
import { owned } from "../schema/Owner.ts"
import { Fields, KeyShardInput } from "../schema/Shape.ts"

/**
 * `save`: the shards of a freshly encrypted file, and its owner (`{ signer }` or
 * `{ address, token }`, see `Owner`).
 *
 * @category schemas
 */
export const SaveInput = owned({
  /** The CID the upload returned (`Hash`). */
  cid: Schema.String,
  /** Exactly 5 shards; shard i goes to node i + 1. */
  keyShards: Schema.Array(KeyShardInput),
  /** Addresses that may also recover the key (sent as `sharedTo`, only when non-empty). */
  shareTo: Schema.optional(Schema.Array(Schema.String))
})
/** @category models */
export type SaveInput = typeof SaveInput.Type

/**
 * `recover`: who asks (`{ signer }` or `{ address, token }`) for which file's shards.
 *
 * @category schemas
 */
export const RecoverInput = owned({
  cid: Schema.String,
  /** Values the nodes substitute into access conditions (e.g. `:userAddress`). @default {} */
  dynamicData: Schema.optional(Fields),
  /** How many distinct nodes to read from (1–5). @default 3 */
  count: Schema.optional(Schema.Number),
  /** The file's owner, when asking as one of its delegates (account delegation). */
  ownerAddress: Schema.optional(Schema.String)
})
/** @category models */
export type RecoverInput = typeof RecoverInput.Type

/**
 * `fetchKey`: as `recover`, always reading the threshold of 3 shards.
 *
 * @category schemas
 */
export const FetchKeyInput = owned({
  cid: Schema.String,
  dynamicData: Schema.optional(Fields),
  /** The file's owner, when asking as one of its delegates (account delegation). */
  ownerAddress: Schema.optional(Schema.String)
})
/** @category models */
export type FetchKeyInput = typeof FetchKeyInput.Type

/**
 * What saving and recovering need: the key nodes, how to walk them, and `Auth` to sign in an
 * owner given as `{ signer }`.
 *
 * @internal
 */
export interface KeyShardsDeps {
  readonly nodes: KeyNodes["Service"]
  readonly policy: LighthouseConfig.NodePolicy
  readonly auth: SignerTokens
}

/** The shards `recover` got, and from which nodes (ascending). */
export interface RecoveredShards {
  readonly shards: ReadonlyArray<KeyShard>
  readonly nodes: ReadonlyArray<number>
}

/** Failures of `save`. */
export type SaveFailure = InvalidCid | InvalidKeyShards | InvalidPublicKey | EncryptionFailed | SignInFailure

/**
 * Failures of `recover`: bad input, no such file, not entitled, a node's refusal, too many nodes
 * down, signing in.
 */
export type RecoverFailure =
  | SignInFailure
  | InvalidCid
  | InvalidPublicKey
  | InvalidKeySplit
  | CidNotFound
  | AccessDenied
  | NodeError
  | KeyNodesUnavailable

/** Failures of `fetchKey`: those of `recover`, and shards that do not give a key (`can't recover Key`). */
export type FetchKeyFailure = RecoverFailure | CannotRecoverKey
