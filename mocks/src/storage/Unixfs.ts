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
import * as dagPb from "@ipld/dag-pb"
import { type ImportCandidate, type ImporterOptions, importer } from "ipfs-unixfs-importer"
import { balanced, type FileLayout, type Reducer } from "ipfs-unixfs-importer/layout"
import { Verify } from "lighthouse-effect"
import { CID } from "multiformats/cid"
import { sha256 } from "multiformats/hashes/sha2"
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

/**
 * `reduce` with each file node it builds written again with a `Data` field that is right for
 * every size: the importer's UnixFS writer leaves four bytes of a size from 2^31 to 2^32 − 1
 * unwritten, so a file of 2 GiB or more got a different CID on each import (docs/PROTOCOL.md,
 * "CIDs of files over 2 GiB"). The block it stored under the wrong CID stays, unreferenced.
 */
const rightSizes =
  (sink: BlockSink, settings: AddSettings, reduce: Reducer): Reducer =>
  async (leaves) => {
    const built = await reduce(leaves)
    // A file node the reducer built carries its block; a leaf handed back as it is has no sizes.
    const written = "block" in built && built.block instanceof Uint8Array ? built.block : undefined
    if (written === undefined || built.unixfs === undefined || built.unixfs.blockSizes.length === 0) return built
    const node = dagPb.decode(written)
    const block = dagPb.encode({ ...node, Data: Verify.fileNodeData(built.unixfs.blockSizes.map(Number)) })
    const cid = CID.create(settings.cidVersion, dagPb.code, await sha256.digest(block))
    await sink.put(cid, block)
    return { ...built, cid, block }
  }

/** Kubo's balanced layout over {@link rightSizes}' reducer. */
const fileLayout =
  (sink: BlockSink, settings: AddSettings): FileLayout =>
  (source, reduce) =>
    balanced()(source, rightSizes(sink, settings, reduce))

/** One entry of an add: a file, a directory, or the wrapping directory (path `""`). */
export type AddedEntry = Verify.ImportedEntry

/** Imports the candidates into `sink`; yields every file and directory entry, the root last. */
export async function* addAll(
  candidates: AsyncIterable<ImportCandidate> | Iterable<ImportCandidate>,
  sink: BlockSink,
  settings: AddSettings
): AsyncGenerator<AddedEntry> {
  const options = { ...importerOptions(settings), layout: fileLayout(sink, settings) }
  for await (const entry of importer(candidates, sink, options)) {
    yield { path: entry.path ?? "", cid: entry.cid, size: entry.size }
  }
}
