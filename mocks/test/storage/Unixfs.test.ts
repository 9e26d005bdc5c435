/**
 * The node's import of a file over 2 GiB: its root's `filesize` lies between 2^31 and 2^32 − 1,
 * which ipfs-unixfs's writer leaves partly unwritten (a different CID on each import, never the
 * right one). The node writes those nodes again; its CID must be the client's, every time.
 */
import { Effect, Stream } from "effect"
import { Verify } from "lighthouse-effect"
import { describe, expect, it } from "vitest"
import { addAll } from "../../src/storage/Unixfs.ts"

const LEAF = 256 * 1024
// 2 GiB and one leaf of zeros (cheap to make; the sizes are what matters).
const LEAVES = 8 * 1024 + 1

function* zeros() {
  const leaf = new Uint8Array(LEAF)
  for (let i = 0; i < LEAVES; i++) yield leaf
}

const blocksOnly = { put: async <A>(cid: A) => cid }

const nodeCid = async () => {
  let root = ""
  for await (const entry of addAll([{ path: "big.bin", content: zeros() }], blocksOnly as never, { cidVersion: 1 }))
    root = entry.cid.toString()
  return root
}

describe("a file over 2 GiB", () => {
  it("gets the client's CID from the node, on every import", { timeout: 240_000 }, async () => {
    const client = await Effect.runPromise(
      Verify.cidsOf([{ path: "big.bin", content: Stream.fromIterable(zeros()) }], { cidVersion: 1 })
    )
    const expected = client.at(-1)!.cid.toString()
    expect(await nodeCid()).toBe(expected)
    expect(await nodeCid()).toBe(expected)
  })
})
