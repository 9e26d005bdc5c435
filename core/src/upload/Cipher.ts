/**
 * The file cipher as streams, picking the implementation at run time: in Node the streaming
 * `crypto/FileCipherNode.ts` (constant memory; loaded with a dynamic import, so browser bundles
 * never pull in `node:crypto`), elsewhere the one-shot WebCrypto `crypto/FileCipher.ts` over the
 * collected bytes (AES-GCM in WebCrypto cannot stream). Same bytes either way.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { DecryptionFailed } from "../Errors.ts"
import * as FileCipher from "../crypto/FileCipher.ts"

/** Whether this runtime is Node (or one that implements its `node:crypto`). */
export const isNode: boolean =
  typeof globalThis.process !== "undefined" && typeof globalThis.process.versions?.node === "string"

const loadNode = Effect.promise(() => import("../crypto/FileCipherNode.ts"))

/** Encrypts a plaintext stream into the provider's layout (`plaintext + 44` bytes). */
export const encrypt =
  (key: FileCipher.MasterKey) =>
  <E>(plaintext: Stream.Stream<Uint8Array, E>): Stream.Stream<Uint8Array, E> =>
    isNode
      ? Stream.unwrap(Effect.map(loadNode, (node) => plaintext.pipe(node.encryptStream(key))))
      : Stream.unwrap(
          Effect.map(
            Effect.flatMap(Stream.mkUint8Array(plaintext), (bytes) => FileCipher.encrypt(bytes, key)),
            (out) => Stream.make(out)
          )
        )

/**
 * Decrypts a ciphertext stream. **Unverified** until the stream has ended without error: only
 * for callers that hold the output back until then (a temporary file, a buffer).
 */
export const decryptUnverified =
  (key: FileCipher.MasterKey) =>
  <E>(ciphertext: Stream.Stream<Uint8Array, E>): Stream.Stream<Uint8Array, E | DecryptionFailed> =>
    isNode
      ? Stream.unwrap(Effect.map(loadNode, (node) => ciphertext.pipe(node.decryptStreamUnverified(key))))
      : Stream.unwrap(
          Effect.map(
            Effect.flatMap(Stream.mkUint8Array(ciphertext), (bytes) => FileCipher.decrypt(bytes, key)),
            (out) => Stream.make(out)
          )
        )
