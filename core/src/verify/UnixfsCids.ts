/**
 * The CIDs an upload will have, computed from its bytes on their way to the node.
 *
 * The upload node imports with the layout the `add` request states: by default kubo's `ipfs add`
 * settings, the `unixfs-v0-2015` profile (256 KiB fixed-size chunks, balanced layout of at most
 * 174 links per node, links-first dag-pb fields, HAMT sharding by the links-bytes estimate), where
 * `cid-version=1` turns raw leaves on unless `raw-leaves` says otherwise; or IPIP-499's
 * `unixfs-v1-2025` (1 MiB chunks, 1024 links, raw leaves, sharding by the block-bytes size). The
 * builder of `../unixfs/` lays the DAG out the same way as the bytes pass: each leaf is hashed once
 * full and only the CIDs remain. Memory stays constant: a file holds one leaf being filled and the
 * links of its unfinished nodes.
 *
 * @since 0.1.0
 */

import * as dagPb from "@ipld/dag-pb"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { leafWorker } from "#leaf-worker"
import { encodeData } from "../unixfs/Data.ts"
import { type FileDag, finish, newFileDag, write } from "../unixfs/FileDag.ts"
import { andThen, dagPbCidOf, type Pending } from "../unixfs/Hashing.ts"
import { type Layout, type Profile, profileLayout } from "../unixfs/Layout.ts"
import { type Built, normalPath, treeEntries } from "../unixfs/Tree.ts"

/** The node's import settings, as the `add` request's query gives them. */
export interface AddSettings {
  readonly cidVersion: 0 | 1
  /** @default `cidVersion === 1` under `unixfs-v0-2015`, as kubo; `true` under `unixfs-v1-2025` */
  readonly rawLeaves?: boolean | undefined
  readonly wrapWithDirectory?: boolean | undefined
  /** The chunk size, links per file node and folder sharding. @default "unixfs-v0-2015" */
  readonly profile?: Profile | undefined
}

/** One imported entry: a file, a directory, or the wrapping directory (path `""`). */
export interface ImportedEntry {
  readonly path: string
  readonly cid: CID
  /** Cumulative size of the DAG (kubo's `Size`). */
  readonly size: bigint
}

/** Computes the CIDs of an upload from the files passed through it, in order. */
export interface CidCalculator {
  /**
   * `content` unchanged; each chunk goes to the file's DAG as it passes. Entries take their place
   * in the order of the calls, so a file's content may run before an earlier one's has finished.
   */
  readonly file: <E, R>(path: string, content: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Uint8Array, E, R>
  /** An empty directory at `path`. */
  readonly directory: (path: string) => Effect.Effect<void>
  /** Every entry (files, directories, the root last), once all files have passed. */
  readonly entries: Effect.Effect<ReadonlyArray<ImportedEntry>>
}

/** An entry of the upload as it was added: a file (built once its content has passed) or a folder. */
interface Added {
  readonly originalPath: string
  built: Built | undefined
}

/** UnixFS's default modes (`0644` and `0755`), which the nodes built here take. */
const FILE_MODE = 0o644
const DIRECTORY_MODE = 0o755

/** Feeds `chunks` from `from` on to `dag`, waiting only where a block was hashed asynchronously. */
const feed = (dag: FileDag, chunks: ReadonlyArray<Uint8Array>, from: number): Pending<void> => {
  for (let index = from; index < chunks.length; index++) {
    const written = write(dag, chunks[index]!)
    if (written instanceof Promise) return written.then(() => feed(dag, chunks, index + 1))
  }
  return undefined
}

/** The empty folder `path` as the importer builds it: a UnixFS `directory` node without links. */
const emptyFolder = (path: string, layout: Layout): Pending<Built> => {
  const block = dagPb.encode(dagPb.prepare({ Data: encodeData({ type: "directory" }) }))
  return andThen(dagPbCidOf(layout, block), (cid) => ({
    path: normalPath(path),
    cid,
    size: BigInt(block.length),
    directory: true,
    mode: DIRECTORY_MODE
  }))
}

/** `content`, building `added`'s file DAG as it passes. */
const building = <E, R>(added: Added, dag: FileDag, content: Stream.Stream<Uint8Array, E, R>) =>
  content.pipe(
    Stream.mapArrayEffect((chunks) => {
      const written = feed(dag, chunks, 0)
      return written === undefined
        ? Effect.succeed(chunks)
        : Effect.as(
            Effect.promise(() => written),
            chunks
          )
    }),
    Stream.concat(
      Stream.fromEffectDrain(
        Effect.promise(async () => {
          const root = await finish(dag)
          added.built = {
            path: normalPath(added.originalPath),
            cid: root.cid,
            size: BigInt(root.size),
            directory: false,
            // A file of one raw leaf has no UnixFS node, so no mode.
            mode: root.cid.code === raw.code ? undefined : FILE_MODE
          }
        })
      )
    )
  )

/** Every entry of the upload, once each file's content has passed to its end. */
const entriesOf = (added: ReadonlyArray<Added>, layout: Layout): Effect.Effect<ReadonlyArray<ImportedEntry>> =>
  Effect.suspend(() => {
    const unfinished = added.find((entry) => entry.built === undefined)
    if (unfinished !== undefined) {
      return Effect.die(new Error(`the content of ${unfinished.originalPath} did not pass to its end`))
    }
    const built = added.flatMap(({ originalPath, built }) => (built === undefined ? [] : [{ originalPath, built }]))
    return Effect.promise(() => treeEntries(built, layout))
  })

/**
 * A calculator for one upload. On Node with a second core idle, the leaves of a file past its first
 * 16 MiB are hashed on a worker thread, started by the first such leaf and ended with `scope`;
 * elsewhere, and for smaller files, every block is hashed here. The CIDs are the same either way.
 *
 * @category constructors
 */
export const calculator = (settings: AddSettings): Effect.Effect<CidCalculator, never, Scope.Scope> =>
  Effect.suspend(() => {
    const layout = profileLayout(settings)
    return Effect.map(leafWorker({ leafBytes: layout.chunkSize }), (leafHashing) =>
      calculatorWith({ ...layout, leafHashing })
    )
  })

/**
 * A calculator for any `layout` (tests compare small leaves and fan-outs with the importer's).
 *
 * @internal
 */
export const calculatorWith = (layout: Layout): CidCalculator => {
  const added: Array<Added> = []
  const file = <E, R>(path: string, content: Stream.Stream<Uint8Array, E, R>) => {
    const entry: Added = { originalPath: path, built: undefined }
    added.push(entry)
    return building(entry, newFileDag(layout), content)
  }
  const directory = (path: string) =>
    Effect.promise(async () => {
      const entry: Added = { originalPath: path, built: undefined }
      added.push(entry)
      entry.built = await emptyFolder(path, layout)
    })
  return { file, directory, entries: entriesOf(added, layout) }
}

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
