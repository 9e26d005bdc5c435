/**
 * Both blockstores behave the same (memory and blockstore-fs on disk), the disk one keeps blocks
 * across reopening, and stagings take back exactly the blocks their upload brought in.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BaseBlockstore } from "blockstore-core/base"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"
import { afterEach, describe, expect, it } from "vitest"
import {
  type Blockstore,
  blockSize,
  ContentNotFound,
  countBlocks,
  makeStager,
  memoryBlockstore,
  readBlock
} from "../../src/storage/Blocks.ts"
import { openDiskBlockstore } from "../../src/storage/DiskBlocks.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"

const directories: Array<string> = []
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})
const tempDirectory = async () => {
  const directory = await mkdtemp(join(tmpdir(), "blocks-"))
  directories.push(directory)
  return directory
}

const rawBlock = async (text: string) => {
  const bytes = new TextEncoder().encode(text)
  return { cid: CID.createV1(raw.code, await sha256.digest(bytes)), bytes }
}

const stores: ReadonlyArray<readonly [string, () => Promise<Blockstore>]> = [
  ["memory", async () => memoryBlockstore()],
  ["disk", async () => openDiskBlockstore(await tempDirectory())]
]

describe.each(stores)("%s blockstore", (_name, open) => {
  it("stores, reads back and deletes blocks, keyed by multihash", async () => {
    const store = await open()
    const block = await rawBlock("hello")
    await store.put(block.cid, block.bytes)
    expect(await readBlock(store, block.cid)).toEqual(block.bytes)
    // The same multihash under another codec names the same stored bytes.
    expect(await readBlock(store, CID.createV1(0x70, block.cid.multihash))).toEqual(block.bytes)
    expect(await countBlocks(store)).toBe(1)
    await store.delete(block.cid)
    expect(await store.has(block.cid)).toBe(false)
    await expect(readBlock(store, block.cid)).rejects.toThrow(new ContentNotFound(block.cid.toString()))
  })

  it("keeps a copy of what it is given: the writer may free or reuse its bytes once put", async () => {
    const store = await open()
    const block = await rawBlock("written, then overwritten by its writer")
    const original = block.bytes.slice()
    await store.put(block.cid, block.bytes)
    block.bytes.fill(0)
    expect(await readBlock(store, block.cid)).toEqual(original)
  })

  it("answers identity CIDs from the CID and never stores them", async () => {
    const store = await open()
    const bytes = new TextEncoder().encode("inline")
    const cid = CID.createV1(raw.code, identity.digest(bytes))
    await store.put(cid, bytes)
    expect(await readBlock(store, cid)).toEqual(bytes)
    expect(await countBlocks(store)).toBe(0)
  })

  it("tells a block's length (an identity CID's from the CID), ContentNotFound for one it lacks", async () => {
    const store = await open()
    const block = await rawBlock("a block of thirty-one bytes....")
    await store.put(block.cid, block.bytes)
    expect(await blockSize(store, block.cid)).toBe(31)
    const inline = new TextEncoder().encode("inline")
    expect(await blockSize(store, CID.createV1(raw.code, identity.digest(inline)))).toBe(6)
    await store.delete(block.cid)
    await expect(blockSize(store, block.cid)).rejects.toThrow(new ContentNotFound(block.cid.toString()))
  })

  it("takes a streamed block (chunks) whole", async () => {
    const store = await open()
    const block = await rawBlock("a block written in three chunks")
    const parts = [block.bytes.subarray(0, 5), block.bytes.subarray(5, 20), block.bytes.subarray(20)]
    await store.put(
      block.cid,
      (async function* () {
        yield* parts
      })()
    )
    expect(await readBlock(store, block.cid)).toEqual(block.bytes)
  })
})

describe("disk blockstore", () => {
  it("reads a block in one piece, as long as the block", async () => {
    const store = await openDiskBlockstore(await tempDirectory())
    const bytes = pseudoRandomBytes(300_000, 5)
    const cid = CID.createV1(raw.code, await sha256.digest(bytes))
    await store.put(cid, bytes)
    const pieces: Array<Uint8Array> = []
    for await (const piece of store.get(cid)) pieces.push(piece)
    expect(pieces.map((piece) => piece.byteLength)).toEqual([300_000])
    expect(new Uint8Array(pieces[0]!)).toEqual(bytes)
  })

  it("keeps blocks across reopening, in Helia's sharded layout", async () => {
    const directory = await tempDirectory()
    const block = await rawBlock("kept")
    await (await openDiskBlockstore(directory)).put(block.cid, block.bytes)
    const reopened = await openDiskBlockstore(directory)
    expect(await readBlock(reopened, block.cid)).toEqual(block.bytes)
    const shards = await readdir(directory)
    expect(shards).toHaveLength(1)
    expect(shards[0]).toMatch(/^[A-Z2-7]{2}$/)
    expect(await readdir(join(directory, shards[0]!))).toEqual([expect.stringMatching(/^[A-Z2-7]+\.data$/)])
  })
})

describe("blockSize", () => {
  it("reads the block from a store that cannot tell its length otherwise", async () => {
    const block = await rawBlock("read to be measured")
    const inner = memoryBlockstore()
    await inner.put(block.cid, block.bytes)
    // A `Blockstore` with no `size`, as a caller of `pathGatewayResponse` may bring.
    const reads: Array<string> = []
    const plain = new (class extends BaseBlockstore {
      override get(cid: CID) {
        reads.push(cid.toString())
        return inner.get(cid)
      }
    })()
    expect(await blockSize(plain, block.cid)).toBe(19)
    expect(reads).toEqual([block.cid.toString()])
  })
})

describe("stagings", () => {
  it("discard deletes the blocks the upload brought in, not those stored before", async () => {
    const store = memoryBlockstore()
    const stager = makeStager(store)
    const old = await rawBlock("old")
    const fresh = await rawBlock("fresh")
    await store.put(old.cid, old.bytes)
    const staging = stager.stage()
    await staging.put(old.cid, old.bytes)
    await staging.put(fresh.cid, fresh.bytes)
    expect(staging.size).toBe(2)
    // Written through at once: an upload is never held in memory.
    expect(await store.has(fresh.cid)).toBe(true)
    await staging.discard()
    expect(await store.has(old.cid)).toBe(true)
    expect(await store.has(fresh.cid)).toBe(false)
  })

  it("commit keeps them; a later discard of another staging cannot take them", async () => {
    const store = memoryBlockstore()
    const stager = makeStager(store)
    const block = await rawBlock("shared")
    const first = stager.stage()
    const second = stager.stage()
    await first.put(block.cid, block.bytes)
    await second.put(block.cid, block.bytes)
    first.commit()
    await second.discard()
    expect(await store.has(block.cid)).toBe(true)
    await expect(first.put(block.cid, block.bytes)).rejects.toThrow("this staging is already committed or discarded")
  })

  it("a block written by two uploads in flight survives while either is open", async () => {
    const store = memoryBlockstore()
    const stager = makeStager(store)
    const block = await rawBlock("both")
    const first = stager.stage()
    const second = stager.stage()
    await Promise.all([first.put(block.cid, block.bytes), second.put(block.cid, block.bytes)])
    await first.discard()
    expect(await store.has(block.cid)).toBe(true)
    await second.discard()
    expect(await store.has(block.cid)).toBe(false)
  })

  it("a write racing a discard's deletion still leaves the block stored", async () => {
    const store = memoryBlockstore()
    const stager = makeStager(store)
    const block = await rawBlock("race")
    const first = stager.stage()
    await first.put(block.cid, block.bytes)
    const second = stager.stage()
    const discarding = first.discard()
    await second.put(block.cid, block.bytes)
    second.commit()
    await discarding
    expect(await store.has(block.cid)).toBe(true)
  })
})
