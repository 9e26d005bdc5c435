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
 * The work lives in `keyShards/`: `Save.ts`, `Recover.ts`, `Models.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import { Auth } from "./Auth.ts"
import * as Shamir from "./crypto/Shamir.ts"
import { type FanOutResult, KeyNodes } from "./KeyNodes.ts"
import type {
  FetchKeyFailure,
  FetchKeyInput,
  KeyShardsDeps,
  RecoveredShards,
  RecoverFailure,
  RecoverInput,
  SaveFailure,
  SaveInput
} from "./keyShards/Models.ts"
import * as Recover from "./keyShards/Recover.ts"
import * as Save from "./keyShards/Save.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"

// =============================================================================
// Pure key splitting (re-exported from crypto/Shamir.ts)
// =============================================================================

/**
 * A fresh master key and its shards (3-of-5 by default).
 *
 * @category key splitting
 */
export const generate = Shamir.generate

/**
 * Splits an existing master key into shards (3-of-5 by default).
 *
 * @category key splitting
 */
export const shardKey = Shamir.shardKey

/**
 * Recovers a master key from shards.
 *
 * @category key splitting
 */
export const recoverKey = Shamir.recoverKey

export type { GeneratedKey, RecoverOptions } from "./crypto/Shamir.ts"
export * from "./keyShards/Models.ts"
export { threshold } from "./keyShards/Recover.ts"
export type { KeyShard } from "./schema/KeyShard.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `KeyShards` service offers.
 *
 * @category models
 */
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
// Constructor
// =============================================================================

/**
 * Builds the service over the key nodes, and `Auth` to sign in owners given as `{ signer }`.
 *
 * @category constructors
 */
export const make: Effect.Effect<Service, never, LighthouseConfig | KeyNodes | Auth> = Effect.gen(function* () {
  const deps: KeyShardsDeps = {
    nodes: yield* KeyNodes,
    policy: (yield* LighthouseConfig).nodes,
    auth: yield* Auth
  }
  return KeyShards.of({
    save: (input) => Save.save(deps, input),
    recover: (input) => Recover.recover(deps, input),
    fetchKey: (input) => Recover.fetchKey(deps, input)
  })
})

/**
 * The `KeyShards` service; needs the config, the key nodes and `Auth`.
 *
 * @category layers
 */
export const layer: Layer.Layer<KeyShards, never, LighthouseConfig | KeyNodes | Auth> = Layer.effect(KeyShards, make)
