/**
 * The runtime a browser app hands to `LighthouseProvider`: the library's browser layer
 * (`fetch`, no file system: uploads take `File`s and `Blob`s), made once and shared by
 * every component.
 */
import * as ManagedRuntime from "effect/ManagedRuntime"
import { Lighthouse } from "lighthouse-effect"

/** What components can ask the runtime for. */
export type LighthouseServices = Lighthouse.Services

export type LighthouseRuntime = ManagedRuntime.ManagedRuntime<LighthouseServices, never>

/** One runtime for the whole app over the configuration `options` (hosts, node policy, networks). */
export const makeRuntime = (options: Lighthouse.Options = {}): LighthouseRuntime =>
  ManagedRuntime.make(Lighthouse.layerBrowser(options))
