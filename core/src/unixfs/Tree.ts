/**
 * The folders of an import, built from its entries in order, as ipfs-unixfs-importer (and so the
 * upload node) builds them: each path component is a folder, an entry replaces what its parent
 * held under its name, and a folder whose size estimate passes the threshold after an entry lands
 * under it becomes a HAMT for good. The estimate counts its direct files and empty folders (its
 * sub-folders count nothing until flushed): `links-bytes`, the UTF-8 bytes of the names plus the
 * CID bytes; `block-bytes`, the serialized links and the folder's `Data` field.
 *
 * The entries are reported as the importer reports them: the files in order, then each folder
 * after its sub-folders. Two of its quirks are kept, for the same CIDs under the same paths:
 * what a HAMT folder reports for the folders directly in its first level carries the HAMT's own
 * path, and folders deeper in its sub-shards are not reported. And a folder made where an entry
 * was (a file, then a file under its path) keeps that entry's UnixFS mode.
 *
 * @internal
 */
import * as dagPb from "@ipld/dag-pb"
import type { CID } from "multiformats/cid"
import { encodeData } from "./Data.ts"
import { dagPbCidOf } from "./Hashing.ts"
import type { Layout, ShardStrategy } from "./Layout.ts"
import { isShardNode, type ShardNode, shardBlock, shardEntries, shardOf, slotLabel } from "./Shard.ts"

/** An entry the import reports. */
export interface TreeEntry {
  readonly path: string
  readonly cid: CID
  /** Bytes of every block of the entry's DAG (kubo's `Size`). */
  readonly size: bigint
}

/** A file, or a folder added on its own (empty), once built. */
export interface Built extends TreeEntry {
  readonly directory: boolean
  /** The mode of its UnixFS node (none for a file that is one raw leaf). */
  readonly mode: number | undefined
}

interface Folder {
  readonly path: string
  /**
   * The folder it was put in, under `key`. As in the importer, a folder that becomes a HAMT is a
   * new folder: its children still name the flat one as their parent until an entry lands under
   * them, and the flat one may be converted again from what it held then.
   */
  parent: Folder | undefined
  readonly key: string
  /** The mode of the entry it replaced, which the importer carries over (written unless 0755). */
  readonly mode: number | undefined
  readonly children: Map<string, Built | Folder>
  readonly sharded: boolean
  /** The size estimate of its direct entries' links. */
  estimate: number
}

const isFolder = (node: Built | Folder): node is Folder => "children" in node

const newFolder = (path: string, parent: Folder | undefined, key: string, mode: number | undefined): Folder => ({
  path,
  parent,
  key,
  mode,
  children: new Map(),
  sharded: false,
  estimate: 0
})

const encoder = new TextEncoder()

/** Bytes of `value` as a protobuf varint. */
const varintBytes = (value: number): number => {
  let length = 1
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length++
  return length
}

/** Bytes a dag-pb link adds to its node: `Hash`, `Name` and `Tsize` fields, framed. */
const serializedLink = (nameBytes: number, cidBytes: number, tsize: number): number => {
  const link = 1 + varintBytes(cidBytes) + cidBytes + 1 + varintBytes(nameBytes) + nameBytes + 1 + varintBytes(tsize)
  return 1 + varintBytes(link) + link
}

const DEFAULT_DIRECTORY_MODE = 0o755

/** Bytes of a folder's `Data` field: UnixFS `Type=directory` and a mode other than 0755. */
const directoryDataBytes = (mode: number | undefined): number => {
  const unixfs = 2 + (mode === undefined || mode === DEFAULT_DIRECTORY_MODE ? 0 : 1 + varintBytes(mode))
  return 1 + varintBytes(unixfs) + unixfs
}

const linkEstimate = (strategy: ShardStrategy, name: string, node: Built | Folder | undefined): number => {
  if (node === undefined || isFolder(node)) return 0
  const nameBytes = encoder.encode(name).length
  return strategy === "links-bytes"
    ? nameBytes + node.cid.bytes.length
    : serializedLink(nameBytes, node.cid.bytes.length, Number(node.size))
}

/** The folder's size as `strategy` estimates it. */
const sizeEstimate = (folder: Folder, strategy: ShardStrategy): number =>
  strategy === "links-bytes" ? folder.estimate : folder.estimate + directoryDataBytes(folder.mode)

const put = (folder: Folder, name: string, node: Built | Folder, strategy: ShardStrategy): void => {
  folder.estimate += linkEstimate(strategy, name, node) - linkEstimate(strategy, name, folder.children.get(name))
  folder.children.set(name, node)
}

/** The components of a path: split on `/` not escaped by `\`, without empty ones. */
export const pathComponents = (path: string): Array<string> => path.split(/(?<!\\)\//).filter(Boolean)

/** A path as the importer keeps it: without `.` components. */
export const normalPath = (path: string): string =>
  path
    .split("/")
    .filter((component) => component !== ".")
    .join("/")

/**
 * `folder`, a HAMT if its estimate passed `threshold`, and so on up its parents: the root, which
 * a conversion may have replaced.
 */
const shardUp = (child: Folder | undefined, folder: Folder, layout: Layout): Folder => {
  const strategy = layout.shardStrategy ?? "links-bytes"
  const current =
    !folder.sharded && sizeEstimate(folder, strategy) > layout.shardThreshold
      ? { ...folder, children: new Map(folder.children), sharded: true }
      : folder
  const parent = current.parent
  if (parent === undefined) return current
  if (current !== folder) {
    if (child !== undefined) child.parent = current
    put(parent, current.key, current, strategy)
  }
  return shardUp(current, parent, layout)
}

/** Adds `built` under its path; folders it passes through are made (replacing entries there). The new root. */
const add = (root: Folder, built: Built, layout: Layout): Folder => {
  const strategy = layout.shardStrategy ?? "links-bytes"
  const components = pathComponents(built.path)
  let parent = root
  let path = ""
  for (const [index, name] of components.entries()) {
    path += `${path !== "" ? "/" : ""}${name}`
    if (index === components.length - 1) {
      put(parent, name, built, strategy)
      return shardUp(undefined, parent, layout)
    }
    const existing = parent.children.get(name)
    const folder =
      existing !== undefined && isFolder(existing) ? existing : newFolder(path, parent, name, existing?.mode)
    put(parent, name, folder, strategy)
    parent = folder
  }
  return root
}

type Report = (entry: TreeEntry) => void

/** The directory node of `folder` over `links`, reported at its path. */
const directoryNode = async (folder: Folder, links: Array<dagPb.PBLink>, layout: Layout, report: Report) => {
  const data = encodeData({ type: "directory", mode: folder.mode })
  const block = dagPb.encode(dagPb.prepare({ Data: data, Links: links }))
  const cid = await dagPbCidOf(layout, block)
  const size = BigInt(links.reduce((sum, link) => sum + (link.Tsize ?? 0), block.length))
  report({ path: folder.path, cid, size })
  return { cid, size }
}

/** Hashes `folder` and what it holds, reporting each folder after its sub-folders. */
const flush = (folder: Folder, layout: Layout, report: Report): Promise<{ cid: CID; size: bigint }> =>
  folder.sharded ? flushShard(folder, layout, report) : flushFlat(folder, layout, report)

const flushFlat = async (folder: Folder, layout: Layout, report: Report) => {
  const links: Array<dagPb.PBLink> = []
  for (const [name, child] of folder.children) {
    const { cid, size } = isFolder(child) ? await flush(child, layout, report) : child
    links.push({ Name: name, Tsize: Number(size), Hash: cid })
  }
  return directoryNode(folder, links, layout, report)
}

const flushShard = async (folder: Folder, layout: Layout, report: Report) => {
  const asShard: Report = (entry) => report({ ...entry, path: folder.path })
  const { cid, size } = await flushShardNode(shardOf(folder.children), folder.mode, layout, asShard)
  asShard({ path: folder.path, cid, size })
  return { cid, size }
}

/** A HAMT node (`mode` is the folder's, on the first level only); `report` is what its first level's folders report. */
const flushShardNode = async (
  node: ShardNode<Built | Folder>,
  mode: number | undefined,
  layout: Layout,
  report: Report | undefined
): Promise<{ cid: CID; size: bigint }> => {
  const links: Array<dagPb.PBLink> = []
  let childrenSize = 0n
  for (let index = 0; index < node.slots.length; index++) {
    const slot = node.slots[index]
    if (slot === undefined) continue
    const { cid, size } = isShardNode(slot)
      ? await flushShardNode(slot, undefined, layout, undefined)
      : isFolder(slot.value)
        ? await flush(slot.value, layout, report ?? (() => {}))
        : slot.value
    links.push({ Name: slotLabel(index, slot), Tsize: Number(size), Hash: cid })
    childrenSize += size
  }
  const block = shardBlock(node, mode, links)
  return { cid: await dagPbCidOf(layout, block), size: BigInt(block.length) + childrenSize }
}

/** The children of the root folder in the importer's order (a HAMT's slot order when sharded). */
const rootChildren = (root: Folder): Array<Built | Folder> =>
  root.sharded ? [...shardEntries(shardOf(root.children))].map((entry) => entry.value) : [...root.children.values()]

/** Whether every path starts with one same folder (so the importer wraps them in it). */
const singleRoot = (paths: ReadonlyArray<string>): boolean => {
  const first = new Set(paths.map((path) => path.split("/")[0]).filter((component) => component !== ""))
  return first.size === 1
}

/**
 * Every entry of an import of `built` (files and empty folders, in the order they were added,
 * with the paths they were given): the files, then the folders, the root last.
 */
export const treeEntries = async (
  built: ReadonlyArray<{ readonly originalPath: string; readonly built: Built }>,
  layout: Layout
): Promise<Array<TreeEntry>> => {
  let root = newFolder("", undefined, "", undefined)
  for (const entry of built) root = add(root, entry.built, layout)
  const entries: Array<TreeEntry> = built
    .filter((entry) => !entry.built.directory)
    .map(({ built: { path, cid, size } }) => ({ path, cid, size }))
  const report: Report = (entry) => entries.push(entry)
  const originalPaths = built.map((entry) => entry.originalPath)
  if (layout.wrapWithDirectory || (singleRoot(originalPaths) && root.children.size > 1)) {
    await flush(root, layout, report)
    return entries
  }
  for (const child of rootChildren(root)) {
    if (isFolder(child)) await flush(child, layout, report)
    else if (child.directory) report({ path: child.path, cid: child.cid, size: child.size })
  }
  return entries
}
