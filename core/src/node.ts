/**
 * Node-only entry (`lighthouse-effect/node`): the all-in-one layer with Node's file
 * system and the streaming file cipher (constant memory for any file size).
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Layer from "effect/Layer"
import { layerNode, type NodeOptions } from "./LighthouseNode.ts"
import { type LighthouseClient, makeClient } from "./promise.ts"

export * as FileCipherNode from "./crypto/FileCipherNode.ts"
export { layerNode, layerNodeConfig, type NodeOptions } from "./LighthouseNode.ts"

/**
 * The Promise client for Node (`layerNode`): uploads take paths, downloads write files, bodies stream.
 *
 * @category constructors
 */
export const createLighthouseNode = (options: NodeOptions = {}): LighthouseClient =>
  makeClient(layerNode(options), Layer.merge(NodeFileSystem.layer, NodePath.layer))
