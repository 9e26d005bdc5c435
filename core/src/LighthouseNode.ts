/**
 * Every service of the library for Node: `Lighthouse.layer` with Node's file system,
 * so uploads take paths and downloads write files. Kept apart from `Lighthouse.ts`
 * so browser bundles never reach `node:fs`.
 *
 * @since 0.1.0
 */
import { NodeFileSystem } from "@effect/platform-node"
import * as Layer from "effect/Layer"
import * as Lighthouse from "./Lighthouse.ts"

/** All services for Node. */
export const layerNode = (options: Lighthouse.Options = {}): Layer.Layer<Lighthouse.Services> =>
  Lighthouse.layer(options).pipe(Layer.provide(NodeFileSystem.layer))
