/**
 * The node makes a file's leaves itself, as the importer would, and frees each once it is stored:
 * the same blocks and CIDs as the importer's own, every leaf reads empty after its write, and the
 * content the caller handed in is left as it was.
 */
import { importer } from "ipfs-unixfs-importer"
import type { CID } from "multiformats/cid"
import { sha256 } from "multiformats/hashes/sha2"
import { describe, expect, it } from "vitest"
import { type AddSettings, addAll, importerOptions } from "../../src/storage/Unixfs.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"

const LEAF = 256 * 1024

/** A sink that keeps what each put gave it, and a copy of the bytes as they were then. */
const recordingSink = () => {
  const puts: Array<{ readonly cid: CID; readonly bytes: Uint8Array; readonly written: Uint8Array }> = []
  return {
    puts,
    put: async (cid: CID, bytes: Uint8Array) => {
      puts.push({ cid, bytes, written: bytes.slice() })
      return cid
    }
  }
}

/** `bytes` in pieces of `size`, as a request body brings them. */
const pieces = (bytes: Uint8Array, size: number) =>
  Array.from({ length: Math.ceil(bytes.byteLength / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))

const importersRoot = async (content: ReadonlyArray<Uint8Array>, settings: AddSettings) => {
  let root: CID | undefined
  for await (const entry of importer([{ path: "f", content }], recordingSink(), importerOptions(settings)))
    root = entry.cid
  return root!.toString()
}

describe.each([0, 1] as const)("a file's leaves, CID v%i", (cidVersion) => {
  it("make the importer's DAG past one parent: 176 leaves, two parents under the root", async () => {
    const content = pseudoRandomBytes(175 * LEAF + 1000, 25)
    let root: CID | undefined
    for await (const entry of addAll([{ path: "f", content: pieces(content, 64 * 1024) }], recordingSink() as never, {
      cidVersion
    }))
      root = entry.cid
    expect(root!.toString()).toBe(await importersRoot(pieces(content, 64 * 1024), { cidVersion }))
  })

  it("are the importer's, and each is freed once stored; the caller's bytes stay", async () => {
    const content = pseudoRandomBytes(3 * LEAF + 1000, 24)
    const given = content.slice()
    const sink = recordingSink()
    let root: CID | undefined
    for await (const entry of addAll([{ path: "f", content: pieces(content, 100_000) }], sink as never, {
      cidVersion
    }))
      root = entry.cid
    expect(root!.toString()).toBe(await importersRoot(pieces(given, 100_000), { cidVersion }))
    const leaves = sink.puts.filter((put) => !put.cid.equals(root))
    expect(leaves).toHaveLength(4)
    for (const leaf of leaves) {
      // Whole and right when written, empty since.
      expect((await sha256.digest(leaf.written)).digest).toEqual(leaf.cid.multihash.digest)
      expect(leaf.bytes.byteLength).toBe(0)
    }
    expect(content).toEqual(given)
  })
})
