/**
 * Node-only entry (`lighthouse-effect/node`): the all-in-one layer with Node's file
 * system and the streaming file cipher (constant memory for any file size).
 *
 * @since 0.1.0
 */
import { NodeFileSystem } from "@effect/platform-node"
import { type ClientOptions, createLighthouse, type LighthouseClient } from "./promise.ts"

export * as FileCipherNode from "./crypto/FileCipherNode.ts"
export { layerNode } from "./LighthouseNode.ts"

/** The Promise client with Node's file system: uploads take paths, downloads write files. */
export const createLighthouseNode = (options: Omit<ClientOptions, "fileSystem"> = {}): LighthouseClient =>
  createLighthouse({ ...options, fileSystem: NodeFileSystem.layer })
