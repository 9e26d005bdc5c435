/**
 * UnixFS import with the settings of kubo's `ipfs add`, so the mock node answers the CIDs a real
 * IPFS node would for the same bytes and options.
 *
 * Kubo's defaults are ipfs-unixfs-importer's `unixfs-v0-2015` profile: 256 KiB fixed-size chunks,
 * balanced layout with at most 174 links per node, links-first dag-pb fields and HAMT sharding
 * decided by the links-bytes estimate. `--cid-version=1` keeps that layout and turns raw leaves on
 * (so a file of one chunk is a single `raw` block); `--raw-leaves` can override it.
 *
 * Files are imported one at a time (`fileImportConcurrency: 1`) because their bytes come from one
 * multipart stream, in order.
 */
import { type ImportCandidate, type ImporterOptions, importer } from "ipfs-unixfs-importer"
import type { CID } from "multiformats/cid"
import type { BlockSink } from "./ContentStore.ts"

export interface AddSettings {
  readonly cidVersion: 0 | 1
  /** Default: `cidVersion === 1`, as kubo. */
  readonly rawLeaves?: boolean
  readonly wrapWithDirectory?: boolean
}

/** One entry of an add: a file, a directory, or the wrapping directory (path `""`). */
export interface AddedEntry {
  readonly path: string
  readonly cid: CID
  /** Cumulative size of the DAG (what kubo reports as `Size`). */
  readonly size: bigint
}

export const importerOptions = (settings: AddSettings): ImporterOptions => ({
  profile: "unixfs-v0-2015",
  cidVersion: settings.cidVersion,
  rawLeaves: settings.rawLeaves ?? settings.cidVersion === 1,
  wrapWithDirectory: settings.wrapWithDirectory ?? false,
  fileImportConcurrency: 1
})

/** Imports the candidates into `sink`; yields every file and directory entry, the root last. */
export async function* addAll(
  candidates: AsyncIterable<ImportCandidate> | Iterable<ImportCandidate>,
  sink: BlockSink,
  settings: AddSettings
): AsyncGenerator<AddedEntry> {
  for await (const entry of importer(candidates, sink, importerOptions(settings))) {
    yield { path: entry.path ?? "", cid: entry.cid, size: entry.size }
  }
}
