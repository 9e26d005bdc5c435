/**
 * What one key node holds. Each of the 5 nodes has its own copy: a write that stops at node 3
 * leaves nodes 1–2 changed and 4–5 untouched, exactly as on the provider.
 *
 * Records are keyed by CID. Addresses are stored in the normalized form (`normalizeAddress`).
 *
 * @since 0.1.0
 */
import type { AccessCondition } from "lighthouse-effect"

export type NodeId = 1 | 2 | 3 | 4 | 5

export const nodeIds: ReadonlyArray<NodeId> = [1, 2, 3, 4, 5]

/** Parses a path segment into a node id; anything but `1`…`5` is `undefined`. */
export const parseNodeId = (segment: unknown): NodeId | undefined =>
  typeof segment === "string" && /^[1-5]$/.test(segment) ? (Number(segment) as NodeId) : undefined

/** The owner of files created with `decryptionType: ACCESS_CONDITIONS` (provider README warning). */
export const zeroAddress = "0x0000000000000000000000000000000000000000"

export interface KeyShard {
  readonly key: string
  readonly index: string
}

export type ChainType = "EVM" | "SOLANA" | "COREUM" | "RADIX"

export type DecryptionType = "ADDRESS" | "ACCESS_CONDITIONS"

export interface FileRecord {
  readonly cid: string
  owner: string
  /** This node's shard of the file key. */
  shard: KeyShard
  sharedTo: Array<string>
  /** EVM, Coreum and Radix conditions. */
  conditions: ReadonlyArray<AccessCondition.Condition>
  /** Solana conditions (the provider keeps them apart). */
  conditionsSolana: ReadonlyArray<AccessCondition.Condition>
  /** `""` when none was given. */
  aggregator: string
  chainType: ChainType
  decryptionType: DecryptionType
}

/** One shard handed out: who got it, for which CID, and by which right. */
export interface Release {
  readonly cid: string
  readonly to: string
  readonly right: "owner" | "shared" | "delegated" | "conditions"
  /** Milliseconds on the network's clock. */
  readonly at: number
}

export interface NodeState {
  readonly id: NodeId
  readonly files: Map<string, FileRecord>
  /** `address:nonce` of every raw-signature message already used at this node. */
  readonly spentNonces: Set<string>
  /** Every shard this node released, in order: the audit trail the security tests read. */
  readonly released: Array<Release>
  /** Per owner, the addresses that may recover the key of any of the owner's files (in memory only). */
  readonly delegates: Map<string, ReadonlyArray<string>>
}

export const makeNodeState = (id: NodeId): NodeState => ({
  id,
  files: new Map(),
  spentNonces: new Set(),
  released: [],
  delegates: new Map()
})

export const clearNodeState = (node: NodeState): void => {
  node.files.clear()
  node.spentNonces.clear()
  node.released.length = 0
  node.delegates.clear()
}
