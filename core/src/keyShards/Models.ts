/**
 * What saving and recovering key shards take and give, and how they fail.
 *
 * @since 0.1.0
 */
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
import type { Credential } from "../schema/Credential.ts"
import type { KeyShard } from "../schema/KeyShard.ts"

/** `save`: the shards of a freshly encrypted file. */
export interface SaveInput {
  /** The CID the upload returned (`Hash`). */
  readonly cid: string
  /** The owner: EVM address (any case) or 44-character base58 key. */
  readonly address: string
  /** JWT (`jwt:…`) or a raw signature of the node message. */
  readonly token: Credential
  /** Exactly 5 shards; shard i goes to node i + 1. */
  readonly keyShards: ReadonlyArray<KeyShard>
  /** Addresses that may also recover the key (sent as `sharedTo`, only when non-empty). */
  readonly shareTo?: ReadonlyArray<string> | undefined
}

/** `recover`: who asks for which file's shards. */
export interface RecoverInput {
  readonly cid: string
  readonly address: string
  readonly token: Credential
  /** Values the nodes substitute into access conditions (e.g. `:userAddress`). @default {} */
  readonly dynamicData?: Readonly<Record<string, unknown>> | undefined
  /** How many distinct nodes to read from (1–5). @default 3 */
  readonly count?: number | undefined
}

/** `fetchKey`: as `recover`, always reading the threshold of 3 shards. */
export interface FetchKeyInput {
  readonly cid: string
  readonly address: string
  readonly token: Credential
  readonly dynamicData?: Readonly<Record<string, unknown>> | undefined
}

/** The shards `recover` got, and from which nodes (ascending). */
export interface RecoveredShards {
  readonly shards: ReadonlyArray<KeyShard>
  readonly nodes: ReadonlyArray<number>
}

/** Failures of `save`. */
export type SaveFailure = InvalidCid | InvalidKeyShards | InvalidPublicKey | EncryptionFailed

/** Failures of `recover`: bad input, no such file, not entitled, a node's refusal, too many nodes down. */
export type RecoverFailure =
  | InvalidCid
  | InvalidPublicKey
  | InvalidKeySplit
  | CidNotFound
  | AccessDenied
  | NodeError
  | KeyNodesUnavailable

/** Failures of `fetchKey`: those of `recover`, and shards that do not give a key (`can't recover Key`). */
export type FetchKeyFailure = RecoverFailure | CannotRecoverKey
