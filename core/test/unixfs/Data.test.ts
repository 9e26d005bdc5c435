/**
 * The UnixFS `Data` codec against ipfs-unixfs 13.1.1: the same bytes for every shape the library
 * writes (below 2^31, where ipfs-unixfs's writer is right), the same reading of random valid
 * messages, and refusals of malformed ones.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { UnixFS } from "ipfs-unixfs"
import { type DataFields, type DataType, decodeData, encodeData } from "../../src/unixfs/Data.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

const TYPES: ReadonlyArray<DataType> = ["raw", "directory", "file", "metadata", "symlink", "hamt-sharded-directory"]

const belowTwoTo31 = fc.integer({ min: 0, max: 2 ** 31 - 1 })
const optional = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined })

/** Fields of the shapes the library writes, any type, any of them left out. */
const fieldsArbitrary = fc.record({
  type: fc.constantFrom(...TYPES),
  data: optional(fc.uint8Array({ maxLength: 300 })),
  blockSizes: optional(fc.array(fc.integer({ min: 0, max: 2 ** 24 }), { maxLength: 40 })),
  hashType: optional(belowTwoTo31),
  fanout: optional(belowTwoTo31),
  mode: optional(fc.integer({ min: 0, max: 0o7777 }))
})

/** What ipfs-unixfs marshals for `fields` (its options take bigints). */
const marshaled = (fields: DataFields) =>
  new UnixFS({
    type: fields.type,
    ...(fields.data === undefined ? {} : { data: fields.data }),
    ...(fields.blockSizes === undefined ? {} : { blockSizes: fields.blockSizes.map(BigInt) }),
    ...(fields.hashType === undefined ? {} : { hashType: BigInt(fields.hashType) }),
    ...(fields.fanout === undefined ? {} : { fanout: BigInt(fields.fanout) }),
    ...(fields.mode === undefined ? {} : { mode: fields.mode })
  }).marshal()

/** A protobuf varint, written with bigints so that it shares nothing with the codec under test. */
const varint = (value: bigint): Array<number> => {
  const bytes: Array<number> = []
  let rest = value
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80)
    rest >>= 7n
  }
  bytes.push(Number(rest))
  return bytes
}

const varintField = (field: number, value: bigint) => [...varint(BigInt(field * 8)), ...varint(value)]
const bytesField = (field: number, bytes: Uint8Array) => [
  ...varint(BigInt(field * 8 + 2)),
  ...varint(BigInt(bytes.length)),
  ...bytes
]

/** mtime: seconds (a signed varint, ten bytes when negative) and nanoseconds (fixed32). */
const mtimeField = fc
  .record({
    seconds: fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
    nanos: fc.uint8Array({ minLength: 4, maxLength: 4 })
  })
  .map(({ seconds, nanos }) =>
    bytesField(8, new Uint8Array([...varintField(1, BigInt.asUintN(64, seconds)), 0x15, ...nanos]))
  )

const size = fc.bigInt({ min: 0n, max: 2n ** 40n })

/** One field of a valid message: any known one, or one UnixFS does not define. */
const fieldArbitrary = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((type) => varintField(1, BigInt(type))),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => bytesField(2, bytes)),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => varintField(3, value)),
  size.map((value) => varintField(4, value)),
  size.map((value) => varintField(4, value)),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => varintField(5, value)),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => varintField(6, value)),
  fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((mode) => varintField(7, BigInt(mode))),
  mtimeField,
  fc.uint8Array({ maxLength: 20 }).map((bytes) => bytesField(9, bytes))
)

/** A random valid message: its fields in any order, any of them repeated or left out. */
const messageArbitrary = fc.array(fieldArbitrary, { maxLength: 30 }).map((fields) => new Uint8Array(fields.flat()))

describe("encodeData", () => {
  it("is ipfs-unixfs's marshal for every shape the library writes below 2^31", () =>
    fc.assert(
      fc.property(fieldsArbitrary, (fields) => {
        assert.strictEqual(hex(encodeData(fields)), hex(marshaled(fields)))
      }),
      { numRuns: 500 }
    ))

  it("writes the library's nodes as the exact bytes", () => {
    // a folder of mode 0755 (the default: left out), one of mode 0700, a HAMT shard of fanout 256 with murmur3
    assert.strictEqual(hex(encodeData({ type: "directory", mode: 0o755 })), "0801")
    assert.strictEqual(hex(encodeData({ type: "directory", mode: 0o40700 })), "080138c003")
    assert.strictEqual(
      hex(encodeData({ type: "hamt-sharded-directory", data: new Uint8Array([1, 2]), fanout: 256, hashType: 0x22 })),
      "0805" + "12020102" + "2822" + "308002"
    )
    // a raw leaf of 3 bytes carries its filesize; an empty one leaves `Data` out
    assert.strictEqual(
      hex(encodeData({ type: "raw", data: new Uint8Array([7, 8, 9]) })),
      "0800" + "1203070809" + "1803"
    )
    assert.strictEqual(hex(encodeData({ type: "file", data: new Uint8Array() })), "0802" + "1800")
  })

  it("writes sizes from 2^31 up as whole varints", () => {
    assert.strictEqual(
      hex(encodeData({ type: "file", blockSizes: [2 ** 32 - 1] })),
      "0802" + "18ffffffff0f" + "20ffffffff0f"
    )
    assert.strictEqual(
      hex(encodeData({ type: "file", blockSizes: [2 ** 53 - 1] })),
      "0802" + "18ffffffffffffff0f" + "20ffffffffffffff0f"
    )
  })
})

describe("decodeData", () => {
  it("reads every valid message as ipfs-unixfs's unmarshal does", () =>
    fc.assert(
      fc.property(messageArbitrary, (bytes) => {
        const expected = UnixFS.unmarshal(bytes)
        const read = decodeData(bytes)
        assert.strictEqual(read.type, expected.type)
        assert.strictEqual(hex(read.data ?? new Uint8Array()), hex(expected.data ?? new Uint8Array()))
        assert.strictEqual(read.data === undefined, expected.data === undefined)
        assert.deepStrictEqual(read.blockSizes.map(BigInt), expected.blockSizes)
        assert.strictEqual(BigInt(read.fileSize), expected.fileSize())
        // a fanout past 2^53 cannot be exact as a number; it only has to stay past it (the HAMT reader refuses it)
        if (expected.fanout === undefined || expected.fanout <= BigInt(Number.MAX_SAFE_INTEGER)) {
          assert.strictEqual(read.fanout === undefined ? undefined : BigInt(read.fanout), expected.fanout)
        } else assert.isAbove(read.fanout ?? 0, Number.MAX_SAFE_INTEGER)
      }),
      { numRuns: 500 }
    ))

  it("reads back what it writes, hashType included", () =>
    fc.assert(
      fc.property(fieldsArbitrary, (fields) => {
        const read = decodeData(encodeData(fields))
        assert.strictEqual(read.type, fields.type)
        assert.deepStrictEqual(read.blockSizes, fields.blockSizes ?? [])
        assert.strictEqual(read.hashType, fields.hashType)
        assert.strictEqual(read.fanout, fields.fanout)
      })
    ))

  it("reads a message without Type as a file, and sizes up to 2^53 - 1", () => {
    assert.strictEqual(decodeData(new Uint8Array()).type, "file")
    const read = decodeData(Buffer.from("0802" + "20ffffffffffffff0f" + "2001", "hex"))
    assert.deepStrictEqual(read.blockSizes, [2 ** 53 - 1, 1])
  })

  const refusals: ReadonlyArray<readonly [string, string, string]> = [
    ["a truncated varint", "0880", "a varint runs past the end"],
    ["bytes longer than the message", "120501", "a field runs past the end"],
    ["an unknown type", "0806", "unknown UnixFS type 6"],
    ["a block size beyond 2^53 - 1", "208080808080808010", "field 4 is beyond 2^53 - 1"],
    ["a varint of 11 bytes", "08ffffffffffffffffffff01", "a varint is longer than 10 bytes"],
    ["Data as a varint", "1001", "field 2 has wire type 0"],
    ["packed block sizes", "22020102", "field 4 has wire type 2"],
    ["a group", "4b", "wire type 3 is not read"],
    ["field number 0", "0001", "field number 0"]
  ]
  for (const [what, bytes, message] of refusals) {
    it(`refuses ${what}`, () => {
      assert.throws(() => decodeData(Buffer.from(bytes, "hex")), message)
    })
  }

  it("skips mtime and fields it does not know, and refuses them truncated", () => {
    const read = decodeData(Buffer.from("0801" + "4204080a1500" + "5001" + "59" + "0102030405060708", "hex"))
    assert.strictEqual(read.type, "directory")
    assert.throws(() => decodeData(Buffer.from("0801" + "420408", "hex")), "a field runs past the end")
    assert.throws(() => decodeData(Buffer.from("0801" + "5d0102", "hex")), "a field runs past the end")
  })
})
