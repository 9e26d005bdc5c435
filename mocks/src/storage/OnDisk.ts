/**
 * A network's blocks and state under one directory (Node only): `blocks/` in Helia's
 * `blockstore-fs` layout and `state.sqlite`. Opening is synchronous, so `startMockNetwork` can be
 * on disk as at once as in memory; the directory is created when missing.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { BlockStorage } from "./Blocks.ts"
import { diskBlocks } from "./DiskBlocks.ts"
import { loadSqlite, openSqliteState } from "./SqliteState.ts"
import type { StateStore } from "./State.ts"

export interface DiskStorage {
  readonly blocks: BlockStorage
  readonly state: StateStore
}

/** The storage under `stateDir`; `UnsupportedNode` (and no directory made) on a Node without `node:sqlite`. */
export const openNetworkStorage = (stateDir: string): DiskStorage => {
  const sqlite = loadSqlite()
  mkdirSync(stateDir, { recursive: true })
  return {
    blocks: diskBlocks(join(stateDir, "blocks")),
    state: openSqliteState(join(stateDir, "state.sqlite"), sqlite)
  }
}
