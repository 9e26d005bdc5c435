/**
 * AES-256-GCM over a file that arrives in pieces, for the web path's streams (`FileCipherWeb.ts`).
 * WebCrypto's AES-GCM is one-shot, but GCM is AES-CTR plus a GHASH tag (NIST SP 800-38D), and both
 * halves can run piece by piece:
 *
 * - the keystream is AES-CTR with the low 32 bits as the counter, starting at `inc32(J0)`, where
 *   `J0 = IV ‖ 0³¹ ‖ 1` for a 96-bit IV. It comes from the AES of `@noble/ciphers`, written in
 *   place into a buffer this module allocates, not from WebCrypto: every WebCrypto call returns a
 *   new ArrayBuffer that Chromium owns on the DOM side and frees only at a full collection, so a
 *   gigabyte through WebCrypto's AES-CTR left hundreds of MiB waiting there, while buffers
 *   allocated by script go with the next minor collection (BENCHMARKS.md, "Web cipher in
 *   Chromium", measures both);
 * - the tag is `E(K, J0) ⊕ GHASH_H(C ‖ pad ‖ len(A) ‖ len(C))` with `H = E(K, 0¹²⁸)` and no
 *   associated data. GHASH is a polynomial in H, so it is computed a segment at a time: WebCrypto's
 *   AES-GCM with a segment as its associated data and nothing to encrypt returns
 *   `E(K, J0) ⊕ GHASH_H(X ‖ L)` for the segment X and its length block L (native code, and a
 *   16-byte result), and the segments' hashes are chained with a few products in GF(2¹²⁸), each
 *   computed by the GHASH of `@noble/ciphers` (GHASH keyed with b over the one block a is a·b).
 *
 * With T = S·H for the running hash S of the ciphertext so far, a segment X of n blocks gives
 * `T' = T·Hⁿ ⊕ G ⊕ L·H` where `G = GHASH_H(X ‖ L)`, and the whole file's GHASH is
 * `T ⊕ L_C·H` with `L_C = 0⁶⁴ ‖ len(C)`. So the bytes are exactly WebCrypto's one-shot AES-GCM
 * for the same key and IV, in memory that does not grow with the file. Segments are processed in
 * order; every segment but the last is a whole number of 16-byte blocks.
 *
 * @since 0.1.0
 */
import { GHASH } from "@noble/ciphers/_polyval.js"
import { ctr } from "@noble/ciphers/aes.js"
import * as Effect from "effect/Effect"
import { IV_LENGTH } from "./FileFormat.ts"

const BLOCK = 16

/** The running state of one file's AES-GCM: where the counter is, and the hash so far. */
export interface StreamingGcm {
  /** The 32-byte AES key, for the keystream. */
  readonly key: Uint8Array
  readonly gcmKey: CryptoKey
  readonly iv: Uint8Array
  /** `E(K, J0)`, which masks the GHASH into the tag. */
  readonly tagMask: Uint8Array
  /** `H = E(K, 0¹²⁸)`, the GHASH key. */
  readonly h: Uint8Array
  /** Per segment length in bytes: Hⁿ for its n blocks, and L·H for its length block L. */
  readonly factors: Map<number, { readonly hn: Uint8Array; readonly lh: Uint8Array }>
  /** The GHASH of the ciphertext so far, times H. */
  t: Uint8Array
  /** Blocks of ciphertext so far: the next segment's counter is `2 + blocks` (mod 2³²). */
  blocks: number
  /** Ciphertext bytes so far, for the final length block. */
  length: number
  /** Set once a segment that is not a whole number of blocks has gone through: no more may follow. */
  ended: boolean
}

// WebCrypto's typings want ArrayBuffer-backed views; copy only when the input is not one.
const buffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes)

/** The 16-byte counter block `IV ‖ BE32(counter)`. */
const counterBlock = (iv: Uint8Array, counter: number): Uint8Array<ArrayBuffer> => {
  const block = new Uint8Array(BLOCK)
  block.set(iv, 0)
  new DataView(block.buffer).setUint32(IV_LENGTH, counter >>> 0, false)
  return block
}

/** Bytes from counter `counter` to the point where the low 32 bits wrap to 0. */
const bytesBeforeWrap = (counter: number): number => (2 ** 32 - counter) * BLOCK

/**
 * `data` XOR the AES-CTR keystream from the counter block `IV ‖ BE32(counter)`, the low 32 bits
 * counting and wrapping as GCM's inc32 does (WebCrypto's `length: 32`), in a new buffer. The
 * input is copied into it first and enciphered in place: the buffer is word-aligned (the AES of
 * `@noble/ciphers` copies an unaligned input) and nothing else is allocated per byte.
 */
export const ctr32 = (key: Uint8Array, iv: Uint8Array, counter: number, data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(data.length)
  out.set(data)
  const first = Math.min(out.length, bytesBeforeWrap(counter >>> 0))
  const head = out.subarray(0, first)
  ctr(key, counterBlock(iv, counter)).encrypt(head, head)
  if (first < out.length) {
    const tail = out.subarray(first)
    ctr(key, counterBlock(iv, 0)).encrypt(tail, tail)
  }
  return out
}

// =============================================================================
// GF(2¹²⁸), in GHASH's bit order
// =============================================================================

/** a·b: the GHASH keyed with b over the one block a. */
const multiply = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const ghash = new GHASH(b, BLOCK)
  const product = ghash.update(a).digest()
  ghash.destroy()
  return product
}

const xorInto = (into: Uint8Array, from: Uint8Array): Uint8Array => {
  for (let i = 0; i < BLOCK; i++) into[i]! ^= from[i]!
  return into
}

/** hⁿ for n ≥ 1, by squaring. */
const power = (h: Uint8Array, n: number): Uint8Array => {
  let result: Uint8Array | undefined
  let square = h
  for (let k = n; k > 0; k = Math.floor(k / 2)) {
    if (k % 2 === 1) result = result === undefined ? square : multiply(result, square)
    if (k > 1) square = multiply(square, square)
  }
  return result!
}

/** The GHASH length block of `aBytes` of associated data and `cBytes` of ciphertext. */
const lengthBlock = (aBytes: number, cBytes: number): Uint8Array => {
  const block = new Uint8Array(BLOCK)
  const view = new DataView(block.buffer)
  view.setBigUint64(0, BigInt(aBytes) * 8n, false)
  view.setBigUint64(8, BigInt(cBytes) * 8n, false)
  return block
}

// =============================================================================
// Segments
// =============================================================================

/** Starts a file's AES-GCM with a 32-byte key and a 12-byte IV. */
export const start = (key: Uint8Array, iv: Uint8Array): Effect.Effect<StreamingGcm> =>
  Effect.map(
    Effect.promise(() => crypto.subtle.importKey("raw", buffer(key), "AES-GCM", false, ["encrypt"])),
    (gcmKey) => ({
      key: key.slice(),
      gcmKey,
      iv: iv.slice(),
      // The keystream of a zero block is the block cipher itself: at counter block 0¹²⁸ it is
      // H = E(K, 0¹²⁸), at IV ‖ 1 it is E(K, J0).
      tagMask: ctr32(key, iv, 1, new Uint8Array(BLOCK)),
      h: ctr32(key, new Uint8Array(IV_LENGTH), 0, new Uint8Array(BLOCK)),
      factors: new Map(),
      t: new Uint8Array(BLOCK),
      blocks: 0,
      length: 0,
      ended: false
    })
  )

const segmentAfterPartialBlock = () => new Error("StreamingGcm: a segment after one that was not whole blocks")

/** `GHASH_H(X ‖ L)` of a segment X as associated data: WebCrypto's tag of it, unmasked. */
const segmentHash = (gcm: StreamingGcm, segment: Uint8Array): Promise<Uint8Array> =>
  crypto.subtle
    .encrypt(
      { name: "AES-GCM", iv: buffer(gcm.iv), additionalData: buffer(segment), tagLength: 128 },
      gcm.gcmKey,
      new Uint8Array(0)
    )
    .then((tag) => xorInto(new Uint8Array(tag), gcm.tagMask))

/** Chains a segment's hash `g` into the running one and moves the counter past its `length` bytes. */
const absorb = (gcm: StreamingGcm, length: number, g: Uint8Array): void => {
  let factors = gcm.factors.get(length)
  if (factors === undefined) {
    const blocks = Math.ceil(length / BLOCK)
    factors = { hn: power(gcm.h, blocks), lh: multiply(lengthBlock(length, 0), gcm.h) }
    // Every segment but the last has the same length: one entry, and one for the last.
    if (length % BLOCK === 0) gcm.factors.set(length, factors)
  }
  gcm.t = xorInto(xorInto(multiply(gcm.t, factors.hn), g), factors.lh)
  gcm.blocks += Math.ceil(length / BLOCK)
  gcm.length += length
  gcm.ended = length % BLOCK !== 0
}

/**
 * Encrypts the next segment of plaintext; its ciphertext goes into the tag. Dies on a segment
 * after a partial one: that is a bug in the caller, not bad data.
 */
export const encryptSegment = (gcm: StreamingGcm, plaintext: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.gen(function* () {
    if (gcm.ended) return yield* Effect.die(segmentAfterPartialBlock())
    if (plaintext.length === 0) return new Uint8Array(0)
    const sealed = ctr32(gcm.key, gcm.iv, 2 + gcm.blocks, plaintext)
    absorb(gcm, sealed.length, yield* Effect.promise(() => segmentHash(gcm, sealed)))
    return sealed
  })

/**
 * Decrypts the next segment of ciphertext, which may be reused once this returns. The
 * plaintext is not authenticated until {@link tag} has been compared.
 */
export const decryptSegment = (gcm: StreamingGcm, ciphertext: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.gen(function* () {
    if (gcm.ended) return yield* Effect.die(segmentAfterPartialBlock())
    if (ciphertext.length === 0) return new Uint8Array(0)
    // WebCrypto copies the ciphertext when called: its hash runs while the keystream is computed.
    const [opened, g] = yield* Effect.promise(async () => {
      const hashing = segmentHash(gcm, ciphertext)
      return [ctr32(gcm.key, gcm.iv, 2 + gcm.blocks, ciphertext), await hashing] as const
    })
    absorb(gcm, ciphertext.length, g)
    return opened
  })

/**
 * Chains the hash of a segment enciphered elsewhere (a Worker, `SegmentWorkers.ts`): `masked` is
 * WebCrypto's tag of the segment's ciphertext as associated data, `E(K, J0) ⊕ GHASH_H(X ‖ L)`.
 * Segments are chained in order, as {@link encryptSegment} does; the counter moves past them.
 */
export const absorbMasked = (gcm: StreamingGcm, length: number, masked: Uint8Array): void => {
  if (gcm.ended) throw segmentAfterPartialBlock()
  absorb(gcm, length, xorInto(masked.slice(), gcm.tagMask))
}

/** The 16-byte tag of all the ciphertext so far. */
export const tag = (gcm: StreamingGcm): Uint8Array =>
  xorInto(xorInto(multiply(lengthBlock(0, gcm.length), gcm.h), gcm.t), gcm.tagMask)
