/**
 * A small CAR file built on the spot, as a user would prepare one for `Upload.car`: the files are
 * imported into UnixFS (ipfs-unixfs-importer, CID v1, wrapped in a directory so each file keeps
 * its name) and the blocks written under the directory's root with @ipld/car.
 *
 * @since 0.1.0
 */
import { writeFile } from "node:fs/promises"
import { CarWriter } from "@ipld/car"
import { importer } from "ipfs-unixfs-importer"
import type { CID } from "multiformats/cid"

export interface CarFile {
  /** Where the CAR was written. */
  readonly path: string
  /** The directory's CID: the CAR's only root. */
  readonly root: string
  readonly size: number
}

/** Writes a CAR of `files` (path → content) to `path`. */
export const writeCar = async (path: string, files: Readonly<Record<string, Uint8Array>>): Promise<CarFile> => {
  const blocks: Array<{ cid: CID; bytes: Uint8Array }> = []
  // The importer's blockstore only needs `put`.
  const blockstore = {
    put: async (cid: CID, bytes: Uint8Array) => {
      blocks.push({ cid, bytes })
      return cid
    }
  }
  const candidates = Object.entries(files).map(([name, content]) => ({ path: name, content }))
  let root: CID | undefined
  for await (const entry of importer(candidates, blockstore as never, {
    cidVersion: 1,
    rawLeaves: true,
    wrapWithDirectory: true
  })) {
    root = entry.cid
  }
  if (root === undefined) throw new Error("the importer produced no root")

  const { writer, out } = CarWriter.create([root])
  const chunks: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const chunk of out) chunks.push(chunk)
  })()
  for (const block of blocks) await writer.put(block)
  await writer.close()
  await collected
  const bytes = Buffer.concat(chunks)
  await writeFile(path, bytes)
  return { path, root: root.toString(), size: bytes.length }
}
