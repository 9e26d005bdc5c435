/**
 * The roots of a CARv1 header, read from a CAR's first bytes.
 *
 * A CARv1 starts with a varint length and that many bytes of DAG-CBOR: a map of exactly
 * `roots` (an array of CIDs, CBOR tag 42 over a byte string with a leading zero byte) and
 * `version` (the integer 1). This reads that shape and nothing more, under DAG-CBOR's rules
 * (definite lengths, every number in its shortest form, no repeated key, nothing after the map),
 * and refuses anything else, as `@ipld/car`'s `readHeader(…, 1)` does. It is written out rather
 * than taken from `@ipld/car` because that decoder brings a whole CBOR codec (encoder included)
 * into every browser bundle that can upload a CAR, for a header of a few dozen bytes.
 *
 * @since 0.1.0
 */
import { varint } from "multiformats"
import { CID } from "multiformats/cid"

const MAJOR_UINT = 0
const MAJOR_BYTES = 2
const MAJOR_TEXT = 3
const MAJOR_ARRAY = 4
const MAJOR_MAP = 5
const MAJOR_TAG = 6
const CID_TAG = 42

/** Thrown inside the reader only; `carV1Roots` turns it into `undefined`. */
class Malformed extends Error {}

/** A cursor over DAG-CBOR bytes. */
const reader = (bytes: Uint8Array) => {
  let at = 0
  const take = (count: number): Uint8Array => {
    if (at + count > bytes.byteLength) throw new Malformed("the header ends early")
    const part = bytes.subarray(at, at + count)
    at += count
    return part
  }
  /** A data item's major type and argument, the argument in its shortest form as DAG-CBOR requires. */
  const head = (): { readonly major: number; readonly argument: number } => {
    const first = take(1)[0] as number
    const major = first >> 5
    const info = first & 31
    if (info < 24) return { major, argument: info }
    if (info > 27) throw new Malformed("indefinite lengths and reserved values are not DAG-CBOR")
    const width = 2 ** (info - 24)
    let argument = 0
    for (const byte of take(width)) argument = argument * 256 + byte
    const least = info === 24 ? 24 : 2 ** (8 * (width / 2))
    if (argument < least || !Number.isSafeInteger(argument)) throw new Malformed("a number not in its shortest form")
    return { major, argument }
  }
  const expect = (major: number): number => {
    const item = head()
    if (item.major !== major) throw new Malformed(`expected major type ${major}, found ${item.major}`)
    return item.argument
  }
  return { head, expect, take, done: () => at === bytes.byteLength }
}

type Reader = ReturnType<typeof reader>

const textDecoder = new TextDecoder("utf-8", { fatal: true })

const readRoots = (read: Reader): ReadonlyArray<CID> => {
  const count = read.expect(MAJOR_ARRAY)
  const roots: Array<CID> = []
  for (let i = 0; i < count; i++) {
    if (read.expect(MAJOR_TAG) !== CID_TAG) throw new Malformed("a root that is not a CID")
    const link = read.take(read.expect(MAJOR_BYTES))
    if (link[0] !== 0) throw new Malformed("a CID without its leading zero byte")
    roots.push(CID.decode(link.subarray(1)))
  }
  return roots
}

/** The header map's `roots`, once `version` was 1 and no other key came. */
const readHeaderMap = (read: Reader): ReadonlyArray<CID> => {
  const entries = read.expect(MAJOR_MAP)
  let roots: ReadonlyArray<CID> | undefined
  let version: number | undefined
  for (let i = 0; i < entries; i++) {
    const key = textDecoder.decode(read.take(read.expect(MAJOR_TEXT)))
    if (key === "roots" && roots === undefined) roots = readRoots(read)
    else if (key === "version" && version === undefined) version = read.expect(MAJOR_UINT)
    else throw new Malformed(`an unexpected or repeated key: ${key}`)
  }
  if (version !== 1 || roots === undefined) throw new Malformed("not a CARv1 header")
  if (!read.done()) throw new Malformed("bytes after the header map")
  return roots
}

/**
 * The roots of the CARv1 header at the start of `bytes` (its varint length and the header; the
 * blocks after it are not read), or `undefined` when they do not start with one.
 *
 * @category decoding
 */
export const carV1Roots = (bytes: Uint8Array): ReadonlyArray<CID> | undefined => {
  try {
    const [length, prefix] = varint.decode(bytes)
    if (length === 0 || prefix + length > bytes.byteLength) return undefined
    return readHeaderMap(reader(bytes.subarray(prefix, prefix + length)))
  } catch {
    return undefined
  }
}

const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0))

/** A data item's head: `major` and `argument` in the shortest form DAG-CBOR requires. */
const itemHead = (major: number, argument: number): Array<number> => {
  const type = major << 5
  if (argument < 24) return [type | argument]
  if (argument < 0x100) return [type | 24, argument]
  if (argument < 0x10000) return [type | 25, argument >> 8, argument & 0xff]
  return [type | 26, (argument >>> 24) & 0xff, (argument >> 16) & 0xff, (argument >> 8) & 0xff, argument & 0xff]
}

/**
 * A CARv1 header of one `root` with its varint length: the bytes `@ipld/car` writes (the map's
 * keys in DAG-CBOR's order, `roots` before `version`), written out for the reason given above.
 *
 * @category encoding
 */
export const carV1Header = (root: CID): Uint8Array => {
  const cid = [0, ...root.bytes]
  const header = Uint8Array.from([
    ...itemHead(MAJOR_MAP, 2),
    ...itemHead(MAJOR_TEXT, 5),
    ...ascii("roots"),
    ...itemHead(MAJOR_ARRAY, 1),
    ...itemHead(MAJOR_TAG, CID_TAG),
    ...itemHead(MAJOR_BYTES, cid.length),
    ...cid,
    ...itemHead(MAJOR_TEXT, 7),
    ...ascii("version"),
    ...itemHead(MAJOR_UINT, 1)
  ])
  const length = varint.encodeTo(header.byteLength, new Uint8Array(varint.encodingLength(header.byteLength)))
  return Uint8Array.from([...length, ...header])
}
