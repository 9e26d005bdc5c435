/**
 * Content paths that continue inside a DAG-CBOR or DAG-JSON block. The trustless gateway resolves
 * `/ipfs/{cbor-cid}/files/single` through the block's data model: `files` is a map inside the block,
 * `single` a link in it (https://specs.ipfs.tech/http-gateways/path-gateway/, "IPLD data model
 * pathing"). The store's `resolvePath` follows one link per segment, so the segments that name
 * fields inside such a block are resolved here, together, by the exporter's DAG-CBOR/DAG-JSON
 * resolver; UnixFS segments go to `resolvePath` as before. A path that ends on a value inside a
 * block (a map, a string) resolves to that block: it is the smallest verifiable unit holding it.
 */
import { walkPath } from "ipfs-unixfs-exporter"
import type { CID } from "multiformats/cid"
import { type Blockstore, ContentNotFound } from "../storage/Blocks.ts"
import { type Resolution, resolvePath } from "../storage/Dag.ts"

const dagCbor = 0x71
const dagJson = 0x0129

// What the exporter's walker throws for a field the block does not have, or a block it lacks.
const pathErrors = new Set(["NotFoundError", "BadPathError", "NoResolverError"])

/**
 * From a DAG-CBOR/DAG-JSON block, the blocks crossed by `segments` and the segments left over once
 * a link leaves the block; `undefined` when the block has no such field.
 */
const withinBlock = async (
  store: Blockstore,
  block: CID,
  segments: ReadonlyArray<string>
): Promise<{ readonly next: CID | undefined; readonly rest: ReadonlyArray<string> } | undefined> => {
  try {
    for await (const entry of walkPath(`${block}/${segments.join("/")}`, store)) {
      // The walker yields the block itself first, then the node its first link crossed leads to.
      if (!entry.cid.equals(block)) return { next: entry.cid, rest: entry.remainder ?? [] }
    }
  } catch (error) {
    if (error instanceof Error && pathErrors.has(error.name)) return undefined
    throw error
  }
  return { next: undefined, rest: [] }
}

/** `segments` resolved from `root`, through UnixFS directories and DAG-CBOR/DAG-JSON fields alike. */
export const resolveContentPath = async (
  store: Blockstore,
  root: CID,
  segments: ReadonlyArray<string>
): Promise<Resolution> => {
  const wanted = segments.filter((segment) => segment !== "")
  const notFound = () => new ContentNotFound(`${root}/${wanted.join("/")}`, "path")
  const crossed: Array<CID> = [root]
  let rest: ReadonlyArray<string> = wanted
  while (rest.length > 0) {
    const current = crossed.at(-1)!
    if (current.code === dagCbor || current.code === dagJson) {
      const step = await withinBlock(store, current, rest)
      if (step === undefined) throw notFound()
      if (step.next !== undefined) crossed.push(step.next)
      rest = step.rest
      continue
    }
    const [segment, ...after] = rest
    const next = await resolvePath(store, current, [segment!]).catch((error: unknown) => {
      throw error instanceof ContentNotFound ? notFound() : error
    })
    crossed.push(...next.crossed.slice(1))
    rest = after
  }
  return { cid: crossed.at(-1)!, crossed }
}
