/**
 * Sealing a journal entry's shards for one signer, so that a copy of the journal is no key to
 * the files: AES-256-GCM under a key derived with HKDF-SHA-256 from the signer's EIP-191
 * signature of {@link SEAL_MESSAGE}. A private-key signer (viem's local accounts) signs
 * deterministically (RFC 6979), so the same signer derives the same key in the next process; a
 * wallet whose signatures are not deterministic could not open its entries again, which is why
 * the key is derived once per signer and checked on the entry it sealed (the entry's id is the
 * associated data). The signature is never stored.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { randomBytes } from "../crypto/FileFormat.ts"
import { JournalEntrySealed, type SignerError } from "../Errors.ts"
import { KeyShard } from "../schema/KeyShard.ts"
import type { Service as Signer } from "../signer/Service.ts"
import type { JournaledShards } from "./Models.ts"

/** What the signer signs; the signature is the secret the sealing key is derived from. */
export const SEAL_MESSAGE =
  "lighthouse-effect: unlock the journal of my unfinished encrypted uploads on this device. This signature is never sent anywhere."

const IV_LENGTH = 12
const HKDF_SALT = new TextEncoder().encode("lighthouse-effect/pending-keys/v1")
const Shards = Schema.fromJsonString(Schema.Array(KeyShard))

const hexBytes = (hex: string): Uint8Array<ArrayBuffer> => {
  const digits = hex.startsWith("0x") ? hex.slice(2) : hex
  const bytes = new Uint8Array(digits.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16)
  return bytes
}

// A signature per signer and process: a wallet that asks its user is asked once.
const keys = new WeakMap<Signer, CryptoKey>()

/** The signer's sealing key (signing {@link SEAL_MESSAGE} the first time). */
export const sealingKey = Effect.fnUntraced(function* (signer: Signer): Effect.fn.Return<CryptoKey, SignerError> {
  const known = keys.get(signer)
  if (known !== undefined) return known
  const signature = yield* signer.signMessage(SEAL_MESSAGE)
  const key = yield* Effect.promise(async () => {
    const base = await crypto.subtle.importKey("raw", hexBytes(signature), "HKDF", false, ["deriveKey"])
    return crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info: new TextEncoder().encode(signer.address) },
      base,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"]
    )
  })
  keys.set(signer, key)
  return key
})

/** The shards sealed under `key`, bound to the entry `id`. */
export const seal = (key: CryptoKey, id: string, shards: ReadonlyArray<KeyShard>): Effect.Effect<JournaledShards> =>
  Effect.promise(async () => {
    const iv = randomBytes(IV_LENGTH)
    const plaintext = new TextEncoder().encode(JSON.stringify(shards))
    const additionalData = new TextEncoder().encode(id)
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, key, plaintext))
    const out = new Uint8Array(IV_LENGTH + sealed.length)
    out.set(iv)
    out.set(sealed, IV_LENGTH)
    return { sealed: Base64.encode(out) }
  })

/** The shards of entry `id`; `JournalEntrySealed` when `key` is not the one they were sealed under. */
export const open = (
  key: CryptoKey | undefined,
  id: string,
  shards: JournaledShards
): Effect.Effect<ReadonlyArray<KeyShard>, JournalEntrySealed> => {
  if ("plain" in shards) return Effect.succeed(shards.plain)
  const refused = new JournalEntrySealed({ id })
  const bytes = Base64.decode(shards.sealed)
  if (key === undefined || Result.isFailure(bytes) || bytes.success.length <= IV_LENGTH) return Effect.fail(refused)
  const sealed = bytes.success
  return Effect.tryPromise({
    try: () =>
      crypto.subtle.decrypt(
        { name: "AES-GCM", iv: sealed.slice(0, IV_LENGTH), additionalData: new TextEncoder().encode(id) },
        key,
        sealed.slice(IV_LENGTH)
      ),
    catch: () => refused
  }).pipe(
    Effect.flatMap((plain) => Schema.decodeUnknownEffect(Shards)(new TextDecoder().decode(plain))),
    Effect.mapError(() => refused)
  )
}
