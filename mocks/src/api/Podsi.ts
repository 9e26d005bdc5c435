/**
 * Filecoin piece commitments and Proofs of Data Segment Inclusion (FRC-0058), computed for real so
 * that a simulated deal's proof verifies like one from the provider.
 *
 * - `PieceHasher` streams bytes (the CAR of an upload) through Fr32 padding (2 zero bits after
 *   every 254 bits) into the binary SHA-256 tree whose digests are truncated to 254 bits: the
 *   piece commitment (CommP) and the padded piece size.
 * - `aggregate` places that piece in a deal (an aggregate tree mostly made of zero subtrees), writes
 *   its 64-byte entry into the data segment index at the end of the deal, and returns both
 *   inclusion proofs: the piece subtree and the index entry, each a Merkle path to the deal's root.
 * - `verifyAggregate` recomputes the root from either proof, as a verifier would.
 *
 * Wire forms follow the provider's `get_proof` answer: nodes, indices and sizes as bare hex,
 * `commPc` as the hex of the piece CID's bytes.
 */
import { CID } from "multiformats/cid"
import * as Digest from "multiformats/hashes/digest"
import { sha256 } from "multiformats/hashes/sha2"

/** Multicodec `fil-commitment-unsealed` and multihash `sha2-256-trunc254-padded`. */
export const FilCommitmentUnsealed = 0xf101
export const Sha256Trunc254Padded = 0x1012

const NODE = 32

const digest = (bytes: Uint8Array): Uint8Array => {
  // multiformats hashes synchronously under Node and asynchronously in browsers.
  const result = sha256.digest(bytes)
  if (result instanceof Promise) throw new Error("synchronous SHA-256 unavailable")
  return result.digest
}

// The browser build of multiformats only hashes asynchronously; fall back to WebCrypto there.
let hashPair: (left: Uint8Array, right: Uint8Array) => Uint8Array | Promise<Uint8Array>
try {
  digest(new Uint8Array())
  hashPair = (left, right) => truncate(digest(concat2(left, right)))
} catch {
  hashPair = async (left, right) =>
    truncate(new Uint8Array(await crypto.subtle.digest("SHA-256", concat2(left, right) as BufferSource)))
}

const concat2 = (left: Uint8Array, right: Uint8Array) => {
  const out = new Uint8Array(2 * NODE)
  out.set(left)
  out.set(right, NODE)
  return out
}

// Clearing the top two bits keeps every node a valid BLS12-381 field element.
const truncate = (node: Uint8Array) => {
  node[31]! &= 0x3f
  return node
}

/** `H(left ‖ right)` truncated to 254 bits. */
export const hashNodes = async (left: Uint8Array, right: Uint8Array): Promise<Uint8Array> => hashPair(left, right)

const zeroComms: Array<Uint8Array> = [new Uint8Array(NODE)]

/** The root of a tree of `2^level` zero leaves. */
export const zeroComm = async (level: number): Promise<Uint8Array> => {
  while (zeroComms.length <= level) {
    const below = zeroComms[zeroComms.length - 1]!
    zeroComms.push(await hashNodes(below, below))
  }
  return zeroComms[level]!
}

/** Fr32-pads one 127-byte chunk into 128 bytes (four 254-bit values in 32-byte slots). */
export const fr32Pad = (input: Uint8Array, output: Uint8Array) => {
  output.set(input.subarray(0, 31), 0)
  let carry = input[31]! >> 6
  output[31] = input[31]! & 0x3f
  let value = 0
  for (let i = 32; i < 64; i++) {
    value = input[i]!
    output[i] = ((value << 2) | carry) & 0xff
    carry = value >> 6
  }
  carry = value >> 4
  output[63]! &= 0x3f
  for (let i = 64; i < 96; i++) {
    value = input[i]!
    output[i] = ((value << 4) | carry) & 0xff
    carry = value >> 4
  }
  carry = value >> 2
  output[95]! &= 0x3f
  for (let i = 96; i < 127; i++) {
    value = input[i]!
    output[i] = ((value << 6) | carry) & 0xff
    carry = value >> 2
  }
  output[127] = carry & 0x3f
}

/** Smallest padded piece size (a power of two, at least 128) that holds `payloadBytes`. */
export const paddedPieceSize = (payloadBytes: number): number => {
  const padded = Math.ceil(Math.max(payloadBytes, 127) / 127) * 128
  let size = 128
  while (size < padded) size *= 2
  return size
}

export interface Piece {
  /** The piece commitment (32 bytes). */
  readonly commP: Uint8Array
  /** Padded piece size in bytes (a power of two). */
  readonly size: number
  /** Bytes hashed (before padding). */
  readonly payloadSize: number
  readonly cid: CID
}

export const pieceCid = (commP: Uint8Array): CID =>
  CID.createV1(FilCommitmentUnsealed, Digest.create(Sha256Trunc254Padded, commP))

/** Streams bytes into a piece commitment, holding one node per tree level. */
export class PieceHasher {
  readonly #chunk = new Uint8Array(127)
  readonly #padded = new Uint8Array(128)
  #fill = 0
  #payload = 0
  // Left-packed Merkle frontier: at most one pending node per level.
  readonly #stack: Array<{ level: number; node: Uint8Array }> = []

  async write(bytes: Uint8Array): Promise<void> {
    let offset = 0
    while (offset < bytes.byteLength) {
      const take = Math.min(127 - this.#fill, bytes.byteLength - offset)
      this.#chunk.set(bytes.subarray(offset, offset + take), this.#fill)
      this.#fill += take
      offset += take
      if (this.#fill === 127) await this.#flushChunk()
    }
    this.#payload += bytes.byteLength
  }

  async #flushChunk() {
    this.#chunk.fill(0, this.#fill)
    fr32Pad(this.#chunk, this.#padded)
    for (let i = 0; i < 4; i++) await this.#push(0, this.#padded.slice(i * NODE, (i + 1) * NODE))
    this.#fill = 0
  }

  async #push(level: number, node: Uint8Array) {
    let current = { level, node }
    for (let top = this.#stack.at(-1); top !== undefined && top.level === current.level; top = this.#stack.at(-1)) {
      this.#stack.pop()
      current = { level: current.level + 1, node: await hashNodes(top.node, current.node) }
    }
    this.#stack.push(current)
  }

  async digest(): Promise<Piece> {
    const size = paddedPieceSize(this.#payload)
    // A partial last chunk (or a payload shorter than one chunk) is zero-filled.
    if (this.#fill > 0 || this.#payload === 0) await this.#flushChunk()
    const height = Math.log2(size / NODE)
    while (this.#stack.length > 1 || this.#stack[0]!.level < height) {
      const top = this.#stack.pop()!
      const below = this.#stack.at(-1)
      if (below !== undefined && below.level === top.level) {
        this.#stack.pop()
        this.#stack.push({ level: top.level + 1, node: await hashNodes(below.node, top.node) })
      } else {
        this.#stack.push({ level: top.level + 1, node: await hashNodes(top.node, await zeroComm(top.level)) })
      }
    }
    const commP = this.#stack[0]!.node
    return { commP, size, payloadSize: this.#payload, cid: pieceCid(commP) }
  }
}

/** Piece commitment of a byte sequence. */
export const commP = async (bytes: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Piece> => {
  const hasher = new PieceHasher()
  for await (const chunk of bytes) await hasher.write(chunk)
  return hasher.digest()
}

// =============================================================================
// Aggregation (FRC-0058)
// =============================================================================

const ENTRY_SIZE = 64

/** Number of entries in the data segment index of a deal of `dealSize` padded bytes. */
export const maxIndexEntries = (dealSize: number): number => {
  const wanted = dealSize / 2048 / ENTRY_SIZE
  let entries = 1
  while (entries < wanted) entries *= 2
  return Math.max(4, entries)
}

/** Offset (padded bytes) where the data segment index starts. */
export const indexStart = (dealSize: number): number => dealSize - maxIndexEntries(dealSize) * ENTRY_SIZE

/** A segment descriptor: what the data segment index records about a piece. */
export interface SegmentDescriptor {
  readonly commDs: Uint8Array
  /** Padded offset of the piece in the deal. */
  readonly offset: number
  /** Padded size of the piece. */
  readonly size: number
  /** 16 bytes: SHA-256 of the entry with a zero checksum, truncated, top two bits cleared. */
  readonly checksum: Uint8Array
}

const u64le = (value: number) => {
  const bytes = new Uint8Array(8)
  new DataView(bytes.buffer).setBigUint64(0, BigInt(value), true)
  return bytes
}

export const segmentDescriptor = async (commDs: Uint8Array, offset: number, size: number) => {
  // The checksum covers the 64-byte entry serialised with a zero checksum.
  const fields = new Uint8Array(ENTRY_SIZE)
  fields.set(commDs, 0)
  fields.set(u64le(offset), 32)
  fields.set(u64le(size), 40)
  const full = new Uint8Array(await crypto.subtle.digest("SHA-256", fields as BufferSource))
  const checksum = full.slice(0, 16)
  checksum[15]! &= 0x3f
  return { commDs, offset, size, checksum } satisfies SegmentDescriptor
}

/** The two 32-byte leaves an index entry occupies. */
export const entryLeaves = (entry: SegmentDescriptor): readonly [Uint8Array, Uint8Array] => {
  const second = new Uint8Array(NODE)
  second.set(u64le(entry.offset), 0)
  second.set(u64le(entry.size), 8)
  second.set(entry.checksum, 16)
  return [entry.commDs, second]
}

export interface MerkleProof {
  /** Position of the proven node on its level. */
  readonly index: number
  /** Sibling nodes from the proven node's level up to just below the root. */
  readonly path: ReadonlyArray<Uint8Array>
}

export interface AggregateProof {
  /** Root of the deal (aggregate) tree. */
  readonly commPa: Uint8Array
  /** Padded size of the deal. */
  readonly sizePa: number
  readonly piece: Piece
  readonly entry: SegmentDescriptor
  readonly entryIndex: number
  readonly proofSubtree: MerkleProof
  readonly proofIndex: MerkleProof
}

/**
 * Places `piece` at slot `slot` (in units of its size) of a deal of `dealSize` padded bytes, with
 * its index entry at position `entryIndex`; every other leaf is zero. Returns the proofs.
 */
export const aggregate = async (
  piece: Piece,
  options: { readonly dealSize: number; readonly slot: number; readonly entryIndex: number }
): Promise<AggregateProof> => {
  const { dealSize, slot, entryIndex } = options
  const height = Math.log2(dealSize / NODE)
  if (!Number.isInteger(height)) throw new RangeError(`deal size must be a power of two, got ${dealSize}`)
  const slots = Math.floor(indexStart(dealSize) / piece.size)
  if (!(slot >= 0 && slot < slots)) throw new RangeError(`slot ${slot} outside 0..${slots - 1}`)
  if (!(entryIndex >= 0 && entryIndex < maxIndexEntries(dealSize))) {
    throw new RangeError(`entry index ${entryIndex} outside the data segment index`)
  }
  const offset = slot * piece.size
  const entry = await segmentDescriptor(piece.commP, offset, piece.size)
  const [first, second] = entryLeaves(entry)

  // Sparse tree: the known (non-zero) nodes per level; everything else is a zero commitment.
  const levels: Array<Map<number, Uint8Array>> = Array.from({ length: height + 1 }, () => new Map())
  const pieceLevel = Math.log2(piece.size / NODE)
  const entryPosition = indexStart(dealSize) / ENTRY_SIZE + entryIndex
  levels[pieceLevel]!.set(slot, piece.commP)
  levels[1]!.set(entryPosition, await hashNodes(first, second))
  for (let level = 1; level < height; level++) {
    for (const position of [...levels[level]!.keys()]) {
      const parent = position >> 1
      if (levels[level + 1]!.has(parent)) continue
      const left = levels[level]!.get(parent * 2) ?? (await zeroComm(level))
      const right = levels[level]!.get(parent * 2 + 1) ?? (await zeroComm(level))
      levels[level + 1]!.set(parent, await hashNodes(left, right))
    }
  }
  const prove = async (level: number, index: number): Promise<MerkleProof> => {
    const path: Array<Uint8Array> = []
    for (let at = level, position = index; at < height; at++, position >>= 1) {
      path.push(levels[at]!.get(position ^ 1) ?? (await zeroComm(at)))
    }
    return { index, path }
  }
  return {
    commPa: levels[height]!.get(0)!,
    sizePa: dealSize,
    piece,
    entry,
    entryIndex,
    proofSubtree: await prove(pieceLevel, slot),
    proofIndex: await prove(1, entryPosition)
  }
}

/** Folds a Merkle path from `node` up to the root. */
export const rootFrom = async (node: Uint8Array, proof: MerkleProof): Promise<Uint8Array> => {
  let current = node
  let position = proof.index
  for (const sibling of proof.path) {
    current = position % 2 === 0 ? await hashNodes(current, sibling) : await hashNodes(sibling, current)
    position = Math.floor(position / 2)
  }
  return current
}

/** Checks both inclusion proofs against the deal root, as a verifier does. */
export const verifyAggregate = async (
  commPa: Uint8Array,
  piece: { readonly commP: Uint8Array },
  entry: SegmentDescriptor,
  proofSubtree: MerkleProof,
  proofIndex: MerkleProof
): Promise<boolean> => {
  const [first, second] = entryLeaves(entry)
  const expected = await segmentDescriptor(entry.commDs, entry.offset, entry.size)
  return (
    equal(expected.checksum, entry.checksum) &&
    equal(entry.commDs, piece.commP) &&
    equal(await rootFrom(piece.commP, proofSubtree), commPa) &&
    equal(await rootFrom(await hashNodes(first, second), proofIndex), commPa)
  )
}

const equal = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i])

export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

export const fromHex = (hex: string): Uint8Array => {
  if (!/^(?:[0-9a-f]{2})*$/i.test(hex)) throw new Error(`not hex: ${hex.slice(0, 20)}`)
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16))
}
