/**
 * Blocks on disk with `blockstore-fs` (Node only; the browser build of the local network keeps them
 * in memory): Helia's layout, one file per block, written to a temporary file and renamed into
 * place, so after a crash a block file is either whole or absent.
 */
import { mkdirSync, rmSync } from "node:fs"
import { IdentityBlockstore } from "blockstore-core/identity"
import { FsBlockstore } from "blockstore-fs"
import type { Blockstore, BlockStorage } from "./Blocks.ts"

/**
 * Blocks in files under `directory` (created when missing), kept across restarts. Synchronous, so
 * a network can be created on disk as at once as in memory.
 */
export const diskBlocks = (directory: string): BlockStorage => {
  mkdirSync(directory, { recursive: true })
  return {
    blocks: new IdentityBlockstore(new FsBlockstore(directory)),
    clear: () => {
      rmSync(directory, { recursive: true, force: true })
      mkdirSync(directory, { recursive: true })
    },
    location: directory
  }
}

/** `diskBlocks`, as a blockstore alone. */
export const openDiskBlockstore = async (directory: string): Promise<Blockstore> => diskBlocks(directory).blocks
