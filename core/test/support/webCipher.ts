/**
 * What the web cipher's stream tests share: one master key and header, deterministic inputs, the
 * documented file format computed by `node:crypto` (OpenSSL) independently of the library, and
 * streams cut into pieces as a file stream hands them over.
 */
import { createCipheriv } from "node:crypto"
import { Effect, Redacted, Stream } from "effect"
import { deriveFileKey } from "../../src/crypto/FileFormat.ts"

export const MASTER = "9d3c0b1f4a5e6d7c8b9a0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4"
export const SALT = Uint8Array.from({ length: 16 }, (_, i) => 0x30 + i)
export const IV = Uint8Array.from({ length: 12 }, (_, i) => 0x70 + i)
export const TAG_MISMATCH = "Decryption failed: the tag does not verify: wrong key, or the data was altered"

export const fileKey = await Effect.runPromise(deriveFileKey(MASTER, SALT))

/** Deterministic bytes, so a failure names a reproducible input. */
export const patterned = (n: number, seed = 1): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 167 + seed) & 255)

export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** The documented format computed by `node:crypto` (OpenSSL), independently of this library. */
export const nodeSealed = (plaintext: Uint8Array): Uint8Array => {
  const cipher = createCipheriv("aes-256-gcm", Redacted.value(fileKey.key), IV)
  return concat([SALT, IV, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
}

/**
 * `bytes` cut into pieces of the given sizes, cycled (a 0 is an empty piece; no sizes, or only
 * zeros, is one piece), handed over one piece per pull as a file stream does.
 */
export const cutInto = (bytes: Uint8Array, sizes: ReadonlyArray<number>) => {
  const pieces: Array<Uint8Array> = []
  if (sizes.some((size) => size > 0)) {
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = sizes[i % sizes.length]!
      pieces.push(bytes.subarray(at, at + size))
      at += size
    }
  } else pieces.push(bytes)
  return Stream.fromIterable(pieces).pipe(Stream.rechunk(1))
}

export const collect = <E, R>(stream: Stream.Stream<Uint8Array, E, R>) => Effect.map(Stream.runCollect(stream), concat)
