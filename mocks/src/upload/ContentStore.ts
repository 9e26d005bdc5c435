/**
 * The blocks held by the mock IPFS node, and how to read UnixFS content back out of them.
 *
 * Blocks are keyed by multihash, as kubo's blockstore does, so a CIDv0 and the CIDv1 of the same
 * dag-pb block name the same content. Uploads write into a `staging` store and `commit` only once
 * the whole request succeeded, so a refused upload (quota, bad body) leaves nothing behind.
 *
 * Reading walks the DAG lazily: file bytes come out block by block (constant memory per level),
 * directories (plain and HAMT-sharded) list their entries, and paths resolve through directories.
 */
import * as dagPb from "@ipld/dag-pb"
import { UnixFS } from "ipfs-unixfs"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"

/** A link in a directory listing. */
export interface DirectoryEntry {
  readonly name: string
  readonly cid: CID
  readonly size: number
}

/** What a CID points to. */
export type NodeStat =
  | { readonly type: "file"; readonly cid: CID; readonly size: number }
  | { readonly type: "directory"; readonly cid: CID; readonly size: number }
  | { readonly type: "other"; readonly cid: CID; readonly codec: number }

export class ContentNotFound extends Error {
  readonly cid: string
  constructor(cid: string, what = "block") {
    super(`${what} not found: ${cid}`)
    this.name = "ContentNotFound"
    this.cid = cid
  }
}

export class NotAFile extends Error {
  constructor(cid: string) {
    super(`this dag node is a directory: ${cid}`)
    this.name = "NotAFile"
  }
}

/** Something the importer (and the CAR reader) can write blocks into. */
export interface BlockSink {
  put(cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): CID | Promise<CID>
}

export interface StagingStore extends BlockSink {
  /** Blocks written so far (keyed by multihash). */
  readonly size: number
  /** Whether the block is staged or already stored. */
  readonly has: (cid: CID) => boolean
  /** Moves the staged blocks into the store. */
  readonly commit: () => void
}

const key = (cid: CID) => base58btc.encode(cid.multihash.bytes)

const collect = async (bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>) => {
  if (bytes instanceof Uint8Array) return bytes
  const parts: Array<Uint8Array> = []
  for await (const part of bytes as AsyncIterable<Uint8Array>) parts.push(part)
  return concat(parts)
}

export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
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

// A dag-pb link name in a HAMT shard is a 2-hex-digit bucket prefix, then the entry name.
const hamtPrefix = 2

export class ContentStore {
  readonly #blocks = new Map<string, Uint8Array>()

  get blockCount(): number {
    return this.#blocks.size
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.#blocks.set(key(cid), bytes)
  }

  has(cid: CID): boolean {
    return cid.multihash.code === identity.code || this.#blocks.has(key(cid))
  }

  get(cid: CID): Uint8Array {
    if (cid.multihash.code === identity.code) return cid.multihash.digest
    const bytes = this.#blocks.get(key(cid))
    if (bytes === undefined) throw new ContentNotFound(cid.toString())
    return bytes
  }

  clear(): void {
    this.#blocks.clear()
  }

  /** A write buffer in front of this store; nothing is visible until `commit`. */
  staging(): StagingStore {
    const staged = new Map<string, { cid: CID; bytes: Uint8Array }>()
    return {
      put: async (cid, bytes) => {
        staged.set(key(cid), { cid, bytes: await collect(bytes) })
        return cid
      },
      get size() {
        return staged.size
      },
      has: (cid) => staged.has(key(cid)) || this.has(cid),
      commit: () => {
        for (const { cid, bytes } of staged.values()) this.put(cid, bytes)
        staged.clear()
      }
    }
  }

  /** What `cid` is: a UnixFS file (or raw block), a directory, or another IPLD node. */
  stat(cid: CID): NodeStat {
    const bytes = this.get(cid)
    if (cid.code === raw.code) return { type: "file", cid, size: bytes.byteLength }
    if (cid.code !== dagPb.code) return { type: "other", cid, codec: cid.code }
    const node = dagPb.decode(bytes)
    const unixfs = node.Data === undefined ? undefined : UnixFS.unmarshal(node.Data)
    if (unixfs === undefined) return { type: "other", cid, codec: cid.code }
    if (unixfs.isDirectory()) {
      const size = node.Links.reduce((total, link) => total + (link.Tsize ?? 0), bytes.byteLength)
      return { type: "directory", cid, size }
    }
    return { type: "file", cid, size: Number(unixfs.fileSize()) }
  }

  /** The entries of a directory, HAMT shards flattened, in link order. */
  list(cid: CID): ReadonlyArray<DirectoryEntry> {
    const node = dagPb.decode(this.get(cid))
    const unixfs = node.Data === undefined ? undefined : UnixFS.unmarshal(node.Data)
    if (unixfs === undefined || !unixfs.isDirectory()) throw new Error(`not a directory: ${cid}`)
    if (unixfs.type !== "hamt-sharded-directory") {
      return node.Links.map((link) => ({ name: link.Name ?? "", cid: link.Hash, size: link.Tsize ?? 0 }))
    }
    const entries: Array<DirectoryEntry> = []
    for (const link of node.Links) {
      const name = link.Name ?? ""
      // A name that is only the bucket prefix points at a sub-shard.
      if (name.length === hamtPrefix) entries.push(...this.list(link.Hash))
      else entries.push({ name: name.slice(hamtPrefix), cid: link.Hash, size: link.Tsize ?? 0 })
    }
    return entries
  }

  /** Follows `path` (segments) through directories from `root`. */
  resolve(root: CID, path: ReadonlyArray<string>): CID {
    let current = root
    for (const segment of path) {
      if (segment === "") continue
      const stat = this.stat(current)
      if (stat.type !== "directory") throw new ContentNotFound(`${root}/${path.join("/")}`, "path")
      const entry = this.list(current).find((candidate) => candidate.name === segment)
      if (entry === undefined) throw new ContentNotFound(`${root}/${path.join("/")}`, "path")
      current = entry.cid
    }
    return current
  }

  /** The bytes of a UnixFS file (or raw block), block by block. Checks presence before yielding. */
  cat(cid: CID): AsyncGenerator<Uint8Array> {
    const stat = this.stat(cid)
    if (stat.type === "directory") throw new NotAFile(cid.toString())
    if (stat.type === "other") throw new Error(`not a UnixFS file: ${cid} (codec 0x${stat.codec.toString(16)})`)
    return this.#read(cid)
  }

  async *#read(cid: CID): AsyncGenerator<Uint8Array> {
    const bytes = this.get(cid)
    if (cid.code === raw.code) {
      if (bytes.byteLength > 0) yield bytes
      return
    }
    const node = dagPb.decode(bytes)
    const unixfs = UnixFS.unmarshal(node.Data ?? new Uint8Array())
    if (unixfs.data !== undefined && unixfs.data.byteLength > 0) yield unixfs.data
    for (const link of node.Links) yield* this.#read(link.Hash)
  }

  /** Every block of the DAG under `root`, depth first, each once. */
  *walk(root: CID): Generator<{ readonly cid: CID; readonly bytes: Uint8Array }> {
    const seen = new Set<string>()
    const stack: Array<CID> = [root]
    while (stack.length > 0) {
      const cid = stack.pop()!
      const id = cid.toString()
      if (seen.has(id)) continue
      seen.add(id)
      const bytes = this.get(cid)
      yield { cid, bytes }
      if (cid.code === dagPb.code) {
        const links = dagPb.decode(bytes).Links
        for (let i = links.length - 1; i >= 0; i--) stack.push(links[i]!.Hash)
      }
    }
  }
}
