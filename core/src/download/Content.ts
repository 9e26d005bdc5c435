/**
 * A download's content: the plan of a call (`Plan.ts`) run by the one engine (`Engine.ts`), and
 * decrypted when asked, with the master key given or recovered for a signer.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as Cipher from "../crypto/FileCipher.ts"
import type { MasterKey } from "../crypto/FileFormat.ts"
import type { Hosts } from "../internal/Hosts.ts"
import type { FetchKeyFailure, KeyShards } from "../KeyShards.ts"
import { parseCid } from "../schema/Cid.ts"
import { slice } from "../verify/Retrieval.ts"
import { run } from "./Engine.ts"
import type { Decryption, DecryptOptions, FetchFailure, Options, ToFileOptions } from "./Models.ts"
import { type Operation, type Plan, planOf } from "./Plan.ts"

/** What a download needs. */
export interface DownloadDeps {
  readonly hosts: Hosts
  readonly fs: FileSystem.FileSystem
  readonly keyShards: KeyShards["Service"]
}

/** The plan of `operation` on `cid` with `options`, once the CID and the options are found valid. */
export const planFor = (deps: DownloadDeps, cid: string, operation: Operation, options: ToFileOptions | undefined) =>
  Effect.flatMap(parseCid(cid), (valid) => planOf({ hosts: deps.hosts, cid: valid, operation, options }))

/** The stored bytes of a CID (never decrypted), verified as asked, opened when the stream runs. */
export const open = (
  deps: DownloadDeps,
  cid: string,
  options: Options | undefined
): Stream.Stream<Uint8Array, FetchFailure> =>
  Stream.unwrap(Effect.map(planFor(deps, cid, "stream", options), (plan) => run(plan).stream))

/** The master key: given, or recovered from the key nodes for the owner. */
export const resolveKey = (
  { keyShards }: DownloadDeps,
  cid: string,
  decryption: Decryption
): Effect.Effect<MasterKey, FetchKeyFailure> =>
  "masterKey" in decryption ? Effect.succeed(decryption.masterKey) : keyShards.fetchKey({ ...decryption, cid })

/**
 * The plan's content, decrypted when `options` ask (authenticated only once the stream has
 * ended, the plaintext of `range` when given), and the report of its verification; the key is
 * fetched before any byte.
 */
export const content = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  plan: Plan,
  options: DecryptOptions | undefined
) {
  if (options?.decrypt === undefined) return run(plan)
  // Before downloading: without the key there is no point fetching the bytes.
  const key = yield* resolveKey(deps, plan.cid, options.decrypt)
  const { stream, report } = run(plan)
  // The plan reads the whole ciphertext even for a range: the tag at its end authenticates it all.
  return { stream: stream.pipe(Cipher.decryptStreamUnverified(key), slice(options.range, "read-all")), report }
})
