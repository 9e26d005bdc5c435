/**
 * Blocks on disk with `blockstore-fs` (Node only; the browser build of the local network keeps them
 * in memory): Helia's layout, one file per block, written to a temporary file and renamed into
 * place, so after a crash a block file is either whole or absent.
 */
import { mkdirSync, rmSync } from "node:fs"
import { readFile, stat } from "node:fs/promises"
import { join } from "node:path"
import { FsBlockstore } from "blockstore-fs"
import { NextToLast } from "blockstore-fs/sharding"
import { NotFoundError } from "interface-store"
import type { CID } from "multiformats/cid"
import { type BlockStorage, type Blockstore, type SizedBlockstore, SizedIdentityBlockstore } from "./Blocks.ts"
import { markFreshReads } from "./Release.ts"

/** `blockstore-fs` that reads a block in one piece, and tells its length from its file's without opening it. */
class SizedFsBlockstore extends FsBlockstore implements SizedBlockstore {
  // The store's own layout (its default), kept here to find a block's file.
  readonly #layout: NextToLast

  constructor(directory: string) {
    const layout = new NextToLast()
    super(directory, { shardingStrategy: layout })
    this.#layout = layout
  }

  #file(cid: CID): string {
    const { dir, file } = this.#layout.encode(cid)
    return join(this.path, dir, file)
  }

  // One read into one buffer of the block's length (`blockstore-fs` reads 64 KiB pieces, each a
  // fresh buffer, that `readBlock` then joins: twice the memory for the collector to reclaim).
  override async *get(cid: CID, options?: { readonly signal?: AbortSignal }): AsyncGenerator<Uint8Array> {
    let bytes: Uint8Array
    try {
      bytes = await readFile(this.#file(cid), { signal: options?.signal })
    } catch (error) {
      throw new NotFoundError(String(error))
    }
    yield bytes
  }

  async size(cid: CID): Promise<number> {
    try {
      return (await stat(this.#file(cid))).size
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError(`block not found: ${cid}`)
      throw error
    }
  }
}

/**
 * Blocks in files under `directory` (created when missing), kept across restarts. Synchronous, so
 * a network can be created on disk as at once as in memory.
 */
export const diskBlocks = (directory: string): BlockStorage => {
  mkdirSync(directory, { recursive: true })
  return {
    blocks: markFreshReads(new SizedIdentityBlockstore(new SizedFsBlockstore(directory))),
    clear: () => {
      rmSync(directory, { recursive: true, force: true })
      mkdirSync(directory, { recursive: true })
    },
    location: directory
  }
}

/** `diskBlocks`, as a blockstore alone. */
export const openDiskBlockstore = async (directory: string): Promise<Blockstore> => diskBlocks(directory).blocks
