/**
 * Leaf hashing where `node:worker_threads` is not (browsers, web workers, workerd): every block is
 * hashed on the builder's own thread, as WebCrypto does it (already off the main thread's
 * JavaScript, as a promise). The package's `#leaf-worker` import resolves here except under the
 * `node` condition (`LeafWorkerNode.ts`), which Bun and Deno match too.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { LeafHashing } from "./Layout.ts"

/** A file's bytes hashed on the builder's thread before its leaves would go to a worker. */
export const WORKER_AFTER = 16 * 1024 * 1024

/** What a calculator's worker would be made for (as `LeafWorkerNode`'s). */
export interface LeafWorkerOptions {
  readonly leafBytes: number
  readonly after?: number | undefined
  readonly mode?: "auto" | "on" | "off" | undefined
}

/** No worker here: the layout hashes every block itself. */
export const leafWorker = (_options: LeafWorkerOptions): Effect.Effect<LeafHashing | undefined, never, Scope.Scope> =>
  Effect.succeed(undefined)
