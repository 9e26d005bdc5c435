/**
 * Configuration errors: an all-in-one layer and a standalone `LighthouseConfig` in one program.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An all-in-one layer (`layer` or `layerConfig` of `Lighthouse`, `LighthouseStorage` or
 * `lighthouse-effect/node`) built where a `LighthouseConfig` from `LighthouseConfig.layer` or
 * `LighthouseConfig.layerConfig` is provided to it, around it or beside it: it brings its own
 * configuration and would ignore that one. Found once, when the layers are built.
 */
export class ConfigConflict extends Schema.TaggedError<ConfigConflict>()("ConfigConflict", {}) {
  override get message() {
    return (
      "A LighthouseConfig from LighthouseConfig.layer or LighthouseConfig.layerConfig meets an all-in-one layer " +
      "(layer or layerConfig of Lighthouse, LighthouseStorage or lighthouse-effect/node), which brings its own " +
      "configuration and would ignore it. Give the options to the all-in-one layer's layer, or the Configs to its " +
      "layerConfig; read the configuration back from the all-in-one layer, which provides LighthouseConfig."
    )
  }
}
