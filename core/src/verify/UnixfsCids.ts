/**
 * The CIDs an upload will have, computed from its bytes on their way to the node.
 *
 * The upload node imports with kubo's `ipfs add` settings: ipfs-unixfs-importer's
 * `unixfs-v0-2015` profile (256 KiB fixed-size chunks, balanced layout of at most 174 links per
 * node, links-first dag-pb fields, HAMT sharding by the links-bytes estimate); `cid-version=1`
 * turns raw leaves on unless `raw-leaves` says otherwise. The same importer runs here with a
 * blockstore that keeps nothing: the importer hashes every block to name it, and only the CIDs
 * remain. Memory stays constant: one chunk is handed over at a time, and the importer holds at
 * most a chunk being filled and the blocks it is hashing.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type ImportCandidate, type ImporterOptions, importer } from "ipfs-unixfs-importer"
import type { CID } from "multiformats/cid"
import { Pipe } from "./Pipe.ts"

/** The node's import settings, as the `add` request's query gives them. */
export interface AddSettings {
  readonly cidVersion: 0 | 1
  /** @default `cidVersion === 1`, as kubo */
  readonly rawLeaves?: boolean | undefined
  readonly wrapWithDirectory?: boolean | undefined
}

/** One imported entry: a file, a directory, or the wrapping directory (path `""`). */
export interface ImportedEntry {
  readonly path: string
  readonly cid: CID
  /** Cumulative size of the DAG (kubo's `Size`). */
  readonly size: bigint
}

/** The importer options that reproduce kubo's `ipfs add` for `settings`. */
export const importerOptions = (settings: AddSettings): ImporterOptions => ({
  profile: "unixfs-v0-2015",
  cidVersion: settings.cidVersion,
  rawLeaves: settings.rawLeaves ?? settings.cidVersion === 1,
  wrapWithDirectory: settings.wrapWithDirectory ?? false,
  // Files arrive one after the other in one request body.
  fileImportConcurrency: 1,
  // Bounds the leaves in flight (256 KiB each); CIDs do not depend on it.
  blockWriteConcurrency: 8
})

// A blockstore for CIDs only: the importer has already hashed a block when it puts it.
const discard = { put: (cid: CID) => cid }

/** Computes the CIDs of an upload from the files passed through it, in order. */
export interface CidCalculator {
  /**
   * `content` unchanged; each chunk goes to the importer as it passes. Files are imported in the
   * order of the calls, so a file's content may run before an earlier one's has finished.
   */
  readonly file: <E, R>(path: string, content: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Uint8Array, E, R>
  /** An empty directory at `path`. */
  readonly directory: (path: string) => Effect.Effect<void>
  /** Every entry (files, directories, the root last), once all files have passed. */
  readonly entries: Effect.Effect<ReadonlyArray<ImportedEntry>>
}

/**
 * A calculator for one upload; the importer stops with the scope.
 *
 * @category constructors
 */
export const calculator = (settings: AddSettings): Effect.Effect<CidCalculator, never, Scope.Scope> =>
  Effect.gen(function* () {
    const candidates = new Pipe<ImportCandidate>(Number.POSITIVE_INFINITY)
    const open = new Set<Pipe<Uint8Array>>()
    const collected: Array<ImportedEntry> = []
    const imported = (async () => {
      for await (const entry of importer(candidates, discard, importerOptions(settings))) {
        collected.push({ path: entry.path ?? "", cid: entry.cid, size: entry.size })
      }
      return collected
    })()
    // Settled by `entries` or abandoned when the upload fails; never an unhandled rejection.
    imported.catch(() => {})
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        const stopped = new Error("the upload stopped before its CIDs were computed")
        for (const pipe of open) pipe.fail(stopped)
        candidates.fail(stopped)
      })
    )

    // The file takes its place among the candidates now, whenever its content runs.
    const file = <E, R>(path: string, content: Stream.Stream<Uint8Array, E, R>) => {
      const chunks = new Pipe<Uint8Array>(1)
      open.add(chunks)
      void candidates.push({ path, content: chunks })
      return content.pipe(
        Stream.mapEffect((chunk) =>
          Effect.as(
            Effect.promise(() => chunks.push(chunk)),
            chunk
          )
        ),
        Stream.concat(
          Stream.fromEffectDrain(
            Effect.sync(() => {
              chunks.end()
              open.delete(chunks)
            })
          )
        )
      )
    }

    const directory = (path: string) => Effect.promise(() => candidates.push({ path }))

    const entries = Effect.suspend(() => {
      candidates.end()
      return Effect.promise(() => imported)
    })

    return { file, directory, entries }
  })

/** The CIDs of `files` (path and content each) imported with `settings`: every entry, the root last. */
export const cidsOf = <E, R>(
  files: ReadonlyArray<{ readonly path: string; readonly content: Stream.Stream<Uint8Array, E, R> }>,
  settings: AddSettings
): Effect.Effect<ReadonlyArray<ImportedEntry>, E, R> =>
  Effect.scoped(
    Effect.gen(function* () {
      const cids = yield* calculator(settings)
      for (const { path, content } of files) yield* Stream.runDrain(cids.file(path, content))
      return yield* cids.entries
    })
  )
