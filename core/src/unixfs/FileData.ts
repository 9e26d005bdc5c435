/**
 * The `Data` field of a UnixFS `file` node that links to children (no data of its own, no mode
 * or mtime): the bytes `new UnixFS({ type: "file" })` with `addBlockSize` per child marshals to
 * (`Type` 2, then `filesize`, then one `blocksizes` entry per child, each a protobuf varint).
 *
 * Written here rather than by `ipfs-unixfs` because its protobuf writer (protons-runtime 7.1.2 and
 * 8.0.1) encodes an unsigned 64-bit value from 2^31 to 2^32 − 1 as one byte and leaves the other
 * four of its five bytes as whatever memory held: every file of 2 GiB or more has a node with
 * such a size (the root's `filesize` up to 4 GiB, a child's `blocksizes` above), so its CID came
 * out different on every import (docs/PROTOCOL.md, "CIDs of files over 2 GiB").
 *
 * @internal
 */

const FIELD_TYPE = 0x08
const TYPE_FILE = 2
const FIELD_FILESIZE = 0x18
const FIELD_BLOCKSIZES = 0x20

/** Bytes of `value`'s varint (any safe integer ≥ 0). */
const varintLength = (value: number): number => {
  let length = 1
  for (let rest = value; rest >= 128; rest = Math.floor(rest / 128)) length++
  return length
}

/** Writes `value`'s varint at `at`; answers the position after it. Division, not bit operators: those stop at 32 bits. */
const writeVarint = (target: Uint8Array, at: number, value: number): number => {
  let position = at
  let rest = value
  while (rest >= 128) {
    target[position++] = (rest % 128) | 128
    rest = Math.floor(rest / 128)
  }
  target[position++] = rest
  return position
}

/** The `Data` of a file node whose children hold `blockSizes` bytes of content each. */
export const fileNodeData = (blockSizes: ReadonlyArray<number>): Uint8Array => {
  let fileSize = 0
  for (const size of blockSizes) fileSize += size
  let length = 2 + 1 + varintLength(fileSize)
  for (const size of blockSizes) length += 1 + varintLength(size)
  const data = new Uint8Array(length)
  data[0] = FIELD_TYPE
  data[1] = TYPE_FILE
  data[2] = FIELD_FILESIZE
  let position = writeVarint(data, 3, fileSize)
  for (const size of blockSizes) {
    data[position++] = FIELD_BLOCKSIZES
    position = writeVarint(data, position, size)
  }
  return data
}
