/**
 * The input of the web cipher benchmark (`webCipher.ts`), made the same way in Chromium and in
 * Node so that both sides can compare hashes without moving a gigabyte between them: one 64 KiB
 * block of deterministic bytes, repeated; a fixed master key, salt and IV.
 *
 * @since 0.1.0
 */

export const CHUNK = 64 * 1024
export const MASTER = "635aa83f11730c019aa3138e54876ea4541b8fca21e8104609ee6d699a475d59"
export const SALT = Uint8Array.from({ length: 16 }, (_, i) => 0x40 + i)
export const IV = Uint8Array.from({ length: 12 }, (_, i) => 0x90 + i)

/** 64 KiB from xorshift32: incompressible enough, and the same everywhere. */
export const makeBlock = (): Uint8Array => {
  const block = new Uint8Array(CHUNK)
  let x = 0x9e3779b9
  for (let i = 0; i < CHUNK; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    block[i] = x & 255
  }
  return block
}

/** `total` bytes as `CHUNK`-sized views of `block` (the last one shorter), none stored. */
export function* chunksOf(block: Uint8Array, total: number): Generator<Uint8Array> {
  for (let sent = 0; sent < total; sent += CHUNK) yield sent + CHUNK <= total ? block : block.subarray(0, total - sent)
}
