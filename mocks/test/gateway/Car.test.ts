/**
 * The bytes of a CAR answer, from a store in memory and on disk: byte for byte what `@ipld/car`
 * writes for the same root and blocks, with the length the answer states. The length is learnt
 * before the first byte, without reading the leaves: each leaf is read once, to be sent.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CarBlockIterator, CarWriter } from "@ipld/car"
import { BaseBlockstore } from "blockstore-core/base"
import { importer } from "ipfs-unixfs-importer"
import { fixedSize } from "ipfs-unixfs-importer/chunker"
import { balanced } from "ipfs-unixfs-importer/layout"
import type { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pathGatewayResponse } from "../../src/gateway/PathGateway.ts"
import { parseCid } from "../../src/http/Request.ts"
import { type Blockstore, memoryBlockstore, type SizedBlockstore } from "../../src/storage/Blocks.ts"
import { walkDag } from "../../src/storage/Dag.ts"
import { openDiskBlockstore } from "../../src/storage/DiskBlocks.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"

const content = pseudoRandomBytes(20_000, 11)
let directory: string
let file: CID
const memory = memoryBlockstore()
let disk: Blockstore

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "car-answer-"))
  disk = await openDiskBlockstore(directory)
  const both = {
    put: async (cid: CID, bytes: Uint8Array) => {
      await memory.put(cid, bytes)
      await disk.put(cid, bytes)
      return cid
    }
  }
  for await (const entry of importer([{ content }], both, {
    chunker: fixedSize({ chunkSize: 1_000 }),
    layout: balanced({ maxChildrenPerNode: 4 }),
    cidVersion: 1,
    rawLeaves: true
  }))
    file = entry.cid
})

afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

const carAnswer = (blocks: Blockstore, query: string) =>
  pathGatewayResponse(new Request(`http://gateway.test/ipfs/${file}?format=car${query}`), {
    blocks,
    resolveName: async () => undefined,
    parseCid
  })

/** What `@ipld/car` writes for `roots` and `blocks`, in that order. */
const writeCar = async (roots: Array<CID>, blocks: ReadonlyArray<{ cid: CID; bytes: Uint8Array }>) => {
  const { writer, out } = CarWriter.create(roots)
  const parts: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const part of out) parts.push(part)
  })()
  for (const block of blocks) await writer.put(block)
  await writer.close()
  await collected
  return new Uint8Array(await new Blob(parts as Array<Uint8Array<ArrayBuffer>>).arrayBuffer())
}

describe.each([
  ["memory", () => memory],
  ["disk", () => disk]
])("a CAR answer from a store %s", (_name, store) => {
  it.each(["", "&dups=y", "&dag-scope=all", "&dag-scope=block", "&entity-bytes=2500:7499"])(
    "is the bytes @ipld/car writes for its blocks, and states their length (%s)",
    async (query) => {
      const response = await carAnswer(store(), query)
      expect(response.status).toBe(200)
      const bytes = new Uint8Array(await response.arrayBuffer())
      expect(response.headers.get("content-length")).toBe(String(bytes.byteLength))
      const iterator = await CarBlockIterator.fromBytes(bytes)
      const blocks: Array<{ cid: CID; bytes: Uint8Array }> = []
      for await (const block of iterator) blocks.push(block)
      expect(blocks.length).toBeGreaterThan(0)
      expect(bytes).toEqual(await writeCar([file], blocks))
    }
  )

  it("sends the whole DAG depth first, each leaf's bytes as stored", async () => {
    const response = await carAnswer(store(), "")
    const iterator = await CarBlockIterator.fromBytes(new Uint8Array(await response.arrayBuffer()))
    const received: Array<{ cid: string; bytes: Uint8Array }> = []
    for await (const block of iterator) received.push({ cid: block.cid.toString(), bytes: block.bytes })
    const expected: Array<{ cid: string; bytes: Uint8Array }> = []
    for await (const block of walkDag(memory, file)) expected.push({ cid: block.cid.toString(), bytes: block.bytes })
    expect(received).toEqual(expected)
  })
})

describe("the length of a CAR answer", () => {
  it("is learnt reading only the blocks whose links are followed: each leaf is read once, to be sent", async () => {
    const reads = new Map<string, number>()
    const sized = new Map<string, number>()
    const count = (counts: Map<string, number>, cid: CID) =>
      counts.set(cid.toString(), (counts.get(cid.toString()) ?? 0) + 1)
    const counting = new (class extends BaseBlockstore implements SizedBlockstore {
      override get(cid: CID) {
        count(reads, cid)
        return memory.get(cid)
      }
      override has(cid: CID) {
        return memory.has(cid)
      }
      async size(cid: CID) {
        count(sized, cid)
        return (memory as SizedBlockstore).size(cid)
      }
    })()
    const leaves: Array<string> = []
    for await (const block of walkDag(memory, file)) if (block.cid.code === raw.code) leaves.push(block.cid.toString())
    expect(leaves).toHaveLength(20)

    const response = await carAnswer(counting, "")
    expect(response.headers.get("content-length")).not.toBeNull()
    expect(leaves.filter((leaf) => reads.has(leaf))).toEqual([])
    expect(leaves.map((leaf) => sized.get(leaf))).toEqual(leaves.map(() => 1))

    await response.arrayBuffer()
    expect(leaves.map((leaf) => reads.get(leaf))).toEqual(leaves.map(() => 1))
  })
})
