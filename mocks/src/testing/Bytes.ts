/**
 * Reproducible test content, the same in every test that asks: a seeded LCG's bytes, and the
 * megabyte whose kubo CID is published.
 */
/** Reproducible test content: `length` bytes from a 32-bit LCG seeded with `seed` (top byte each). */
export const pseudoRandomBytes = (length: number, seed: number): Uint8Array => {
  const bytes = new Uint8Array(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

/**
 * 1 000 000 bytes from a 64-bit LCG (multiplier 6364136223846793005, increment 1442695040888963407),
 * the top byte of each state: a pseudo-random file whose kubo CID v1 is published.
 */
export const lcgMegabyte = (): Uint8Array => {
  const bytes = new Uint8Array(1_000_000)
  let state = 1n
  const mask = (1n << 64n) - 1n
  for (let i = 0; i < bytes.length; i++) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & mask
    bytes[i] = Number(state >> 56n)
  }
  return bytes
}
