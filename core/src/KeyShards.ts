/**
 * `KeyShards`: a file's master key split 3-of-5 over the 5 key nodes.
 *
 * - `generate` / `shardKey` / `recoverKey` are the pure threshold functions of `crypto/Shamir.ts`.
 * - `save` writes shard i to node i (`POST /api/setSharedKey/{1..5}`), stopping at the first node
 *   that fails; a failure is `Error encrypting file` whose cause names the failing node and the
 *   nodes that already hold their shard.
 * - `recover` reads shards from `count` distinct random nodes, in ascending order, and when one of
 *   them is unreachable or failing (transport error, time-out, 5xx) asks the remaining nodes
 *   before giving up.
 * - `fetchKey` is `recover` then `recoverKey`: the master key, `Redacted`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { LighthouseConfig } from "./LighthouseConfig.ts"
import * as Shamir from "./crypto/Shamir.ts"
import {
  AccessDenied,
  CannotRecoverKey,
  CidNotFound,
  EncryptionFailed,
  type InvalidCid,
  InvalidKeyShards,
  InvalidKeySplit,
  type InvalidPublicKey,
  KeyNodesUnavailable,
  NodeError
} from "./Errors.ts"
import type { Token } from "./internal/http.ts"
import { innermostMessage } from "./internal/nodeAnswers.ts"
import { allNodes, type FanOutResult, KeyNodes } from "./KeyNodes.ts"
import { parsePublicKey } from "./schema/Address.ts"
import { parseCid } from "./schema/Cid.ts"
import type { KeyShard } from "./schema/KeyShard.ts"

// =============================================================================
// Pure key splitting (re-exported from crypto/Shamir.ts)
// =============================================================================

/**
 * A fresh master key and its shards (3-of-5 by default).
 *
 * @category constructors
 */
export const generate = Shamir.generate

/**
 * Splits an existing master key into shards (3-of-5 by default).
 *
 * @category constructors
 */
export const shardKey = Shamir.shardKey

/**
 * Recovers a master key from shards.
 *
 * @category constructors
 */
export const recoverKey = Shamir.recoverKey

export type { GeneratedKey, RecoverOptions } from "./crypto/Shamir.ts"
export type { KeyShard } from "./schema/KeyShard.ts"

// =============================================================================
// Models
// =============================================================================

/** `save`: the shards of a freshly encrypted file. */
export interface SaveInput {
  /** The CID the upload returned (`Hash`). */
  readonly cid: string
  /** The owner: EVM address (any case) or 44-character base58 key. */
  readonly address: string
  /** JWT (`jwt:…`) or a raw signature of the node message. */
  readonly token: Token
  /** Exactly 5 shards; shard i goes to node i + 1. */
  readonly keyShards: ReadonlyArray<KeyShard>
  /** Addresses that may also recover the key (sent as `sharedTo`, only when non-empty). */
  readonly shareTo?: ReadonlyArray<string> | undefined
}

/** `recover`: who asks for which file's shards. */
export interface RecoverInput {
  readonly cid: string
  readonly address: string
  readonly token: Token
  /** Values the nodes substitute into access conditions (e.g. `:userAddress`). @default {} */
  readonly dynamicData?: Readonly<Record<string, unknown>> | undefined
  /** How many distinct nodes to read from (1–5). @default 3 */
  readonly count?: number | undefined
}

/** `fetchKey`: as `recover`, always reading the threshold of 3 shards. */
export interface FetchKeyInput {
  readonly cid: string
  readonly address: string
  readonly token: Token
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

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** Writes the 5 shards to the 5 nodes; the result reports each node's outcome. */
  readonly save: (input: SaveInput) => Effect.Effect<FanOutResult, SaveFailure>
  /** Reads `count` shards from distinct nodes. */
  readonly recover: (input: RecoverInput) => Effect.Effect<RecoveredShards, RecoverFailure>
  /** Reads 3 shards and recovers the master key (64 hex, `Redacted`). */
  readonly fetchKey: (input: FetchKeyInput) => Effect.Effect<Redacted.Redacted<string>, FetchKeyFailure>
}

/**
 * The key shards of encrypted files on the 5 key nodes.
 *
 * @category services
 */
export class KeyShards extends Context.Service<KeyShards, Service>()("lighthouse-effect/KeyShards") {}

// =============================================================================
// Implementation
// =============================================================================

/** Shards needed to recover a key. */
export const threshold = 3

/** What a node hands out: `{ message: "success", payload: { key, index } }`. */
const RetrieveAnswer = Schema.Struct({ payload: Schema.Struct({ key: Schema.String, index: Schema.String }) })

/** A node that cannot answer now (transport failure, time-out, 404, 5xx): another node may. */
const isUnavailable = (error: NodeError): boolean =>
  error.statusCode === 0 || error.statusCode === 404 || error.statusCode >= 500

type NodeOutcome =
  | { readonly _tag: "shard"; readonly nodeId: number; readonly shard: KeyShard }
  | { readonly _tag: "unavailable"; readonly error: NodeError }

/**
 * Builds the service over the key nodes.
 *
 * @category constructors
 */
export const make: Effect.Effect<Service, never, LighthouseConfig | KeyNodes> = Effect.gen(function* () {
  const config = yield* LighthouseConfig
  const nodes = yield* KeyNodes
  const policy = config.nodes

  const save = Effect.fn("KeyShards.save")(function* (input: SaveInput) {
    // The provider's order: CID first, then the shard count.
    const cid = yield* parseCid(input.cid)
    const keyShards: ReadonlyArray<unknown> = input.keyShards
    if (
      !Array.isArray(keyShards) ||
      keyShards.length !== 5 ||
      keyShards.some((s) => typeof s !== "object" || s === null)
    )
      return yield* new InvalidKeyShards({ count: Array.isArray(keyShards) ? keyShards.length : -1 })
    const address = yield* parsePublicKey(input.address)
    const shareTo = yield* Effect.forEach(input.shareTo ?? [], parsePublicKey)
    yield* Effect.annotateCurrentSpan({ cid, address })
    return yield* nodes
      .fanOut({
        operation: "saveShards",
        request: (nodeId) => ({
          method: "POST",
          path: `/api/setSharedKey/${nodeId}`,
          body: {
            address,
            cid,
            payload: input.keyShards[nodeId - 1],
            ...(shareTo.length > 0 ? { sharedTo: shareTo } : {})
          },
          token: input.token
        }),
        onError: "stop",
        agreement: "identical-ignoring-data",
        requireSuccess: true
      })
      .pipe(
        // The cause keeps which node failed (`nodeId`) and which already hold a shard (`succeededNodes`).
        Effect.mapError((cause) => new EncryptionFailed({ cause }))
      )
  })

  const recover = Effect.fn("KeyShards.recover")(function* (input: RecoverInput) {
    const cid = yield* parseCid(input.cid)
    const address = yield* parsePublicKey(input.address)
    const count = input.count ?? threshold
    if (!Number.isInteger(count) || count < 1 || count > allNodes.length)
      return yield* new InvalidKeySplit({
        threshold: count,
        keyCount: allNodes.length,
        reason: `count must be an integer from 1 to ${allNodes.length}`
      })
    const dynamicData = input.dynamicData ?? {}
    const order = yield* Random.shuffle(allNodes)
    const ascending = (ids: ReadonlyArray<number>) => [...ids].sort((a, b) => a - b)
    const spare = ascending(order.slice(count))
    yield* Effect.annotateCurrentSpan({ cid, address, count })

    // One node: its shard, or "unavailable" (another node may answer), or a refusal that ends the recovery.
    const ask = Effect.fnUntraced(function* (
      nodeId: number
    ): Effect.fn.Return<NodeOutcome, AccessDenied | CidNotFound | NodeError> {
      const answer = yield* nodes
        .call(nodeId, {
          method: "POST",
          path: `/api/retrieveSharedKey/${nodeId}`,
          body: { address, cid, dynamicData },
          token: input.token
        })
        .pipe(Effect.result)
      if (answer._tag === "Failure") {
        const error = answer.failure
        if (isUnavailable(error)) return { _tag: "unavailable", error }
        const innermost = innermostMessage(error.body)
        if (typeof innermost === "string" && /access denied/i.test(innermost))
          return yield* new AccessDenied({ nodeId, cid })
        // The provider's rule: an error whose text contains `null` means no record for the CID.
        if (JSON.stringify(error.body ?? null).includes("null")) return yield* new CidNotFound({ cid })
        return yield* error
      }
      const decoded = Schema.decodeUnknownOption(RetrieveAnswer)(answer.success)
      // A 2xx without a shard is a faulty node: ask another one.
      if (decoded._tag === "None")
        return {
          _tag: "unavailable",
          error: new NodeError({ nodeId, statusCode: 200, body: answer.success, nodeMessage: "Invalid shard payload" })
        }
      return { _tag: "shard", nodeId, shard: decoded.value.payload }
    })

    const shards: Array<{ readonly nodeId: number; readonly shard: KeyShard }> = []
    const failures: Array<NodeError> = []
    let batch = ascending(order.slice(0, count))
    let called = 0
    while (batch.length > 0) {
      const outcomes: Array<NodeOutcome> = []
      if (policy.mode === "concurrent") {
        outcomes.push(...(yield* Effect.forEach(batch, ask, { concurrency: "unbounded" })))
      } else {
        for (const nodeId of batch) {
          if (called > 0 && Duration.isGreaterThan(policy.pause, Duration.zero)) yield* Effect.sleep(policy.pause)
          called++
          outcomes.push(yield* ask(nodeId))
        }
      }
      for (const outcome of outcomes) {
        if (outcome._tag === "shard") shards.push(outcome)
        else failures.push(outcome.error)
      }
      // Replace each unavailable node by the next spare one, so `count` distinct nodes answer if they can.
      batch = spare.splice(0, count - shards.length)
      if (failures.length > 0 && batch.length > 0)
        yield* Effect.logDebug(
          `KeyShards.recover: nodes ${failures.map((f) => f.nodeId).join(", ")} unavailable, asking ${batch.join(", ")}`
        )
    }
    if (shards.length < count)
      return yield* new KeyNodesUnavailable({
        cid,
        needed: count,
        received: shards.length,
        failures: failures.map((f) => ({ nodeId: f.nodeId, statusCode: f.statusCode, nodeMessage: f.nodeMessage }))
      })
    const sorted = [...shards].sort((a, b) => a.nodeId - b.nodeId)
    return { shards: sorted.map((s) => s.shard), nodes: sorted.map((s) => s.nodeId) }
  })

  const fetchKey = Effect.fn("KeyShards.fetchKey")(function* (input: FetchKeyInput) {
    const { shards } = yield* recover({ ...input, count: threshold })
    return yield* Shamir.recoverKey(shards, { threshold }).pipe(
      Effect.mapError((e) =>
        e._tag === "CannotRecoverKey" ? e : new CannotRecoverKey({ reason: `${e._tag}: ${e.message}` })
      )
    )
  })

  return KeyShards.of({ save, recover, fetchKey })
})

/**
 * The `KeyShards` service; needs the config and the key nodes.
 *
 * @category layers
 */
export const layer: Layer.Layer<KeyShards, never, LighthouseConfig | KeyNodes> = Layer.effect(KeyShards, make)
