/**
 * The UnixFS `Data` protobuf message, written and read here rather than by `ipfs-unixfs`: its
 * writer (protons-runtime) corrupts 64-bit varints from 2^31 to 2^32 − 1 (see FileData.ts), and
 * the two packages weighed about 22 KiB minified in the browser bundle for a nine-field message.
 *
 * Writing gives the bytes `new UnixFS(fields).marshal()` gives (ipfs-unixfs 13.1.1), fields in
 * number order: `Type` (1), `Data` (2, left out when empty), `filesize` (3, only for `file` and
 * `raw`: the block sizes plus the node's own bytes), one `blocksizes` (4) per child, each under
 * its own tag, `hashType` (5), `fanout` (6), `mode` (7, left out when it is the type's default).
 * Nothing here writes `mtime` (8).
 *
 * Reading answers what `UnixFS.unmarshal` does for what the readers use (type, own bytes, block
 * sizes, file size as the sum `fileSize()` computes, fanout) plus the `hashType` it drops, and
 * refuses what is not a well-formed message: a truncated field, an unknown type, a known field
 * under the wrong wire type, a block size beyond 2^53 − 1 (no file is that large).
 *
 * Varints are built by division and multiplication: JavaScript's bit operators stop at 32 bits.
 *
 * @internal
 */

/** The node types, at their protobuf enum values. */
const TYPES = ["raw", "directory", "file", "metadata", "symlink", "hamt-sharded-directory"] as const

export type DataType = (typeof TYPES)[number]

/** What a node's `Data` is written from (the `ipfs-unixfs` constructor options the library uses). */
export interface DataFields {
  readonly type: DataType
  readonly data?: Uint8Array | undefined
  readonly blockSizes?: ReadonlyArray<number> | undefined
  readonly hashType?: number | undefined
  readonly fanout?: number | undefined
  readonly mode?: number | undefined
}

/** A node's `Data` as read. */
export interface Data {
  readonly type: DataType
  /** The node's own bytes; `undefined` when the field is absent. */
  readonly data: Uint8Array | undefined
  readonly blockSizes: ReadonlyArray<number>
  /** The block sizes plus the own bytes' length (0 for folders), as `ipfs-unixfs` computes it; the `filesize` field is not trusted. */
  readonly fileSize: number
  readonly hashType: number | undefined
  readonly fanout: number | undefined
}

const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
const WIRE_BYTES = 2
const WIRE_FIXED32 = 5

const FIELD_TYPE = 1
const FIELD_DATA = 2
const FIELD_FILESIZE = 3
const FIELD_BLOCKSIZES = 4
const FIELD_HASH_TYPE = 5
const FIELD_FANOUT = 6
const FIELD_MODE = 7

/** The modes `ipfs-unixfs` assumes when none is written (`0644`, `0755`), so never writes. */
const DEFAULT_FILE_MODE = 0o644
const DEFAULT_DIRECTORY_MODE = 0o755

const isDirectory = (type: DataType) => type === "directory" || type === "hamt-sharded-directory"

/** Bytes of `value`'s varint (any safe integer ≥ 0). */
const varintLength = (value: number): number => {
  let length = 1
  for (let rest = value; rest >= 128; rest = Math.floor(rest / 128)) length++
  return length
}

/** Writes `value`'s varint at `at`; answers the position after it. */
const writeVarint = (target: Uint8Array, at: number, value: number): number => {
  let position = at
  let rest = value
  while (rest >= 128) {
    target[position++] = (rest % 128) + 128
    rest = Math.floor(rest / 128)
  }
  target[position++] = rest
  return position
}

/** The mode `ipfs-unixfs` writes: its permission bits, or nothing when they are the type's default. */
const writtenMode = (fields: DataFields): number | undefined => {
  if (fields.mode === undefined) return undefined
  const mode = fields.mode % 0o10000
  return mode === (isDirectory(fields.type) ? DEFAULT_DIRECTORY_MODE : DEFAULT_FILE_MODE) ? undefined : mode
}

/** The varint fields of a message, as [field number, value], in the order they are written. */
const varintFields = (fields: DataFields): Array<readonly [number, number]> => {
  const blockSizes = fields.blockSizes ?? []
  const written: Array<readonly [number, number]> = []
  if (fields.type === "file" || fields.type === "raw") {
    let fileSize = fields.data?.length ?? 0
    for (const size of blockSizes) fileSize += size
    written.push([FIELD_FILESIZE, fileSize])
  }
  for (const size of blockSizes) written.push([FIELD_BLOCKSIZES, size])
  if (fields.hashType !== undefined) written.push([FIELD_HASH_TYPE, fields.hashType])
  if (fields.fanout !== undefined) written.push([FIELD_FANOUT, fields.fanout])
  const mode = writtenMode(fields)
  if (mode !== undefined) written.push([FIELD_MODE, mode])
  return written
}

/** A node's `Data` bytes: what `new UnixFS(fields).marshal()` gives, with sizes right above 2^31 too. */
export const encodeData = (fields: DataFields): Uint8Array => {
  const own = fields.data !== undefined && fields.data.length > 0 ? fields.data : undefined
  const rest = varintFields(fields)
  let length = 2
  if (own !== undefined) length += 1 + varintLength(own.length) + own.length
  for (const [, value] of rest) length += 1 + varintLength(value)
  const bytes = new Uint8Array(length)
  bytes[0] = FIELD_TYPE * 8 + WIRE_VARINT
  bytes[1] = TYPES.indexOf(fields.type)
  let position = 2
  if (own !== undefined) {
    bytes[position++] = FIELD_DATA * 8 + WIRE_BYTES
    position = writeVarint(bytes, position, own.length)
    bytes.set(own, position)
    position += own.length
  }
  for (const [field, value] of rest) {
    bytes[position++] = field * 8 + WIRE_VARINT
    position = writeVarint(bytes, position, value)
  }
  return bytes
}

/** A position in the bytes being read. */
interface Cursor {
  readonly bytes: Uint8Array
  at: number
}

/** Reads a varint of up to 10 bytes (64 bits); large values lose precision, which callers check for. */
const readVarint = (cursor: Cursor): number => {
  let value = 0
  let scale = 1
  for (let count = 0; count < 10; count++) {
    const byte = cursor.bytes[cursor.at++]
    if (byte === undefined) throw new Error("a varint runs past the end")
    value += (byte % 128) * scale
    if (byte < 128) return value
    scale *= 128
  }
  throw new Error("a varint is longer than 10 bytes")
}

/** Reads a varint that must be exact as a number, refusing one beyond 2^53 − 1. */
const readNumber = (cursor: Cursor, name: string): number => {
  const value = readVarint(cursor)
  if (value > Number.MAX_SAFE_INTEGER) throw new Error(`${name} is beyond 2^53 - 1`)
  return value
}

/** Moves past `length` bytes, refusing to move past the end. */
const skip = (cursor: Cursor, length: number): number => {
  const start = cursor.at
  if (length > cursor.bytes.length - start) throw new Error("a field runs past the end")
  cursor.at = start + length
  return start
}

/** Moves past a field this reader has no use for (`mtime`, or one a later UnixFS adds). */
const skipField = (cursor: Cursor, wireType: number): void => {
  if (wireType === WIRE_VARINT) readVarint(cursor)
  else if (wireType === WIRE_FIXED64) skip(cursor, 8)
  else if (wireType === WIRE_BYTES) skip(cursor, readVarint(cursor))
  else if (wireType === WIRE_FIXED32) skip(cursor, 4)
  else throw new Error(`wire type ${wireType} is not read`)
}

/** The wire type each field read here has; one under another is a malformed message. */
const EXPECTED_WIRE: Record<number, number> = {
  [FIELD_TYPE]: WIRE_VARINT,
  [FIELD_DATA]: WIRE_BYTES,
  [FIELD_FILESIZE]: WIRE_VARINT,
  [FIELD_BLOCKSIZES]: WIRE_VARINT,
  [FIELD_HASH_TYPE]: WIRE_VARINT,
  [FIELD_FANOUT]: WIRE_VARINT,
  [FIELD_MODE]: WIRE_VARINT
}

/** Fields as read so far; a field written twice keeps its last value, as protobuf has it. */
interface Reading {
  type: DataType
  data: Uint8Array | undefined
  blockSizes: Array<number>
  hashType: number | undefined
  fanout: number | undefined
}

/** Reads one field of the message into `reading`. */
const readField = (cursor: Cursor, reading: Reading): void => {
  const tag = readNumber(cursor, "a field tag")
  const field = Math.floor(tag / 8)
  const wireType = tag % 8
  if (field === 0) throw new Error("field number 0")
  const expected = EXPECTED_WIRE[field]
  if (expected === undefined) {
    skipField(cursor, wireType)
    return
  }
  if (wireType !== expected) throw new Error(`field ${field} has wire type ${wireType}`)
  if (field === FIELD_DATA) {
    const length = readVarint(cursor)
    const start = skip(cursor, length)
    reading.data = cursor.bytes.subarray(start, start + length)
    return
  }
  // Only the type and block sizes must be exact; a hashType or fanout past 2^53 is refused by the HAMT reader anyway.
  const value =
    field === FIELD_TYPE || field === FIELD_BLOCKSIZES ? readNumber(cursor, `field ${field}`) : readVarint(cursor)
  if (field === FIELD_TYPE) {
    const type = TYPES[value]
    if (type === undefined) throw new Error(`unknown UnixFS type ${value}`)
    reading.type = type
  } else if (field === FIELD_BLOCKSIZES) reading.blockSizes.push(value)
  else if (field === FIELD_HASH_TYPE) reading.hashType = value
  else if (field === FIELD_FANOUT) reading.fanout = value
}

/** Reads a node's `Data` bytes; throws on a malformed message. A message without `Type` is a `file`, as in `ipfs-unixfs`. */
export const decodeData = (bytes: Uint8Array): Data => {
  const cursor: Cursor = { bytes, at: 0 }
  const reading: Reading = { type: "file", data: undefined, blockSizes: [], hashType: undefined, fanout: undefined }
  while (cursor.at < bytes.length) readField(cursor, reading)
  let fileSize = 0
  if (!isDirectory(reading.type)) {
    fileSize = reading.data?.length ?? 0
    for (const size of reading.blockSizes) fileSize += size
  }
  return { ...reading, fileSize }
}
