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
