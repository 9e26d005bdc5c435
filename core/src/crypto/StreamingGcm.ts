/**
 * AES-256-GCM over a file that arrives in pieces, with WebCrypto and one audited GHASH, for the
 * web path's streams (`FileCipherWeb.ts`). WebCrypto's AES-GCM is one-shot, but GCM is AES-CTR
 * plus a GHASH tag (NIST SP 800-38D), and both halves can run piece by piece:
 *
 * - the keystream is WebCrypto's AES-CTR with the low 32 bits as the counter, starting at
 *   `inc32(J0)`, where `J0 = IV ‖ 0³¹ ‖ 1` for a 96-bit IV;
 * - the tag is `E(K, J0) ⊕ GHASH_H(C ‖ pad ‖ len(A) ‖ len(C))` with `H = E(K, 0¹²⁸)` and no
 *   associated data, the GHASH being `@noble/ciphers`' incremental one.
 *
 * So the bytes are exactly WebCrypto's one-shot AES-GCM for the same key and IV, in memory that
 * does not grow with the file. Segments are processed in order; every segment but the last is a
 * whole number of 16-byte blocks (the counter and the GHASH both work in blocks).
 *
 * @since 0.1.0
 */
import { GHASH } from "@noble/ciphers/_polyval.js"
import * as Effect from "effect/Effect"
import { IV_LENGTH, TAG_LENGTH } from "./FileFormat.ts"

const BLOCK = 16

/** The running state of one file's AES-GCM: where the counter is, and the GHASH so far. */
export interface StreamingGcm {
  readonly ctrKey: CryptoKey
  readonly iv: Uint8Array
  /** `E(K, J0)`, which masks the GHASH into the tag. */
  readonly tagMask: Uint8Array
  readonly ghash: GHASH
  /** Blocks of ciphertext so far: the next segment's counter is `2 + blocks` (mod 2³²). */
  blocks: number
  /** Ciphertext bytes so far, for GHASH's length block. */
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

// The low 32 bits count, and wrap, as GCM's inc32 does. WebCrypto copies `data` when called.
const ctrNow = (key: CryptoKey, counter: Uint8Array<ArrayBuffer>, data: Uint8Array): Promise<ArrayBuffer> =>
  crypto.subtle.encrypt({ name: "AES-CTR", counter, length: 32 }, key, buffer(data))

const ctr = (key: CryptoKey, counter: Uint8Array<ArrayBuffer>, data: Uint8Array) =>
  Effect.promise(() => ctrNow(key, counter, data))

/**
 * Starts a file's AES-GCM with a 32-byte key and a 12-byte IV. `expectedLength` sizes the GHASH
 * tables (larger ones are faster over long inputs).
 */
export const start = (key: Uint8Array, iv: Uint8Array, expectedLength: number): Effect.Effect<StreamingGcm> =>
  Effect.gen(function* () {
    const ctrKey = yield* Effect.promise(() =>
      crypto.subtle.importKey("raw", buffer(key), "AES-CTR", false, ["encrypt"])
    )
    // The keystream of a zero block is the block cipher itself: at counter block 0¹²⁸ it is
    // H = E(K, 0¹²⁸), at IV ‖ 1 it is E(K, J0).
    const h = new Uint8Array(yield* ctr(ctrKey, new Uint8Array(BLOCK), new Uint8Array(BLOCK)))
    const tagMask = new Uint8Array(yield* ctr(ctrKey, counterBlock(iv, 1), new Uint8Array(BLOCK)))
    const ghash = new GHASH(h, expectedLength)
    h.fill(0)
    return { ctrKey, iv: iv.slice(), tagMask, ghash, blocks: 0, length: 0, ended: false }
  })

const segmentAfterPartialBlock = () => new Error("StreamingGcm: a segment after one that was not whole blocks")

/** Takes a segment's ciphertext into the GHASH and moves the counter past it. */
const absorb = (gcm: StreamingGcm, ciphertext: Uint8Array): void => {
  gcm.ghash.update(ciphertext)
  gcm.blocks += Math.ceil(ciphertext.length / BLOCK)
  gcm.length += ciphertext.length
  gcm.ended = ciphertext.length % BLOCK !== 0
}

/**
 * Encrypts the next segment of plaintext; its ciphertext goes into the tag. Dies on a segment
 * after a partial one: that is a bug in the caller, not bad data.
 */
export const encryptSegment = (gcm: StreamingGcm, plaintext: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.gen(function* () {
    if (gcm.ended) return yield* Effect.die(segmentAfterPartialBlock())
    const sealed = new Uint8Array(yield* ctr(gcm.ctrKey, counterBlock(gcm.iv, 2 + gcm.blocks), plaintext))
    absorb(gcm, sealed)
    return sealed
  })

/**
 * Decrypts the next segment of ciphertext, which may be reused once this returns. The
 * plaintext is not authenticated until {@link tag} has been compared.
 */
export const decryptSegment = (gcm: StreamingGcm, ciphertext: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.suspend(() => {
    if (gcm.ended) return Effect.die(segmentAfterPartialBlock())
    // The keystream is computed off the main thread (in browsers) while the GHASH runs on it.
    const opened = ctrNow(gcm.ctrKey, counterBlock(gcm.iv, 2 + gcm.blocks), ciphertext)
    absorb(gcm, ciphertext)
    return Effect.map(
      Effect.promise(() => opened),
      (plain) => new Uint8Array(plain)
    )
  })

/** The 16-byte tag of all the ciphertext so far; the state is spent after it. */
export const tag = (gcm: StreamingGcm): Uint8Array => {
  const lengths = new Uint8Array(BLOCK)
  // len(A) = 0; len(C) in bits as a 64-bit big-endian number (a file is far below 2⁵³ bits).
  new DataView(lengths.buffer).setBigUint64(8, BigInt(gcm.length) * 8n, false)
  gcm.ghash.update(lengths)
  const out = gcm.ghash.digest()
  for (let i = 0; i < TAG_LENGTH; i++) out[i]! ^= gcm.tagMask[i]!
  gcm.ghash.destroy()
  return out
}
