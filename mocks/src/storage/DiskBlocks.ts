/**
 * Blocks on disk with `blockstore-fs` (Node only; the browser build of the local network keeps them
 * in memory): Helia's layout, one file per block, written to a temporary file and renamed into
 * place, so after a crash a block file is either whole or absent.
 */
import { IdentityBlockstore } from "blockstore-core/identity"
import { FsBlockstore } from "blockstore-fs"
import type { Blockstore } from "./Blocks.ts"

/** Blocks in files under `directory` (created when missing), kept across restarts. */
export const openDiskBlockstore = async (directory: string): Promise<Blockstore> => {
  const disk = new FsBlockstore(directory)
  await disk.open()
  return new IdentityBlockstore(disk)
}
