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
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { LighthouseConfig } from "./Config.ts"
import {
  AccessDenied,
  CidNotFound,
  type ConditionValidationError,
  type InvalidCid,
  type InvalidKeyShards,
  type InvalidPublicKey,
  InvalidResponse,
  type NodeError,
  type NodesDisagree
} from "./Errors.ts"
import { type Token, url } from "./internal/http.ts"
import { innermostMessage } from "./internal/nodeAnswers.ts"
import { type FanOut, type FanOutResult, KeyNodes } from "./Nodes.ts"
import { parsePublicKey } from "./schema/Address.ts"
import { validateConditionRequest } from "./schema/AccessCondition.ts"
import { parseCid } from "./schema/Cid.ts"
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

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** Creates (5 shards, POST) or updates (no shards, PUT) a file's access conditions on all 5 nodes. */
  readonly apply: (input: ApplyInput) => Effect.Effect<FanOutResult, ApplyFailure>
  /** Updates a file's access conditions (PUT on all 5 nodes). */
  readonly update: (input: UpdateInput) => Effect.Effect<FanOutResult, ApplyFailure>
  /** Reads a file's access conditions (`GET /api/fileAccessConditions/get/{cid}`). */
  readonly get: (cid: string) => Effect.Effect<AccessConditions, InvalidCid | CidNotFound | NodeError | InvalidResponse>
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

// =============================================================================
// Implementation
// =============================================================================

const AccessConditionsResponse = Schema.Struct({
  cid: Schema.String,
  owner: Schema.String,
  sharedTo: Schema.Array(Schema.String),
  conditions: Schema.Array(Schema.Unknown),
  conditionsSolana: Schema.Array(Schema.Unknown),
  aggregator: Schema.String,
  chainType: Schema.optionalKey(Schema.String),
  decryptionType: Schema.optionalKey(Schema.String)
})

/** See {@link NodeRefusal}. */
const refine =
  (cid: string) =>
  (error: NodeError | NodesDisagree): NodeRefusal => {
    if (error._tag === "NodesDisagree" || (error.succeededNodes?.length ?? 0) > 0) return error
    const innermost = innermostMessage(error.body)
    if (typeof innermost === "string" && /access denied/i.test(innermost))
      return new AccessDenied({ nodeId: error.nodeId, cid })
    if (error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 404) {
      if (JSON.stringify(error.body ?? null).includes("null")) return new CidNotFound({ cid })
    }
    return error
  }

/**
 * Builds the service over the key nodes.
 *
 * @category constructors
 */
export const make: Effect.Effect<Service, never, LighthouseConfig | KeyNodes> = Effect.gen(function* () {
  const config = yield* LighthouseConfig
  const nodes = yield* KeyNodes

  const fanOut = (cid: string, spec: FanOut) => nodes.fanOut(spec).pipe(Effect.mapError(refine(cid)))

  const apply = Effect.fn("AccessControl.apply")(function* (input: ApplyInput) {
    const creating = (input.keyShards?.length ?? 0) > 0
    // Shard count, CID, address and conditions are all checked before anything is sent.
    const valid = yield* validateConditionRequest(input, { creating })
    const common = {
      address: valid.address,
      cid: valid.cid,
      conditions: valid.conditions,
      aggregator: valid.aggregator,
      chainType: valid.chainType
    }
    yield* Effect.annotateCurrentSpan({ cid: valid.cid, creating, chainType: valid.chainType })
    return yield* fanOut(valid.cid, {
      operation: creating ? "accessControl" : "updateAccessControl",
      request: (nodeId) => ({
        method: creating ? "POST" : "PUT",
        path: `/api/fileAccessConditions/${nodeId}`,
        body: creating
          ? { ...common, decryptionType: valid.decryptionType, payload: valid.keyShards[nodeId - 1] }
          : common,
        token: input.token
      }),
      // Every node is asked, so the result shows which ones hold the new conditions.
      onError: "continue",
      agreement: "message",
      requireSuccess: true
    })
  })

  const update = Effect.fn("AccessControl.update")(function* (input: UpdateInput) {
    return yield* apply({ ...input, keyShards: [] })
  })

  const get = Effect.fn("AccessControl.get")(function* (cidInput: string) {
    const cid = yield* parseCid(cidInput)
    const path = `/api/fileAccessConditions/get/${cid}`
    // The provider serves this from its first node.
    const answer = yield* nodes.call(1, { method: "GET", path }).pipe(
      Effect.mapError((e) => {
        const refined = refine(cid)(e)
        return refined._tag === "CidNotFound" ? refined : e
      })
    )
    return yield* Schema.decodeUnknownEffect(AccessConditionsResponse)(answer).pipe(
      Effect.mapError((e) => new InvalidResponse({ url: url(config.hosts.encryption, path), detail: e.message }))
    )
  })

  /** The owner, the CID and a list of addresses, checked before any request. */
  const checkChange = Effect.fnUntraced(function* (address: string, cidInput: string, others: ReadonlyArray<string>) {
    const cid = yield* parseCid(cidInput)
    const owner = yield* parsePublicKey(address)
    const list = yield* Effect.forEach(others, parsePublicKey)
    return { cid, owner, list }
  })

  const change = (
    operation: string,
    cid: string,
    method: "POST" | "PUT" | "DELETE",
    route: string,
    token: Token,
    body: unknown,
    agreement: "identical" | "identical-ignoring-data"
  ) =>
    fanOut(cid, {
      operation,
      request: (nodeId) => ({ method, path: `${route}/${nodeId}`, body, token }),
      onError: "stop",
      agreement,
      requireSuccess: true
    })

  const share = Effect.fn("AccessControl.share")(function* (input: ShareInput) {
    const { cid, owner, list } = yield* checkChange(input.address, input.cid, input.shareTo)
    yield* Effect.annotateCurrentSpan({ cid, count: list.length })
    return yield* change(
      "shareToAddress",
      cid,
      "PUT",
      "/api/setSharedKey",
      input.token,
      { address: owner, cid, shareTo: list },
      "identical-ignoring-data"
    )
  })

  const revoke = Effect.fn("AccessControl.revoke")(function* (input: RevokeInput) {
    const revokeTo = typeof input.revokeTo === "string" ? [input.revokeTo] : input.revokeTo
    const { cid, owner, list } = yield* checkChange(input.address, input.cid, revokeTo)
    yield* Effect.annotateCurrentSpan({ cid, count: list.length })
    // Unlike the provider, the nodes' `message` must be `success` here too.
    return yield* change(
      "revokeAccess",
      cid,
      "DELETE",
      "/api/setSharedKey",
      input.token,
      { address: owner, cid, revokeTo: list },
      "identical-ignoring-data"
    )
  })

  const transferOwnership = Effect.fn("AccessControl.transferOwnership")(function* (input: TransferInput) {
    const { cid, owner, list } = yield* checkChange(input.address, input.cid, [input.newOwner])
    yield* Effect.annotateCurrentSpan({ cid })
    return yield* change(
      "transferOwnership",
      cid,
      "POST",
      "/api/transferOwnership",
      input.token,
      { address: owner, cid, newOwner: list[0], resetSharedTo: input.resetSharedTo ?? true },
      "identical"
    )
  })

  return AccessControl.of({ apply, update, get, share, revoke, transferOwnership })
})

/**
 * The `AccessControl` service; needs the config and the key nodes.
 *
 * @category layers
 */
export const layer: Layer.Layer<AccessControl, never, LighthouseConfig | KeyNodes> = Layer.effect(AccessControl, make)
