/**
 * The library's services for a command: the all-in-one Node layer, configured from the library's
 * `LIGHTHOUSE_*` variables (hosts, time-outs, key-node policy, network). A variable that does not
 * parse is a usage error naming it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { LighthouseConfig } from "lighthouse-effect"
import { layerNode } from "lighthouse-effect/node"
import { UsageError } from "./Errors.ts"

export const layer = Layer.unwrap(
  Effect.gen(function* () {
    const options = yield* LighthouseConfig.LighthouseConfig
    return layerNode(options)
  }).pipe(
    Effect.provide(LighthouseConfig.layerConfig),
    Effect.mapError((error) => new UsageError({ detail: `configuration: ${error.message}` }))
  )
)

/** Runs `effect` with the library's services. */
export const withLibrary = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, layer)
