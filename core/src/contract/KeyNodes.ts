/**
 * The encryption host (`https://encryption.lighthouse.storage`), declared once: its host-level
 * sign-in and the routes of each of the 5 key nodes, addressed by the trailing `/{node}`
 * (docs/PROTOCOL.md#key-nodes). Every call carries an `Authorization` header, empty when there is
 * no token; bodies are JSON, also on `DELETE`. Errors are `{ message }`.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import * as Schema from "effect/Schema"
import { AccessConditionsResponse } from "../accessControl/Conditions.ts"
import { JwtResponse, NodeMessageResponse } from "../auth/NodeSignIn.ts"
import { RetrieveAnswer } from "../keyShards/Recover.ts"
import { Routes } from "../routes/Routes.ts"
import { KeyShard } from "../schema/KeyShard.ts"
import { AccessDenied, CidNotFound, Host, kavachSource, knownFrom, nodeError, nodeRefusal } from "./Shapes.ts"

/** A key node's number: shard i lives on node i. */
export const NodeId = Schema.Literals(["1", "2", "3", "4", "5"]).annotate({ identifier: "NodeId" })

const token = {
  authorization: Schema.String.annotate({ description: "`Bearer {JWT or signature}`, or empty without a token" })
}
const perNode = { params: { node: NodeId }, headers: token }

/** A write every healthy node answers alike: `{ message: "success", data }`. */
export const NodeSuccess = Schema.Struct({ message: Schema.Literal("success"), data: Schema.Unknown }).annotate({
  identifier: "NodeSuccess"
})

/** The failures every per-node route may answer, in the order the node checks. */
const nodeFailures = [nodeError(400), CidNotFound, nodeError(401), AccessDenied, nodeError(500)] as const

/** Signing in's failures: a malformed request, or the credential refused with `refused`. */
const signInFailures = (refused: string) => [nodeError(400), nodeRefusal(401, refused)] as const

/** Reading a CID's conditions (one call, not per node): an unknown CID, or a malformed request. */
const conditionsFailures = [CidNotFound, nodeError(400)] as const

const Address = Schema.String.annotate({ description: "an EVM address or a 44-character base58 key" })
const Cid = Schema.String.annotate({ description: "a CID (docs/PROTOCOL.md#cids)" })

/** Signing in to the key nodes: a message to sign, a JWT for its signature, a refresh. */
export class KeyNodeAuth extends HttpApiGroup.make("keyNodeAuth")
  .add(
    HttpApiEndpoint.make(Routes.keyNodeAuth.authMessage.method)("authMessage", Routes.keyNodeAuth.authMessage.path, {
      params: { address: Address },
      headers: token,
      success: NodeMessageResponse,
      error: nodeRefusal(400, "Invalid address")
    }).annotateMerge(knownFrom(`${kavachSource}/getAuthMessage`, "kavach's getAuthMessage")),
    HttpApiEndpoint.make(Routes.keyNodeAuth.getJwt.method)("getJwt", Routes.keyNodeAuth.getJwt.path, {
      headers: token,
      payload: Schema.Struct({ address: Address, signature: Schema.String, chain: Schema.optionalKey(Schema.String) }),
      success: JwtResponse,
      error: signInFailures("Invalid Signature")
    }).annotateMerge(knownFrom(`${kavachSource}/getJWT`, "kavach's getJWT")),
    HttpApiEndpoint.make(Routes.keyNodeAuth.refreshJwt.method)("refreshJwt", Routes.keyNodeAuth.refreshJwt.path, {
      headers: token,
      payload: Schema.Struct({ address: Address, refreshToken: Schema.String }),
      success: JwtResponse,
      error: signInFailures("Invalid Refresh Token")
    })
  )
  .annotate(Host, "encryption") {}

/** Shards, sharing, ownership, conditions and delegation, one call per node. */
export class KeyNodeRoutes extends HttpApiGroup.make("keyNodes")
  .add(
    HttpApiEndpoint.make(Routes.keyNodes.saveShard.method)("saveShard", Routes.keyNodes.saveShard.path, {
      ...perNode,
      payload: Schema.Struct({
        address: Address,
        cid: Cid,
        payload: KeyShard,
        sharedTo: Schema.optionalKey(Schema.Array(Address))
      }),
      success: NodeSuccess,
      error: nodeFailures
    }).annotateMerge(knownFrom(`${kavachSource}/saveShards`, "kavach's saveShards")),
    HttpApiEndpoint.make(Routes.keyNodes.share.method)("share", Routes.keyNodes.share.path, {
      ...perNode,
      payload: Schema.Struct({ address: Address, cid: Cid, shareTo: Schema.Array(Address) }),
      success: NodeSuccess,
      error: nodeFailures
    }).annotateMerge(knownFrom(`${kavachSource}/shareToAddress`, "kavach's shareToAddress")),
    HttpApiEndpoint.make(Routes.keyNodes.revoke.method)("revoke", Routes.keyNodes.revoke.path, {
      ...perNode,
      payload: Schema.Struct({ address: Address, cid: Cid, revokeTo: Schema.Array(Address) }),
      success: NodeSuccess,
      error: nodeFailures
    }).annotateMerge(knownFrom(`${kavachSource}/revokeAccess`, "kavach's revokeAccess")),
    HttpApiEndpoint.make(Routes.keyNodes.transferOwnership.method)(
      "transferOwnership",
      Routes.keyNodes.transferOwnership.path,
      {
        ...perNode,
        payload: Schema.Struct({
          address: Address,
          cid: Cid,
          newOwner: Address,
          resetSharedTo: Schema.optionalKey(Schema.Boolean)
        }),
        success: NodeSuccess,
        error: nodeFailures
      }
    ).annotateMerge(knownFrom(`${kavachSource}/transferOwnership`, "kavach's transferOwnership")),
    HttpApiEndpoint.make(Routes.keyNodes.retrieveShard.method)("retrieveShard", Routes.keyNodes.retrieveShard.path, {
      ...perNode,
      payload: Schema.Struct({
        address: Address,
        cid: Cid,
        dynamicData: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
        ownerAddress: Schema.optionalKey(Address)
      }),
      success: RetrieveAnswer,
      error: nodeFailures
    }).annotateMerge(knownFrom(`${kavachSource}/recoverShards`, "kavach's recoverShards")),
    HttpApiEndpoint.make(Routes.keyNodes.createConditions.method)(
      "createConditions",
      Routes.keyNodes.createConditions.path,
      {
        ...perNode,
        payload: Schema.Struct({
          address: Address,
          cid: Cid,
          conditions: Schema.Array(Schema.Unknown),
          aggregator: Schema.optionalKey(Schema.String),
          decryptionType: Schema.optionalKey(Schema.String),
          chainType: Schema.optionalKey(Schema.String),
          payload: KeyShard
        }),
        success: NodeSuccess,
        error: nodeFailures
      }
    ).annotateMerge(knownFrom(`${kavachSource}/accessControl`, "kavach's accessControl")),
    HttpApiEndpoint.make(Routes.keyNodes.updateConditions.method)(
      "updateConditions",
      Routes.keyNodes.updateConditions.path,
      {
        ...perNode,
        payload: Schema.Struct({
          address: Address,
          cid: Cid,
          conditions: Schema.Array(Schema.Unknown),
          aggregator: Schema.optionalKey(Schema.String),
          chainType: Schema.optionalKey(Schema.String)
        }),
        success: NodeSuccess,
        error: nodeFailures
      }
    ),
    HttpApiEndpoint.make(Routes.keyNodes.getConditions.method)("getConditions", Routes.keyNodes.getConditions.path, {
      params: { cid: Cid },
      headers: token,
      success: AccessConditionsResponse,
      error: conditionsFailures
    }),
    HttpApiEndpoint.make(Routes.keyNodes.delegateAllFiles.method)(
      "delegateAllFiles",
      Routes.keyNodes.delegateAllFiles.path,
      {
        ...perNode,
        payload: Schema.Struct({ address: Address, allFilesAccess: Schema.Array(Address) }),
        success: NodeSuccess,
        error: nodeFailures
      }
    )
  )
  .annotate(Host, "encryption") {}
