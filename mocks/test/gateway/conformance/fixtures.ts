/**
 * The gateway conformance suite's fixture CARs (mocks/test/fixtures/conformance/, see its README),
 * read the way the suite's `car.MustOpenUnixfsCar` reads them: the CID at a path (through UnixFS
 * directories, single-layer HAMT shards and DAG-CBOR fields), a node's descendants depth first,
 * and the blocks of a CAR answer.
 */
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { CarBlockIterator, CarReader } from "@ipld/car"
import * as dagCbor from "@ipld/dag-cbor"
import * as dagPb from "@ipld/dag-pb"
import { CID } from "multiformats/cid"

const directory = join(import.meta.dirname, "..", "..", "fixtures", "conformance")

/** A CID as the suite compares blocks: CIDv1, so a CIDv0 and its CIDv1 are one block. */
export const normal = (cid: CID | string): string => (typeof cid === "string" ? CID.parse(cid) : cid).toV1().toString()

/** A fixture file's bytes, as a plain `Uint8Array` (not a `Buffer`) so that they compare with answers. */
export const fixtureBytes = async (name: string): Promise<Uint8Array> =>
  new Uint8Array(await readFile(join(directory, name)))

export interface Fixture {
  readonly bytes: Uint8Array
  /** The CID at `path` from the CAR's root. */
  readonly cid: (...path: ReadonlyArray<string>) => CID
  /** The blocks under the node at `path`, depth first, the node itself excluded. */
  readonly descendants: (...path: ReadonlyArray<string>) => ReadonlyArray<string>
  /** The raw bytes of the block at `path`. */
  readonly block: (...path: ReadonlyArray<string>) => Uint8Array
  /** The root HAMT's sub-shards, depth first (the suite's `MustGetCidsInHAMT`). */
  readonly hamtShards: () => ReadonlyArray<string>
  /** The sub-shards crossed to the root HAMT's entry `name` (`MustGetCIDsInHAMTTraversal`). */
  readonly hamtTraversal: (name: string) => ReadonlyArray<string>
}

const pbLinks = (bytes: Uint8Array) => dagPb.decode(bytes).Links

export const openFixture = async (name: string): Promise<Fixture> => {
  const bytes = await fixtureBytes(name)
  const reader = await CarReader.fromBytes(bytes)
  const blocks = new Map<string, Uint8Array>()
  for await (const block of reader.blocks()) blocks.set(normal(block.cid), new Uint8Array(block.bytes))
  const [root] = await reader.getRoots()
  const read = (cid: CID) => {
    const found = blocks.get(normal(cid))
    if (found === undefined) throw new Error(`${name} lacks block ${cid}`)
    return found
  }
  // One step: the link a UnixFS entry names, or the link at the end of fields inside a DAG-CBOR
  // block; returns the segments it consumed.
  const step = (parent: CID, path: ReadonlyArray<string>): [CID, number] => {
    if (parent.code === dagCbor.code) return cborLink(dagCbor.decode(read(parent)), path, parent)
    const link = pbLinks(read(parent)).find((l) => l.Name === path[0])
    if (link !== undefined) return [link.Hash, 1]
    const found = hamtEntry(parent, path[0]!)
    if (found === undefined) throw new Error(`${parent} has no link ${path[0]}`)
    return [found.cid, 1]
  }
  // A HAMT shard names a sub-shard with two hex digits of hash, an entry with them before its name.
  const subShards = (shard: CID) => pbLinks(read(shard)).filter((link) => link.Name?.length === 2)
  const hamtEntry = (shard: CID, name: string): { cid: CID; shards: ReadonlyArray<string> } | undefined => {
    const entry = pbLinks(read(shard)).find((link) => (link.Name?.length ?? 0) > 2 && link.Name!.slice(2) === name)
    if (entry !== undefined) return { cid: entry.Hash, shards: [] }
    for (const sub of subShards(shard)) {
      const found = hamtEntry(sub.Hash, name)
      if (found !== undefined) return { cid: found.cid, shards: [sub.Hash.toString(), ...found.shards] }
    }
    return undefined
  }
  const shardsUnder = (shard: CID): ReadonlyArray<string> =>
    subShards(shard).flatMap((sub) => [sub.Hash.toString(), ...shardsUnder(sub.Hash)])
  const cid = (...path: ReadonlyArray<string>): CID => {
    let at = root!
    for (let rest = path; rest.length > 0; ) {
      const [next, used] = step(at, rest)
      at = next
      rest = rest.slice(used)
    }
    return at
  }
  const descendantsOf = (of: CID): ReadonlyArray<string> =>
    of.code !== dagPb.code || !blocks.has(normal(of))
      ? []
      : pbLinks(read(of)).flatMap((link) => [link.Hash.toString(), ...descendantsOf(link.Hash)])
  return {
    bytes,
    cid,
    descendants: (...path) => descendantsOf(cid(...path)),
    block: (...path) => read(cid(...path)),
    hamtShards: () => shardsUnder(root!),
    hamtTraversal: (name) => hamtEntry(root!, name)?.shards ?? []
  }
}

/** The first link down `path` inside a DAG-CBOR value, with how many segments led to it. */
const cborLink = (value: unknown, path: ReadonlyArray<string>, at: CID, used = 0): [CID, number] => {
  const next = path[used] === undefined ? undefined : (value as Record<string, unknown>)[path[used]!]
  const link = CID.asCID(next)
  if (link !== null) return [link, used + 1]
  if (typeof next === "object" && next !== null) return cborLink(next, path, at, used + 1)
  throw new Error(`${at} has no link at ${path.join("/")}`)
}

/** The CIDs of a CAR answer's blocks, in order, normalised. */
export const carBlockCids = async (response: Response): Promise<ReadonlyArray<string>> => {
  const iterator = await CarBlockIterator.fromBytes(new Uint8Array(await response.arrayBuffer()))
  const cids: Array<string> = []
  for await (const block of iterator) cids.push(normal(block.cid))
  return cids
}
