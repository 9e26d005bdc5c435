/**
 * The files of a folder on disk: recursive, depth first in name order (so uploads and quotes
 * are reproducible), symlinks followed (as the provider's `stat`-based walk), hidden files
 * included, empty folders dropped. Only names are collected; no file is opened.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"

/** A file found under the walked folder. */
export interface Found {
  /** The path to open. */
  readonly path: string
  /** Its path inside the walked folder, `/`-separated. */
  readonly relative: string
  readonly size: number
}

/** Every file under `dir`. */
export const walk = (fs: FileSystem.FileSystem, dir: string): Effect.Effect<Array<Found>, PlatformError> => {
  const go = (at: string, relative: string): Effect.Effect<Array<Found>, PlatformError> =>
    Effect.gen(function* () {
      const names = (yield* fs.readDirectory(at)).sort()
      const out: Array<Found> = []
      for (const name of names) {
        const path = `${at}/${name}`
        const rel = relative === "" ? name : `${relative}/${name}`
        const info = yield* fs.stat(path)
        if (info.type === "Directory") out.push(...(yield* go(path, rel)))
        else if (info.type === "File") out.push({ path, relative: rel, size: Number(info.size) })
      }
      return out
    })
  return go(dir.replace(/[\\/]+$/, "") || "/", "")
}
