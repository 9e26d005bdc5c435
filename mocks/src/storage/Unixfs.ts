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
import { importer, type ImportCandidate } from "ipfs-unixfs-importer"
import { Verify } from "lighthouse-effect"
import type { BlockSink } from "./ContentStore.ts"

/** The `add` query's settings (the client computes its CIDs with the same ones). */
export type AddSettings = Verify.AddSettings

/** The importer options of kubo's `ipfs add` for the settings. */
export const importerOptions = Verify.importerOptions

/** One entry of an add: a file, a directory, or the wrapping directory (path `""`). */
export type AddedEntry = Verify.ImportedEntry

/** Imports the candidates into `sink`; yields every file and directory entry, the root last. */
export async function* addAll(
  candidates: AsyncIterable<ImportCandidate> | Iterable<ImportCandidate>,
  sink: BlockSink,
  settings: AddSettings
): AsyncGenerator<AddedEntry> {
  for await (const entry of importer(candidates, sink, Verify.importerOptions(settings))) {
    yield { path: entry.path ?? "", cid: entry.cid, size: entry.size }
  }
}
