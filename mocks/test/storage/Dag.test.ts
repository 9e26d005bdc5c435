/**
 * Reading UnixFS back out of a blockstore: byte ranges of deep files (small chunks, 3 links per
 * node, so ranges cross many levels), the minimal block set a range needs, directory listings and
 * path resolution through plain and HAMT-sharded directories (and never under a file, whatever its
 * layout), and whole-DAG walks.
 */
import * as dagPb from "@ipld/dag-pb"
import { MemoryBlockstore } from "blockstore-core/memory"
import fc from "fast-check"
import { walkPath } from "ipfs-unixfs-exporter"
import { importer } from "ipfs-unixfs-importer"
import { fixedSize } from "ipfs-unixfs-importer/chunker"
import { balanced } from "ipfs-unixfs-importer/layout"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { beforeAll, describe, expect, it } from "vitest"
import { type Blockstore, ContentNotFound, memoryBlockstore, readBlock } from "../../src/storage/Blocks.ts"
import { fileBlocks, listDirectory, NotAFile, readFile, resolvePath, statNode, walkDag } from "../../src/storage/Dag.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"

const bytesOf = pseudoRandomBytes

const collect = async (chunks: AsyncIterable<Uint8Array>) => {
  const parts: Array<number> = []
  for await (const chunk of chunks) parts.push(...chunk)
  return Uint8Array.from(parts)
}

const deepImport = async (
  store: Blockstore,
  entries: ReadonlyArray<{ path: string; content?: Uint8Array }>,
  options: { rawLeaves: boolean; shardSplitThresholdBytes?: number; wrapWithDirectory?: boolean }
) => {
  const added = []
  for await (const entry of importer(entries, store, {
    chunker: fixedSize({ chunkSize: 100 }),
    layout: balanced({ maxChildrenPerNode: 3 }),
    cidVersion: 1,
    ...options
  }))
    added.push(entry)
  return added
}

describe("files", () => {
  const content = bytesOf(5_000, 7)
  const stores = { raw: memoryBlockstore(), pb: memoryBlockstore() }
  const roots: Record<"raw" | "pb", CID> = {} as never

  beforeAll(async () => {
    roots.raw = (await deepImport(stores.raw, [{ path: "f", content }], { rawLeaves: true })).at(-1)!.cid
    roots.pb = (await deepImport(stores.pb, [{ path: "f", content }], { rawLeaves: false })).at(-1)!.cid
  })

  it.each(["raw", "pb"] as const)("reads the whole file and its size (%s leaves)", async (leaves) => {
    expect(await collect(readFile(stores[leaves], roots[leaves]))).toEqual(content)
    expect(await statNode(stores[leaves], roots[leaves])).toEqual({ type: "file", cid: roots[leaves], size: 5_000 })
  })

  it.each(["raw", "pb"] as const)("reads any byte range (%s leaves)", async (leaves) => {
    await fc.assert(
      fc.asyncProperty(fc.nat(5_100), fc.nat(5_100), async (a, b) => {
        const [start, end] = a <= b ? [a, b] : [b, a]
        expect(await collect(readFile(stores[leaves], roots[leaves], start, end))).toEqual(content.slice(start, end))
      }),
      { numRuns: 60 }
    )
  })

  it("visits only the blocks a range needs, the root first", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(4_999), fc.integer({ min: 1, max: 400 }), async (start, length) => {
        const end = Math.min(5_000, start + length)
        const blocks = []
        for await (const block of fileBlocks(stores.raw, roots.raw, start, end)) blocks.push(block)
        expect(blocks[0]!.cid.equals(roots.raw)).toBe(true)
        const leaves = blocks.filter((block) => block.cid.code === raw.code)
        // Every leaf sent carries part of the range; 100-byte chunks, so exactly these many.
        expect(leaves.every((leaf) => leaf.data.byteLength > 0)).toBe(true)
        expect(leaves).toHaveLength(Math.floor((end - 1) / 100) - Math.floor(start / 100) + 1)
        for (const block of blocks)
          expect((await sha256.digest(block.bytes)).digest).toEqual(block.cid.multihash.digest)
      }),
      { numRuns: 40 }
    )
  })

  it("refuses to read a directory as a file", async () => {
    const store = memoryBlockstore()
    const root = (await deepImport(store, [{ path: "d/a", content: bytesOf(10, 1) }], { rawLeaves: true })).at(-1)!
    await expect(collect(readFile(store, root.cid))).rejects.toThrow(new NotAFile(root.cid.toString()))
  })

  it("names a missing block", async () => {
    const missing = CID.createV1(raw.code, await sha256.digest(Uint8Array.of(1)))
    await expect(collect(readFile(memoryBlockstore(), missing))).rejects.toThrow(
      new ContentNotFound(missing.toString())
    )
  })
})

describe.each([
  ["plain", undefined],
  ["HAMT-sharded", 1]
] as const)("%s directories", (_kind, threshold) => {
  const store = memoryBlockstore()
  const names = Array.from({ length: 40 }, (_, i) => `file-${i}.txt`)
  let root: CID

  beforeAll(async () => {
    const entries = [
      ...names.map((name, i) => ({ path: `site/${name}`, content: bytesOf(50 + i, i) })),
      { path: "site/nested/deep/b.txt", content: new TextEncoder().encode("deep") }
    ]
    const added = await deepImport(store, entries, {
      rawLeaves: true,
      ...(threshold === undefined ? {} : { shardSplitThresholdBytes: threshold })
    })
    // The last entry is the top directory (with sharding, the importer names sub-shards "site" too).
    root = added.at(-1)!.cid
  })

  it("lists every entry and states the directory", async () => {
    const listed = await listDirectory(store, root)
    expect(listed.map((entry) => entry.name).sort()).toEqual([...names, "nested"].sort())
    const stat = await statNode(store, root)
    expect(stat).toMatchObject({ type: "directory", sharded: threshold !== undefined })
  })

  it("resolves paths, listing every block crossed", async () => {
    const deep = await resolvePath(store, root, ["nested", "deep", "b.txt"])
    expect(new TextDecoder().decode(await collect(readFile(store, deep.cid)))).toBe("deep")
    expect(deep.crossed[0]!.equals(root)).toBe(true)
    expect(deep.crossed.at(-1)!.equals(deep.cid)).toBe(true)
    const file = await resolvePath(store, root, ["file-17.txt"])
    expect(await collect(readFile(store, file.cid))).toEqual(bytesOf(67, 17))
    if (threshold !== undefined) {
      // A sharded lookup crosses the shard blocks between the root and the entry.
      for (const cid of file.crossed.slice(0, -1)) expect((await statNode(store, cid)).type).toBe("directory")
    } else expect(file.crossed).toHaveLength(2)
    expect((await resolvePath(store, root, [])).crossed).toEqual([root])
  })

  it("answers a missing path as not found", async () => {
    await expect(resolvePath(store, root, ["nested", "nope.txt"])).rejects.toThrow(
      new ContentNotFound(`${root}/nested/nope.txt`, "path")
    )
  })
})

describe("paths under a file", () => {
  // Every way a file is laid out: one raw block, one dag-pb node, chunked under raw or dag-pb
  // leaves; and files reached through a plain directory and a HAMT-sharded one.
  const layouts = [
    { name: "a raw leaf", size: 50, rawLeaves: true, prefix: [] },
    { name: "a dag-pb node", size: 50, rawLeaves: false, prefix: [] },
    { name: "chunked under raw leaves", size: 5_000, rawLeaves: true, prefix: [] },
    { name: "chunked under dag-pb leaves", size: 5_000, rawLeaves: false, prefix: [] },
    { name: "a dag-pb node in a directory", size: 50, rawLeaves: false, prefix: ["dir", "a.txt"] },
    { name: "a raw leaf in a directory", size: 50, rawLeaves: true, prefix: ["dir", "a.txt"] },
    { name: "a dag-pb node in a HAMT", size: 50, rawLeaves: false, prefix: ["a.txt"], sharded: true },
    { name: "chunked in a HAMT", size: 5_000, rawLeaves: true, prefix: ["a.txt"], sharded: true }
  ] as const
  const built = new Map<string, { store: Blockstore; root: CID; file: CID }>()

  beforeAll(async () => {
    for (const layout of layouts) {
      const store = memoryBlockstore()
      const content = bytesOf(layout.size, 5)
      if (layout.prefix.length === 0) {
        const [file] = await deepImport(store, [{ path: "f", content }], { rawLeaves: layout.rawLeaves })
        built.set(layout.name, { store, root: file!.cid, file: file!.cid })
        continue
      }
      const neighbours = Array.from({ length: 20 }, (_, i) => ({ path: `site/n-${i}`, content: bytesOf(10, i) }))
      const added = await deepImport(store, [...neighbours, { path: `site/${layout.prefix.join("/")}`, content }], {
        rawLeaves: layout.rawLeaves,
        ...("sharded" in layout ? { shardSplitThresholdBytes: 1 } : {})
      })
      const file = added.find((entry) => entry.path === `site/${layout.prefix.join("/")}`)!.cid
      built.set(layout.name, { store, root: added.at(-1)!.cid, file })
    }
  })

  it.each(layouts)("resolve to $name, and any segment past it is not found", async (layout) => {
    const { store, root, file } = built.get(layout.name)!
    expect((await resolvePath(store, root, layout.prefix)).cid.equals(file)).toBe(true)
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
        async (extra) => {
          const path = [...layout.prefix, ...extra]
          await expect(resolvePath(store, root, path)).rejects.toThrow(
            new ContentNotFound(`${root}/${path.join("/")}`, "path")
          )
        }
      ),
      { numRuns: 40 }
    )
  })

  it("are not found by a decoded %2F, a dot segment or a backslash either", async () => {
    const { store, root } = built.get("a dag-pb node in a directory")!
    for (const extra of [["../../x"], [".."], ["."], ["x\\"], ["\\", "y"]]) {
      const path = ["dir", "a.txt", ...extra]
      await expect(resolvePath(store, root, path)).rejects.toThrow(
        new ContentNotFound(`${root}/${path.join("/")}`, "path")
      )
    }
  })
})

describe("a HAMT of several levels", () => {
  it("crosses every shard block between the root and the entry, and those blocks suffice to resolve it", async () => {
    const store = memoryBlockstore()
    // 300 names in 256 buckets: many share a bucket, which puts them in sub-shards.
    const names = Array.from({ length: 300 }, (_, i) => `entry-${i}`)
    const added = await deepImport(
      store,
      names.map((name, i) => ({ path: `site/${name}`, content: bytesOf(8, i) })),
      { rawLeaves: true, shardSplitThresholdBytes: 1 }
    )
    const root = added.at(-1)!.cid
    let deepest = 0
    for (const name of names.filter((_, i) => i % 10 === 0)) {
      const { cid, crossed } = await resolvePath(store, root, [name])
      deepest = Math.max(deepest, crossed.length)
      const received = new MemoryBlockstore()
      for (const block of crossed.slice(0, -1)) await received.put(block, await readBlock(store, block))
      let reached: CID | undefined
      for await (const entry of walkPath(`${root}/${name}`, received)) reached = entry.cid
      expect(reached?.equals(cid)).toBe(true)
    }
    expect(deepest).toBeGreaterThan(2)
  })
})

describe("walkDag", () => {
  it("yields each block once, or at every occurrence with duplicates", async () => {
    const store = memoryBlockstore()
    // 1 000 zero bytes: ten identical 100-byte leaves.
    const [file] = await deepImport(store, [{ path: "zeros", content: new Uint8Array(1_000) }], { rawLeaves: true })
    const unique = []
    for await (const block of walkDag(store, file!.cid)) unique.push(block)
    const all = []
    for await (const block of walkDag(store, file!.cid, { duplicates: true })) all.push(block)
    const leaves = (blocks: ReadonlyArray<{ cid: CID }>) => blocks.filter((block) => block.cid.code === raw.code)
    expect(leaves(unique)).toHaveLength(1)
    expect(leaves(all)).toHaveLength(10)
    expect(unique[0]!.cid.equals(file!.cid)).toBe(true)
    // Depth first: each inner node comes before the nodes it links to.
    const order = all.map((block) => block.cid.toString())
    for (const [i, block] of all.entries()) {
      if (block.cid.code !== dagPb.code) continue
      for (const link of dagPb.decode(block.bytes).Links) {
        expect(order.indexOf(link.Hash.toString(), i)).toBeGreaterThan(i)
      }
    }
  })
})
