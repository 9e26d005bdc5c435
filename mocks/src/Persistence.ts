/**
 * The network's state in a state store: which registry goes to which table, how a network is put
 * back together from a store at start, and the mirror that writes each change through.
 *
 * Kept: accounts (quota and usage), API keys, the uploads list, IPNS keys with their last signed
 * record, IPNS records published from outside, deals (and the deal id counter), the Walrus blobs
 * behind each CID stored there, and for each of the 5 key nodes its file records (key shard,
 * owner, shares, access conditions), the nonces spent on it and the shards it released.
 * Not kept: sign-in messages and key-node JWTs (short-lived: clients sign in again), ticker prices
 * (options at start), faults.
 */
import type { Account, Accounts } from "./api/Accounts.ts"
import type { Deal, Deals } from "./api/Deals.ts"
import type { FileRecord, Files } from "./api/Files.ts"
import type { IpnsKey, IpnsKeys } from "./api/Ipns.ts"
import type { WalrusBlobs } from "./api/WalrusBlobs.ts"
import type { SignedRecord } from "./ipns/IpnsRecords.ts"
import type { PublishedRecords } from "./ipns/PublishedRecords.ts"
import type { KeyNodes, NodeId } from "./keyNodes/index.ts"
import type { Release, FileRecord as ShardRecord } from "./keyNodes/NodeState.ts"
import { type Mirror, type Mirrored, makeMirror } from "./storage/Mirror.ts"
import type { StateStore } from "./storage/State.ts"

/** The registries that are kept. */
export interface PersistedState {
  readonly accounts: Accounts
  readonly files: Files
  readonly ipns: IpnsKeys
  readonly deals: Deals
  readonly keyNodes: KeyNodes
  readonly walrus: WalrusBlobs
  readonly published: PublishedRecords
}

// Key-node rows are keyed `<node id>:<key>`, one table per kind for the 5 nodes together.
const nodeKey = (node: NodeId, key: string) => `${node}:${key}`
const splitNodeKey = (key: string): readonly [number, string] => {
  const at = key.indexOf(":")
  return [Number(key.slice(0, at)), key.slice(at + 1)]
}

const registries = (state: PersistedState): ReadonlyArray<Mirrored> => [
  { table: "accounts", rows: () => state.accounts.records() },
  { table: "api_keys", rows: () => state.accounts.apiKeyRecords() },
  { table: "files", rows: () => state.files.records() },
  { table: "ipns_keys", rows: () => state.ipns.records() },
  { table: "deals", rows: () => state.deals.records() },
  { table: "meta", rows: () => [["nextDealId", state.deals.nextDealId]] },
  { table: "walrus_blobs", rows: () => state.walrus.records() },
  { table: "ipns_records", rows: () => state.published.records() },
  {
    table: "key_shards",
    rows: () =>
      state.keyNodes.nodes.flatMap((node) => [...node.files].map(([cid, r]) => [nodeKey(node.id, cid), r] as const))
  },
  {
    table: "spent_nonces",
    rows: () =>
      state.keyNodes.nodes.flatMap((node) => [...node.spentNonces].map((n) => [nodeKey(node.id, n), true] as const))
  },
  {
    table: "releases",
    rows: () =>
      state.keyNodes.nodes.flatMap((node) =>
        node.released.map((release, i) => [nodeKey(node.id, String(i).padStart(9, "0")), release] as const)
      )
  }
]

/** Fills empty registries with what `store` holds. */
export const restoreState = (store: StateStore, state: PersistedState): void => {
  state.accounts.restore(
    store.rows("accounts").map((row) => row.value as Omit<Account, "apiKeys">),
    store.rows("api_keys").map((row) => [row.key, row.value as string] as const)
  )
  state.files.restore(store.rows("files").map((row) => row.value as FileRecord))
  state.ipns.restore(store.rows("ipns_keys").map((row) => row.value as IpnsKey))
  state.deals.restore(
    store.rows("deals").map((row) => [row.key, row.value as ReadonlyArray<Deal>] as const),
    (store.get("meta", "nextDealId") as number | undefined) ?? 0
  )
  state.walrus.restore(store.rows("walrus_blobs").map((row) => [row.key, row.value as ReadonlyArray<string>] as const))
  state.published.restore(store.rows("ipns_records").map((row) => [row.key, row.value as SignedRecord] as const))
  const nodeOf = (id: number) => state.keyNodes.nodes.find((node) => node.id === id)
  for (const row of store.rows("key_shards")) {
    const [id, cid] = splitNodeKey(row.key)
    nodeOf(id)?.files.set(cid, row.value as ShardRecord)
  }
  for (const row of store.rows("spent_nonces")) {
    const [id, nonce] = splitNodeKey(row.key)
    nodeOf(id)?.spentNonces.add(nonce)
  }
  for (const row of store.rows("releases")) nodeOf(splitNodeKey(row.key)[0])?.released.push(row.value as Release)
}

/** The mirror writing `state` through to `store`. */
export const stateMirror = (store: StateStore, state: PersistedState): Mirror => makeMirror(store, registries(state))
