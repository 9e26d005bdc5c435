/**
 * A file node's `Data`: the bytes ipfs-unixfs marshals where its writer is right (sizes below
 * 2^31), correct varints where it is not (2^31 to 2^32 − 1), and the same bytes every time.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { UnixFS } from "ipfs-unixfs"
import { fileNodeData } from "../../src/unixfs/FileData.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

const marshaled = (sizes: ReadonlyArray<number>) => {
  const file = new UnixFS({ type: "file" })
  for (const size of sizes) file.addBlockSize(BigInt(size))
  return file.marshal()
}

describe("fileNodeData", () => {
  it("is ipfs-unixfs's marshal for every total below 2^31", () =>
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2 ** 24 }), { minLength: 1, maxLength: 174 }), (sizes) => {
        assert.strictEqual(hex(fileNodeData(sizes)), hex(marshaled(sizes)))
      })
    ))

  it("writes 2^31 as the five varint bytes protobuf gives it (ipfs-unixfs leaves four of them unwritten)", () => {
    assert.strictEqual(hex(fileNodeData([2 ** 31])), "0802" + "188080808008" + "208080808008")
    assert.strictEqual(hex(fileNodeData([2 ** 32 - 1])), "0802" + "18ffffffff0f" + "20ffffffff0f")
  })

  it("reads back as the same sizes for totals up to 2^50, the same bytes each time", () =>
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2 ** 44 }), { minLength: 1, maxLength: 64 }), (sizes) => {
        const data = fileNodeData(sizes)
        const read = UnixFS.unmarshal(data)
        assert.strictEqual(read.type, "file")
        assert.deepStrictEqual(read.blockSizes, sizes.map(BigInt))
        assert.strictEqual(read.fileSize(), BigInt(sizes.reduce((a, b) => a + b, 0)))
        assert.strictEqual(hex(fileNodeData(sizes)), hex(data))
      })
    ))
})
