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
import type { Verify } from "lighthouse-effect"
import type { BlockSink } from "./ContentStore.ts"

/** The `add` query's settings (the client computes its CIDs with the same ones). */
export type AddSettings = Verify.AddSettings

/**
 * The importer options of kubo's `ipfs add` for the settings. The client lays its DAGs out with a
 * builder of its own; the node keeps the importer, so each checks the other.
 */
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

/** One entry of an add: a file, a directory, or the wrapping directory (path `""`). */
export type AddedEntry = Verify.ImportedEntry

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
