/**
 * The provider's encrypted-file format (the public `FileCipher`):
 *
 *     salt (16) ‖ IV (12) ‖ AES-256-GCM ciphertext ‖ GCM tag (16)
 *
 * Its layout and key derivation (`FileFormat.ts`), the one-shot {@link encrypt} and
 * {@link decrypt} (WebCrypto, `FileCipherWeb.ts`), and streams through the best cipher of the
 * platform: {@link encryptStream} and {@link decryptStreamUnverified}.
 *
 * The platform is chosen where the package is resolved, not at run time: the package's
 * `#stream-cipher` import (package.json `imports`) is `FileCipherNode.ts` under the `node`
 * condition (Node, Bun and Deno set it, as do bundlers targeting Node), streaming in constant
 * memory, and `FileCipherWeb.ts` for browsers, workers and any other target, which streams in
 * constant memory too (WebCrypto's AES-CTR and per-segment GHASH, `StreamingGcm.ts`). So a
 * browser or worker bundle never holds `node:crypto`, whatever the bundler does with dynamic
 * imports.
 *
 * @since 0.1.0
 */
import type * as Stream from "effect/Stream"
import * as Platform from "#stream-cipher"
import type { CipherWorkerFailed, DecryptionFailed } from "../Errors.ts"
import type { EncryptOptions, FileKey, MasterKey } from "./FileFormat.ts"

export { isNode } from "../internal/runtime.ts"
export { decrypt, encrypt } from "./FileCipherWeb.ts"
export * from "./FileFormat.ts"

/**
 * Encrypts a plaintext stream into the provider's layout (`plaintext + 44` bytes) in constant
 * memory: on Node targets with `node:crypto` (`FileCipherNode.encryptStream`), elsewhere with
 * WebCrypto (`FileCipherWeb.encryptStream`), the same bytes either way. Each run is a new file: a new IV, and with a
 * master key a new salt and key.
 */
export const encryptStream: (
  key: MasterKey | FileKey,
  options?: EncryptOptions
) => <E, R>(plaintext: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Uint8Array, E | CipherWorkerFailed, R> =
  Platform.encryptStream

/**
 * Decrypts a ciphertext stream. **Unverified** until the stream has ended without error: only
 * for callers that hold the output back until then (a temporary file, a buffer). On Node
 * targets with `node:crypto` (`FileCipherNode.decryptStreamUnverified`), elsewhere with WebCrypto
 * (`FileCipherWeb.decryptStreamUnverified`, which verifies a file up to 256 KiB before emitting it).
 */
export const decryptStreamUnverified: (
  key: MasterKey | FileKey
) => <E, R>(
  ciphertext: Stream.Stream<Uint8Array, E, R>
) => Stream.Stream<Uint8Array, E | DecryptionFailed | CipherWorkerFailed, R> = Platform.decryptStreamUnverified
