/**
 * The blocks held by the mock IPFS node, and how to read UnixFS content back out of them.
 *
 * The blocks live in a blockstore (`storage/Blocks.ts`): in memory, or on disk with
 * `blockstore-fs` when the network has a state directory. Blocks are keyed by multihash, as kubo's
 * blockstore does, so a CIDv0 and the CIDv1 of the same dag-pb block name the same content.
 * Uploads write through a `staging`: every block goes to the store as the importer makes it (an
 * upload is never held in memory), and a refused upload (quota, bad body) takes back the blocks
 * it brought in, so it leaves nothing behind.
 *
 * Reading walks the DAG lazily (`storage/Dag.ts`): file bytes come out block by block as the
 * reader pulls them, directories (plain and HAMT-sharded) list their entries, and paths resolve
 * through directories.
 */
import type { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"
import {
  type BlockStorage,
  type Blockstore,
  countBlocks,
  makeStager,
  memoryBlocks,
  readBlock,
  type StagedWrites,
  type Stager
} from "./Blocks.ts"
import {
  type Block,
  type DirectoryEntry,
  listDirectory,
  type NodeStat,
  NotAFile,
  NotUnixFs,
  readFile,
  resolvePath,
  statNode,
  walkDag
} from "./Dag.ts"

/**
 * Something the importer (and the CAR reader) can write blocks into. The bytes are the writer's
 * again once `put` resolves (the importer frees its leaves then): a sink keeps a copy, not them.
 */
export interface BlockSink {
  put(cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): CID | Promise<CID>
}

/** Checks that `bytes` hash to `cid` (sha2-256 and identity; other hashes are taken on trust). */
export const verifyBlock = async (cid: CID, bytes: Uint8Array): Promise<boolean> => {
  if (cid.multihash.code === sha256.code) {
    const digest = await sha256.digest(bytes)
    return equalBytes(digest.digest, cid.multihash.digest)
  }
  if (cid.multihash.code === identity.code) return equalBytes(cid.multihash.digest, bytes)
  return true
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i])

export class ContentStore {
  readonly #storage: BlockStorage
  readonly #stager: Stager

  constructor(storage: BlockStorage = memoryBlocks()) {
    this.#storage = storage
    this.#stager = makeStager(storage.blocks)
  }

  /** The blockstore itself (what the gateway and the importer speak). */
  get blocks(): Blockstore {
    return this.#storage.blocks
  }

  /** `memory`, or the blocks' directory. */
  get location(): string {
    return this.#storage.location
  }

  /** How many blocks are stored (walks the store). */
  blockCount(): Promise<number> {
    return countBlocks(this.#storage.blocks)
  }

  async put(cid: CID, bytes: Uint8Array): Promise<void> {
    await this.#storage.blocks.put(cid, bytes)
  }

  async has(cid: CID): Promise<boolean> {
    return this.#storage.blocks.has(cid)
  }

  get(cid: CID): Promise<Uint8Array> {
    return readBlock(this.#storage.blocks, cid)
  }

  clear(): void {
    this.#storage.clear()
  }

  /** Writes of one upload, taken back by `discard` unless `commit`ted. */
  staging(): StagedWrites {
    return this.#stager.stage()
  }

  /** What `cid` is: a UnixFS file (or raw block), a directory, or another IPLD node. */
  stat(cid: CID): Promise<NodeStat> {
    return statNode(this.#storage.blocks, cid)
  }

  /** The entries of a directory, HAMT shards flattened, in link order. */
  list(cid: CID): Promise<ReadonlyArray<DirectoryEntry>> {
    return listDirectory(this.#storage.blocks, cid)
  }

  /** Follows `path` (segments) through directories from `root`. */
  async resolve(root: CID, path: ReadonlyArray<string>): Promise<CID> {
    return (await resolvePath(this.#storage.blocks, root, path)).cid
  }

  /** The bytes `[start, end)` of a UnixFS file (or raw block), block by block as they are pulled. */
  async cat(cid: CID, start?: number, end?: number): Promise<AsyncGenerator<Uint8Array>> {
    const stat = await this.stat(cid)
    if (stat.type === "directory") throw new NotAFile(cid.toString())
    if (stat.type === "other") throw new NotUnixFs(cid.toString(), stat.codec)
    return readFile(this.#storage.blocks, cid, start, end)
  }

  /** Every block of the DAG under `root`, depth first, each once. */
  walk(root: CID): AsyncGenerator<Block> {
    return walkDag(this.#storage.blocks, root)
  }
}
