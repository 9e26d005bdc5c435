/**
 * The runtime a browser app hands to `LighthouseProvider`: the library's browser layer
 * (`fetch`, no file system: uploads take `File`s and `Blob`s), made once and shared by
 * every component.
 */
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { Lighthouse } from "lighthouse-effect"

/** What components can ask the runtime for. */
export type LighthouseServices = Lighthouse.Services

export type LighthouseRuntime = ManagedRuntime.ManagedRuntime<LighthouseServices, never>

/**
 * One runtime for the whole app over the configuration `options` (hosts, node policy, networks).
 * Its layer is the only one in the runtime, so its `ConfigConflict` cannot happen.
 */
export const makeRuntime = (options: Lighthouse.Options = {}): LighthouseRuntime =>
  ManagedRuntime.make(Lighthouse.layer(options).pipe(Layer.orDie))
