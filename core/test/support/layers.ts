/**
 * The library's layers as the tests compose them, over `fetch` (so msw answers).
 */
import { Layer } from "effect"
import * as AccessControl from "../../src/AccessControl.ts"
import * as Auth from "../../src/Auth.ts"
import * as Nodes from "../../src/KeyNodes.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as Config from "../../src/LighthouseConfig.ts"

/** `services` over the key nodes, the configuration (requests time out after a minute unless `options` say otherwise) and `fetch`. */
export const overKeyNodes = <A, E, R>(services: Layer.Layer<A, E, R>, options: Config.PartialOptions = {}) =>
  services.pipe(
    Layer.provideMerge(Nodes.layer),
    Layer.provideMerge(Config.layer({ requestTimeout: "1 minute", ...options })),
    Layer.provideMerge(Lighthouse.httpLayer)
  )

/** Auth, KeyShards and AccessControl over the key nodes, with the node policy `nodes`. */
export const keyServices = (nodes: Config.PartialOptions["nodes"] = {}) =>
  overKeyNodes(Layer.mergeAll(AccessControl.layer, KeyShards.layer).pipe(Layer.provideMerge(Auth.layer())), { nodes })
