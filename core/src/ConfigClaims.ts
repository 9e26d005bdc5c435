/**
 * Internal, not exported by the package: where a build's `LighthouseConfig` came from, a
 * standalone layer (`LighthouseConfig.layer`, `layerConfig`) or an all-in-one layer, which brings
 * its own and would ignore a standalone one. The two are refused when the layers are built, once:
 * the one built second fails with `ConfigConflict`, whether the other is in the context it is
 * built in (provided to it or around it) or beside it in the same build (merged: every layer of
 * one build is built with the build's one `MemoMap`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ConfigConflict } from "./errors/Config.ts"

/** Who built a configuration. */
export type Origin = "standalone" | "all-in-one"

const other = (origin: Origin): Origin => (origin === "standalone" ? "all-in-one" : "standalone")

/** The origin of each configuration built; weak, so a configuration leaves with its runtime. */
const origins = new WeakMap<object, Origin>()

/** The origins built in each build, known by its `MemoMap` (shared by every layer of one build). */
const builds = new WeakMap<Layer.MemoMap, Set<Origin>>()

/** `config`, recorded as built by `origin`. */
export const mark = <A extends object>(config: A, origin: Origin): A => {
  origins.set(config, origin)
  return config
}

const originsIn = (memoMap: Layer.MemoMap): Set<Origin> => {
  const known = builds.get(memoMap)
  if (known !== undefined) return known
  const fresh = new Set<Origin>()
  builds.set(memoMap, fresh)
  return fresh
}

/**
 * A layer providing nothing, built before `origin`'s configuration: it fails with `ConfigConflict`
 * where the configuration under `tag` in context, or one already in the same build, is the other origin's.
 */
export const claim = <I, S extends object>(
  origin: Origin,
  tag: Context.Key<I, S>
): Layer.Layer<never, ConfigConflict> =>
  Layer.fromBuild((memoMap) =>
    Effect.gen(function* () {
      const inContext = yield* Effect.serviceOption(tag)
      const built = originsIn(memoMap)
      const met =
        Option.exists(inContext, (config) => origins.get(config) === other(origin)) || built.has(other(origin))
      if (met) return yield* new ConfigConflict()
      built.add(origin)
      return Context.empty()
    })
  )
