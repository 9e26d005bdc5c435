/**
 * What an encrypted upload needs of the key journal: the journal to use (the caller's
 * `PendingKeys`, else the layer's), how it seals an entry's shards (for the signer, when the upload
 * has one) and how long an interrupted save may still run (`SaveGrace`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { JournalFailed, SignerError } from "../Errors.ts"
import { type Service as Journal, PendingKeys } from "../PendingKeys.ts"
import type { JournaledShards } from "../pendingKeys/Models.ts"
import * as Seal from "../pendingKeys/Seal.ts"
import type { KeyShard } from "../schema/KeyShard.ts"
import type { Service as Signer } from "../signer/Service.ts"

export type { Journal }

/**
 * How long an encrypted upload interrupted while saving its key shards still lets the save run
 * before it is interrupted too (its entry then stays in the journal). @default 0 (the command line: 15 s)
 *
 * @category references
 */
export const SaveGrace = Context.Reference<Duration.Duration>("lighthouse-effect/Upload/SaveGrace", {
  defaultValue: () => Duration.zero
})

/** The caller's journal when its context has one, else the layer's. */
export const journalFor = (fallback: Journal): Effect.Effect<Journal> =>
  Effect.map(
    Effect.serviceOption(PendingKeys),
    Option.getOrElse(() => fallback)
  )

export const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** Seals shards for the upload's signer; without one they are kept as they are (the journal's own protection). */
export const sealFor = Effect.fnUntraced(function* (options: { readonly signer?: Signer | undefined }) {
  if (options.signer === undefined)
    return (_id: string, shards: ReadonlyArray<KeyShard>): Effect.Effect<JournaledShards> =>
      Effect.succeed({ plain: shards })
  const key = yield* Seal.sealingKey(options.signer)
  return (id: string, shards: ReadonlyArray<KeyShard>) => Seal.seal(key, id, shards)
})

/** The key that opens the entries sealed for `signer` (none without one). */
export const openingKey = (signer: Signer | undefined): Effect.Effect<CryptoKey | undefined, SignerError> =>
  signer === undefined ? Effect.succeed(undefined) : Seal.sealingKey(signer)

export type { JournalFailed }
