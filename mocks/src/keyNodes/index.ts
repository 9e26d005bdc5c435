/**
 * The 5 key nodes of the encryption host (`https://encryption.lighthouse.storage` by default),
 * as msw handlers over in-memory state: each node its own records, the host one set of auth
 * messages and refresh tokens, conditions evaluated against a real EVM chain (through viem) and
 * in-memory Solana / Coreum / Radix ledgers.
 *
 * ```ts
 * const keyNodes = makeKeyNodes({ chain: publicClient, faults })
 * const server = setupServer(...keyNodes.handlers)
 * keyNodes.ledger.solana.setBalance(pubkey, 5_000_000_000n)
 * keyNodes.nodes[2].files.get(cid)?.shard   // node 3's shard
 * ```
 *
 * Wire details, per route, are in `AuthRoutes.ts`, `ShardRoutes.ts`, `ConditionRoutes.ts`,
 * `DelegationRoutes.ts` and `Replies.ts`; authentication rules in `Auth.ts`.
 *
 * @since 0.1.0
 */
import type { HttpHandler } from "msw"
import type { Faults } from "../faults/index.ts"
import type { RouteErrorLog } from "../http/Guard.ts"
import { unmatched } from "../http/Routes.ts"
import { type AuthState, makeAuth } from "./Auth.ts"
import { authRoutes } from "./AuthRoutes.ts"
import { conditionRoutes } from "./ConditionRoutes.ts"
import type { KeyNodeContext } from "./Context.ts"
import { delegationRoutes } from "./DelegationRoutes.ts"
import type { EvmChainSource } from "./EvmConditions.ts"
import { type CoreumLedger, makeCoreumLedger, makeSolanaLedger, type SolanaLedger } from "./Ledger.ts"
import { clearNodeState, makeNodeState, type NodeState } from "./NodeState.ts"
import { makeRadixLedger, type RadixLedger } from "./RadixLedger.ts"
import { notFound } from "./Replies.ts"
import { shardRoutes } from "./ShardRoutes.ts"

export type { AuthState, IssuedMessage, RefreshRecord, TokenPair } from "./Auth.ts"
export { authMessagePrefix, normalizeAddress } from "./Auth.ts"
export type { EvmChainSource } from "./EvmConditions.ts"
export type { CoreumLedger, SolanaLedger } from "./Ledger.ts"
export type { ChainType, DecryptionType, FileRecord, KeyShard, NodeId, NodeState, Release } from "./NodeState.ts"
export { nodeIds, zeroAddress } from "./NodeState.ts"
export type { RadixAmount, RadixLedger } from "./RadixLedger.ts"

/** The provider's encryption host. */
export const defaultEncryptionHost = "https://encryption.lighthouse.storage"

export interface KeyNodesOptions {
  /** Base URL of the encryption host. Default `https://encryption.lighthouse.storage`. */
  readonly host?: string
  /** EVM conditions are evaluated here: one viem `PublicClient` for every chain name, or a lookup by name. */
  readonly chain?: EvmChainSource
  /** The clock (ms since epoch) for JWT `iat`/`exp` and refresh-token expiry. Default `Date.now`. */
  readonly now?: () => number
  /** JWT lifetime. Default 3600 s. */
  readonly jwtTtlSeconds?: number
  /** Refresh-token lifetime. Default 7 days. */
  readonly refreshTtlSeconds?: number
  /** How long a sign-in message (`GET /api/message/{address}`) can be signed. Default 600 s. */
  readonly messageTtlSeconds?: number
  /** Sign-in messages pending at once, over every address; past it the oldest is dropped. Default 10 000. */
  readonly maxPendingMessages?: number
  /** The mock network's fault registry; faults scoped to host `encryption` (and a node) apply. */
  readonly faults?: Faults
  /** Who hears of a route that threw (it answers a JSON 500 either way); nobody by default. */
  readonly logRouteErrors?: RouteErrorLog
}

export interface KeyNodes {
  /** The host the handlers answer for, without a trailing slash. */
  readonly host: string
  /** Every route of the encryption host, ending with a 404 for anything else on it. */
  readonly handlers: Array<HttpHandler>
  /** Node 1…5 at index 0…4. */
  readonly nodes: readonly [NodeState, NodeState, NodeState, NodeState, NodeState]
  /** Issued auth messages and live refresh tokens (host-wide). */
  readonly auth: AuthState
  /** Balances and block data Solana, Coreum and Radix conditions are evaluated against. */
  readonly ledger: { readonly solana: SolanaLedger; readonly coreum: CoreumLedger; readonly radix: RadixLedger }
  /** Points EVM conditions at another chain (or none: EVM conditions are then false). */
  readonly setChain: (chain: EvmChainSource | undefined) => void
  /** Empties every node, the auth state and the ledgers, and rotates the JWT secret. */
  readonly reset: () => void
}

export const makeKeyNodes = (options: KeyNodesOptions = {}): KeyNodes => {
  const host = (options.host ?? defaultEncryptionHost).replace(/\/+$/, "")
  const now = options.now ?? Date.now
  const auth = makeAuth({
    now,
    jwtTtlSeconds: options.jwtTtlSeconds ?? 3600,
    refreshTtlSeconds: options.refreshTtlSeconds ?? 7 * 24 * 3600,
    messageTtlSeconds: options.messageTtlSeconds ?? 600,
    maxPendingMessages: options.maxPendingMessages ?? 10_000
  })
  const nodes = [makeNodeState(1), makeNodeState(2), makeNodeState(3), makeNodeState(4), makeNodeState(5)] as const
  const solana = makeSolanaLedger()
  const coreum = makeCoreumLedger()
  const radix = makeRadixLedger()
  let chain = options.chain

  const context: KeyNodeContext = {
    host,
    nodes,
    auth,
    now,
    conditions: { evm: () => chain, solana, coreum, radix },
    faults: options.faults,
    log: options.logRouteErrors
  }

  return {
    host,
    handlers: [
      ...authRoutes(context),
      ...conditionRoutes(context),
      ...shardRoutes(context),
      ...delegationRoutes(context),
      // Anything else on this host: unknown path, or a node id route with a wrong method.
      unmatched(host, () => notFound())
    ],
    nodes,
    auth: auth.state,
    ledger: { solana, coreum, radix },
    setChain: (next) => {
      chain = next
    },
    reset: () => {
      for (const node of nodes) clearNodeState(node)
      auth.reset()
      solana.reset()
      coreum.reset()
      radix.reset()
    }
  }
}
