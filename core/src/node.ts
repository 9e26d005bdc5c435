/**
 * Node-only entry (`lighthouse-effect/node`): the all-in-one layer with Node's file system,
 * `node:http` and the streaming file cipher (constant memory for any file size); `layer(options)`
 * and `layerConfig(options)` as `Lighthouse`'s in the main entry, `layerStorage(options)` and
 * `layerStorageConfig(options)` as `LighthouseStorage`'s (every service but `Payment`).
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Layer from "effect/Layer"
import { layer, type NodeOptions } from "./LighthouseNode.ts"
import { type LighthouseClient, makeClient } from "./promise.ts"

export type { ConfigOptions } from "./AllInOne.ts"
export * as FileCipherNode from "./crypto/FileCipherNode.ts"
export { layer, layerConfig, type NodeOptions } from "./LighthouseNode.ts"
export { layerStorage, layerStorageConfig } from "./LighthouseNodeStorage.ts"
export type { Services } from "./LighthouseServices.ts"
export type { Services as StorageServices } from "./LighthouseStorage.ts"

/**
 * The Promise client for Node (`layer`): uploads take paths, downloads write files, bodies stream.
 *
 * @category constructors
 */
export const createLighthouseNode = (options: NodeOptions = {}): LighthouseClient =>
  makeClient(layer(options), Layer.merge(NodeFileSystem.layer, NodePath.layer))
