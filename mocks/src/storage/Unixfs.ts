/**
 * UnixFS import with the settings of kubo's `ipfs add`, so the mock node answers the CIDs a real
 * IPFS node would for the same bytes and options.
 *
 * Kubo's defaults are ipfs-unixfs-importer's `unixfs-v0-2015` profile: 256 KiB fixed-size chunks,
 * balanced layout with at most 174 links per node, links-first dag-pb fields and HAMT sharding
 * decided by the links-bytes estimate. `--cid-version=1` keeps that layout and turns raw leaves on
 * (so a file of one chunk is a single `raw` block); `--raw-leaves` can override it. A request
 * that states IPIP-499's `unixfs-v1-2025` layout (1 MiB chunks, 1024 links) is imported with that
 * profile: raw leaves unless told otherwise, and folders sharded by their block size.
 *
 * Files are imported one at a time (`fileImportConcurrency: 1`) because their bytes come from one
 * multipart stream, in order.
 *
 * The leaves are made here, as the importer would make them (same chunks, same blocks, same
 * CIDs), so that their memory is given back as soon as they are written (`Release.ts`): the
 * chunker copies every piece of content into its leaf as it comes (a piece is done with once the
 * next is asked for, and an upload's body chunks can be freed as they are read), and each leaf is
 * freed once its block is stored. A leaf handed on to its parent keeps its size, not its bytes.
 */
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import {
  type BufferImporter,
  type BufferImporterResult,
  type File,
  type ImportCandidate,
  type ImporterOptions,
  importer,
  type WritableStorage
} from "ipfs-unixfs-importer"
import type { Chunker } from "ipfs-unixfs-importer/chunker"
import { balanced, type FileLayout, type Reducer } from "ipfs-unixfs-importer/layout"
import { OwnedBytes, Verify } from "lighthouse-effect"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import type { BlockSink } from "./ContentStore.ts"

/** The `add` query's settings (the client computes its CIDs with the same ones). */
export type AddSettings = Verify.AddSettings

/** The profile's chunk size and links per file node. */
const shapeOf = (settings: AddSettings) => Verify.profileShape[settings.profile ?? "unixfs-v0-2015"]

/** Whether leaves are raw blocks: as the request says, else the profile's default for the CID version. */
const rawLeavesOf = (settings: AddSettings): boolean =>
  settings.rawLeaves ?? shapeOf(settings).rawLeavesByDefault(settings.cidVersion)

/**
 * The importer options of kubo's `ipfs add` for the settings. The client lays its DAGs out with a
 * builder of its own; the node keeps the importer, so each checks the other.
 */
export const importerOptions = (settings: AddSettings): ImporterOptions => ({
  profile: settings.profile ?? "unixfs-v0-2015",
  cidVersion: settings.cidVersion,
  rawLeaves: rawLeavesOf(settings),
  wrapWithDirectory: settings.wrapWithDirectory ?? false,
  // Files arrive one after the other in one request body.
  fileImportConcurrency: 1,
  // Bounds the leaves in flight (a chunk each); CIDs do not depend on it.
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

/** The balanced layout of the profile's width over {@link rightSizes}' reducer. */
const fileLayout =
  (sink: BlockSink, settings: AddSettings): FileLayout =>
  (source, reduce) =>
    balanced({ maxChildrenPerNode: shapeOf(settings).maxChildren })(source, rightSizes(sink, settings, reduce))

/**
 * The importer's fixed-size chunks (`chunkBytes` each, the last shorter; one empty chunk for an
 * empty file), each a buffer of its own that every piece of content is copied into as it comes.
 */
const copyingChunker = (chunkBytes: number): Chunker =>
  async function* (source) {
    let leaf: Uint8Array | undefined
    let filled = 0
    let emitted = false
    for await (const piece of source) {
      for (let offset = 0; offset < piece.byteLength; ) {
        leaf ??= new Uint8Array(chunkBytes)
        const length = Math.min(chunkBytes - filled, piece.byteLength - offset)
        leaf.set(piece.subarray(offset, offset + length), filled)
        filled += length
        offset += length
        if (filled === chunkBytes) {
          yield leaf
          emitted = true
          leaf = undefined
          filled = 0
        }
      }
    }
    if (leaf !== undefined) {
      const last = leaf.slice(0, filled)
      OwnedBytes.freeBytes(leaf)
      yield last
    } else if (!emitted) yield new Uint8Array()
  }

/** A leaf as the importer's buffer importer makes it: its block, CID and, for a dag-pb leaf, UnixFS. */
const leafBlock = async (leaf: Uint8Array, settings: AddSettings) => {
  if (rawLeavesOf(settings)) {
    return { block: leaf, cid: CID.createV1(raw.code, await sha256.digest(leaf)), unixfs: undefined }
  }
  const unixfs = new UnixFS({ type: "file", data: leaf })
  const data = unixfs.marshal()
  const block = dagPb.encode({ Data: data, Links: [] })
  OwnedBytes.freeBytes(data)
  return { block, cid: CID.create(settings.cidVersion, dagPb.code, await sha256.digest(block)), unixfs }
}

/**
 * The importer's buffer importer, but each leaf freed once stored. What the parent needs of a
 * dag-pb leaf is its size: it gets a UnixFS with that size and no data, which the parent counts
 * alike, so the 174 leaves a parent waits for do not hold 174 × 256 KiB. A file with `mtime` or
 * `mode` gets the importer's results whole: a one-leaf such file is rebuilt from its leaf's block.
 */
const freeingBufferImporter = (settings: AddSettings): BufferImporter =>
  async function* (file: File, sink: WritableStorage) {
    const keep = file.mtime !== undefined || file.mode !== undefined
    for await (const leaf of file.content) {
      yield async (): Promise<BufferImporterResult> => {
        const { block, cid, unixfs } = await leafBlock(leaf, settings)
        await sink.put(cid, block)
        const size = BigInt(block.byteLength)
        if (keep) return { cid, size, block, ...(unixfs === undefined ? {} : { unixfs }) }
        const dataBytes = BigInt(leaf.byteLength)
        OwnedBytes.freeBytes(leaf)
        OwnedBytes.freeBytes(block)
        // Nothing reads a leaf's block again unless its file has metadata (kept above): it reads empty.
        if (unixfs === undefined) return { cid, size, block }
        return { cid, size, block, unixfs: new UnixFS({ type: "file", blockSizes: [dataBytes] }) }
      }
    }
  }

/** One entry of an add: a file, a directory, or the wrapping directory (path `""`). */
export type AddedEntry = Verify.ImportedEntry

/**
 * Imports the candidates into `sink`; yields every file and directory entry, the root last. A
 * leaf's bytes are freed once `sink.put` resolves: a sink writes them out or keeps a copy. The
 * candidates' own bytes are only read.
 */
export async function* addAll(
  candidates: AsyncIterable<ImportCandidate> | Iterable<ImportCandidate>,
  sink: BlockSink,
  settings: AddSettings
): AsyncGenerator<AddedEntry> {
  const options = {
    ...importerOptions(settings),
    layout: fileLayout(sink, settings),
    chunker: copyingChunker(shapeOf(settings).chunkSize),
    bufferImporter: freeingBufferImporter(settings)
  }
  for await (const entry of importer(candidates, sink, options)) {
    yield { path: entry.path ?? "", cid: entry.cid, size: entry.size }
  }
}
