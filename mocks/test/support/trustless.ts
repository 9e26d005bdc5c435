/**
 * The gateway's trustless answers: content as a CAR or as raw blocks, so clients can check every
 * block against the CID they asked for.
 *
 * `GET /ipfs/{cid}[/path]?format=car` (or `Accept: application/vnd.ipld.car`) answers a CARv1
 * rooted at `{cid}` holding, depth first (`order=dfs`), the blocks that resolve the path and then
 * the blocks of the entity at its end: a file's whole DAG, or with `entity-bytes=from:to` (`to`
 * inclusive or `*`, negative `from`/`to` counting from the end) only the blocks holding that
 * range; a directory's own node(s). Repeated blocks are sent each time (`dups=y`) unless the
 * `Accept` header asks `dups=n`. `?format=raw` (or `Accept: application/vnd.ipld.raw`) answers
 * the one block `{cid}`.
 *
 * Blocks are read from the store one at a time as the answer streams, so a large file is never
 * held whole.
 */
import { CarWriter } from "@ipld/car"
import { blockLength, headerLength } from "@ipld/car/buffer-writer"
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import { varint } from "multiformats"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"

export interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

/** Where the blocks come from. */
export type GetBlock = (cid: CID) => Uint8Array

export type TrustlessFormat = "car" | "raw"

/** The format a request asks for, from `?format=` or the `Accept` header; `undefined` for neither. */
export const trustlessFormat = (request: Request): TrustlessFormat | undefined => {
  const format = new URL(request.url).searchParams.get("format")
  if (format === "car" || format === "raw") return format
  const accept = (request.headers.get("accept") ?? "").toLowerCase()
  if (accept.includes("application/vnd.ipld.car")) return "car"
  if (accept.includes("application/vnd.ipld.raw")) return "raw"
  return undefined
}

/** Whether the client asked for repeated blocks to be sent once (`dups=n` in `Accept`). */
export const wantsNoDuplicates = (request: Request): boolean =>
  /application\/vnd\.ipld\.car[^,]*dups=n/i.test(request.headers.get("accept") ?? "")

/** `[from, to)` of an `entity-bytes` value for a file of `size` bytes; `undefined` when malformed. */
export const entityRange = (value: string | null, size: number): { from: number; to: number } | undefined => {
  if (value === null) return { from: 0, to: size }
  const match = /^(-?\d+):(-?\d+|\*)$/.exec(value)
  if (match === null) return undefined
  const at = (n: number) => Math.max(0, Math.min(size, n < 0 ? size + n : n))
  const from = at(Number(match[1]))
  const to = match[2] === "*" ? size : Math.min(size, at(Number(match[2])) + 1)
  return { from, to: Math.max(from, to) }
}

const decode = (get: GetBlock, cid: CID) => {
  if (cid.code === raw.code) return { unixfs: undefined, links: [] as Array<dagPb.PBLink> }
  const node = dagPb.decode(get(cid))
  return { unixfs: node.Data === undefined ? undefined : UnixFS.unmarshal(node.Data), links: node.Links }
}

/** The size of a file node's content. */
export const fileSize = (get: GetBlock, cid: CID): number => {
  const { unixfs } = decode(get, cid)
  return unixfs === undefined ? get(cid).length : Number(unixfs.fileSize())
}

/** The HAMT blocks from `shard` down to the entry named `name`, and the entry. */
const searchShard = (get: GetBlock, shard: CID, name: string): { path: Array<CID>; entry: CID } | undefined => {
  const { unixfs, links } = decode(get, shard)
  const width = (Number(unixfs?.fanout ?? 256n) - 1).toString(16).length
  const entry = links.find((link) => (link.Name ?? "").length > width && link.Name!.slice(width) === name)
  if (entry !== undefined) return { path: [shard], entry: entry.Hash }
  for (const link of links) {
    if ((link.Name ?? "").length !== width) continue
    const below = searchShard(get, link.Hash, name)
    if (below !== undefined) return { path: [shard, ...below.path], entry: below.entry }
  }
  return undefined
}

/** The blocks resolving `path` from `root` (not the entity itself), and the entity; `undefined` when absent. */
export const resolvePath = (
  get: GetBlock,
  root: CID,
  path: ReadonlyArray<string>
): { readonly blocks: Array<CID>; readonly entity: CID } | undefined => {
  const blocks: Array<CID> = []
  let cid = root
  for (const segment of path) {
    const { unixfs, links } = decode(get, cid)
    if (unixfs?.type === "hamt-sharded-directory") {
      const found = searchShard(get, cid, segment)
      if (found === undefined) return undefined
      blocks.push(...found.path)
      cid = found.entry
    } else {
      const link = unixfs?.type === "directory" ? links.find((candidate) => candidate.Name === segment) : undefined
      if (link === undefined) return undefined
      blocks.push(cid)
      cid = link.Hash
    }
  }
  return { blocks, entity: cid }
}

/** The file's blocks overlapping [from, to) of its content, depth first. */
function* fileBlocks(get: GetBlock, cid: CID, from: number, to: number): Generator<CID> {
  yield cid
  const { unixfs, links } = decode(get, cid)
  if (unixfs === undefined || unixfs.isDirectory()) return
  let offset = unixfs.data?.length ?? 0
  for (let i = 0; i < unixfs.blockSizes.length; i++) {
    const size = Number(unixfs.blockSizes[i])
    if (offset < to && offset + size > from) yield* fileBlocks(get, links[i]!.Hash, from - offset, to - offset)
    offset += size
  }
}

/** The blocks of a trustless CAR answer for `path` in `root`, the entity's bytes limited to [from, to). */
export function* trustlessBlocks(
  get: GetBlock,
  root: CID,
  options: {
    readonly path?: ReadonlyArray<string>
    readonly from?: number
    readonly to?: number
    readonly dups?: boolean
  } = {}
): Generator<Block> {
  const resolved = resolvePath(get, root, options.path ?? [])
  if (resolved === undefined) throw new Error(`no ${(options.path ?? []).join("/")} in ${root}`)
  const seen = new Set<string>()
  const entity = fileBlocks(get, resolved.entity, options.from ?? 0, options.to ?? Number.POSITIVE_INFINITY)
  for (const cid of [...resolved.blocks, ...entity]) {
    const key = base58btc.encode(cid.multihash.bytes)
    if (options.dups === false && seen.has(key)) continue
    seen.add(key)
    yield { cid, bytes: get(cid) }
  }
}

/** The header of a CARv1 rooted at `roots`. */
export const carHeader = async (roots: ReadonlyArray<CID>): Promise<Uint8Array> => {
  const { writer, out } = CarWriter.create([...roots])
  const parts: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const part of out) parts.push(part)
  })()
  await writer.close()
  await collected
  return parts.length === 1 ? parts[0]! : Uint8Array.from(parts.flatMap((part) => [...part]))
}

/** One CAR section: length prefix, CID, block. */
export const carSection = (block: Block): Uint8Array => {
  const length = block.cid.bytes.length + block.bytes.length
  const section = new Uint8Array(varint.encodingLength(length) + length)
  varint.encodeTo(length, section)
  section.set(block.cid.bytes, varint.encodingLength(length))
  section.set(block.bytes, varint.encodingLength(length) + block.cid.bytes.length)
  return section
}

/** A CARv1 of `blocks` (anything, in the given order) rooted at `roots`, as it streams. */
export async function* carStream(roots: ReadonlyArray<CID>, blocks: Iterable<Block>): AsyncGenerator<Uint8Array> {
  yield await carHeader(roots)
  for (const block of blocks) yield carSection(block)
}

/** A trustless answer to send, or why there is none. */
export type TrustlessAnswer =
  | { readonly ok: true; readonly headers: Record<string, string>; readonly body: AsyncGenerator<Uint8Array> }
  | { readonly ok: false; readonly status: number; readonly message: string }

/** Every block under `cid`, depth first, each once (a directory's whole DAG, `dag-scope=all`). */
function* everyBlock(get: GetBlock, cid: CID, seen: Set<string>): Generator<CID> {
  const key = base58btc.encode(cid.multihash.bytes)
  if (seen.has(key)) return
  seen.add(key)
  yield cid
  for (const link of decode(get, cid).links) yield* everyBlock(get, link.Hash, seen)
}

const carAnswer = (get: GetBlock, request: Request, root: CID, path: ReadonlyArray<string>): TrustlessAnswer => {
  const query = new URL(request.url).searchParams
  const resolved = resolvePath(get, root, path)
  if (resolved === undefined)
    return { ok: false, status: 404, message: `no link named "${path.join("/")}" under ${root}` }
  const scope = query.get("dag-scope") ?? "all"
  if (scope !== "all" && scope !== "entity" && scope !== "block") {
    return { ok: false, status: 400, message: `dag-scope must be all, entity or block, got ${scope}` }
  }
  const { entity } = resolved
  const isDirectory = decode(get, entity).unixfs?.isDirectory() === true
  const dups = !wantsNoDuplicates(request)
  let blocks: () => Iterable<Block>
  if (scope === "block" || (isDirectory && scope === "entity")) {
    blocks = () => [...resolved.blocks, entity].map((cid) => ({ cid, bytes: get(cid) }))
  } else if (isDirectory) {
    blocks = function* () {
      for (const cid of [...resolved.blocks, ...everyBlock(get, entity, new Set())]) yield { cid, bytes: get(cid) }
    }
  } else {
    const range = entityRange(query.get("entity-bytes"), fileSize(get, entity))
    if (range === undefined) return { ok: false, status: 400, message: "entity-bytes must be from:to" }
    blocks = () => trustlessBlocks(get, root, { path, from: range.from, to: range.to, dups })
  }
  // The length is known up front (the blocks are at hand), so the answer is not delimited by the
  // connection closing.
  let length = headerLength({ roots: [root] })
  for (const block of blocks()) length += blockLength(block)
  return {
    ok: true,
    headers: {
      "content-type": `application/vnd.ipld.car; version=1; order=dfs; dups=${dups ? "y" : "n"}`,
      "content-length": String(length),
      "x-ipfs-path": `/ipfs/${[root.toString(), ...path].join("/")}`,
      "cache-control": "public, max-age=29030400, immutable"
    },
    body: carStream([root], blocks())
  }
}

/** The trustless answer to `request` for `root` and `path`, in `format`. */
export const trustlessAnswer = (
  get: GetBlock,
  request: Request,
  format: TrustlessFormat,
  root: CID,
  path: ReadonlyArray<string>
): TrustlessAnswer => {
  if (format === "car") return carAnswer(get, request, root, path)
  const resolved = resolvePath(get, root, path)
  if (resolved === undefined)
    return { ok: false, status: 404, message: `no link named "${path.join("/")}" under ${root}` }
  const bytes = get(resolved.entity)
  return {
    ok: true,
    headers: {
      "content-type": "application/vnd.ipld.raw",
      "content-length": String(bytes.length),
      "x-ipfs-path": `/ipfs/${[root.toString(), ...path].join("/")}`,
      "cache-control": "public, max-age=29030400, immutable"
    },
    body: (async function* () {
      yield bytes
    })()
  }
}
