/**
 * Web3 Secret Storage v3 keystores: the format the provider's `createWallet` writes (through
 * ethers), and geth and MetaMask import. A private key is encrypted with AES-128-CTR under the
 * first half of a key derived from the password with scrypt (n 131072, r 8, p 1, as ethers and
 * geth write), and the keccak-256 MAC of the derived key's second half and the ciphertext tells
 * a wrong password from a right one. Reading also takes pbkdf2 (hmac-sha256) keystores and the
 * `Crypto` spelling ethers writes.
 *
 * A keystore is read before anything is derived from it, and refused (a `KeystoreError` saying
 * why) unless it asks for what a real one does: a 32-byte derived key and MAC, a 16-byte iv, a
 * 32-byte ciphertext, and KDF work within `kdfLimits`. A hostile file otherwise hangs the command
 * (a pbkdf2 count of 2^31), or opens under any password (with `dklen` 16 the MAC covers no key).
 *
 * Primitives: scrypt, pbkdf2 and AES from Node's OpenSSL, keccak-256 from `@noble/hashes`.
 *
 * @since 0.1.0
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes, randomUUID, scrypt, timingSafeEqual } from "node:crypto"
import { keccak_256 } from "@noble/hashes/sha3.js"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { KeystoreError } from "./Errors.ts"

/** Hex of whole bytes. */
const Hex = Schema.String.check(Schema.isPattern(/^(0x)?([0-9a-fA-F]{2})*$/))

const ScryptParams = Schema.Struct({
  dklen: Schema.Int,
  salt: Hex,
  n: Schema.Int,
  r: Schema.Int,
  p: Schema.Int
})
const Pbkdf2Params = Schema.Struct({
  dklen: Schema.Int,
  salt: Hex,
  c: Schema.Int,
  prf: Schema.Literal("hmac-sha256")
})

const CryptoSection = Schema.Union([
  Schema.Struct({
    cipher: Schema.Literal("aes-128-ctr"),
    cipherparams: Schema.Struct({ iv: Hex }),
    ciphertext: Hex,
    kdf: Schema.Literal("scrypt"),
    kdfparams: ScryptParams,
    mac: Hex
  }),
  Schema.Struct({
    cipher: Schema.Literal("aes-128-ctr"),
    cipherparams: Schema.Struct({ iv: Hex }),
    ciphertext: Hex,
    kdf: Schema.Literal("pbkdf2"),
    kdfparams: Pbkdf2Params,
    mac: Hex
  })
])
type CryptoSection = typeof CryptoSection.Type

/** A v3 keystore as read: `crypto` or ethers' `Crypto`. */
const KeystoreFile = Schema.Struct({
  version: Schema.Literal(3),
  address: Schema.optionalKey(Schema.String),
  crypto: Schema.optionalKey(CryptoSection),
  Crypto: Schema.optionalKey(CryptoSection)
})

/** The scrypt cost every writer of v3 keystores uses by default (ethers, geth). */
export const scryptCost = { n: 131072, r: 8, p: 1, dklen: 32 } as const

const bytesOf = (hex: string) => Buffer.from(hex.replace(/^0x/, ""), "hex")

/**
 * What a keystore's KDF may ask of this machine. geth (`golang.org/x/crypto/scrypt`) and ethers
 * (`@noble/hashes`) take a scrypt N that is a power of 2 above 1, r and p of at least 1, r·p
 * below 2^30, and 128·r·(N+p) bytes of memory up to 1 GiB + 1 KiB (ethers), and a pbkdf2 count
 * with no bound at all: a small N with a huge p, or a count of 2^31, then runs for an hour. So
 * the work is bounded too: scrypt's N·r·p at most 2^21 (geth's standard N 2^18 with r 8 and p 1,
 * the most any writer uses by default; it also keeps the memory within 512 MiB), and pbkdf2's
 * count at most 2^24 (64 times the 262 144 keythereum and EIP-2335 keystores use): seconds each.
 */
export const kdfLimits = { scryptWork: 2 ** 21, pbkdf2Count: 2 ** 24 } as const

const isPowerOfTwo = (n: number) => n > 1 && Number.isInteger(Math.log2(n))

const scryptRefusal = ({ n, r, p }: typeof ScryptParams.Type): string | undefined => {
  if (!isPowerOfTwo(n)) return `scrypt n is ${n}: it must be a power of 2 above 1`
  if (r < 1 || p < 1) return `scrypt r and p are ${r} and ${p}: both must be at least 1`
  if (r * p >= 2 ** 30) return `scrypt r·p is ${r * p}: it must be below 2^30`
  if (n >= 2 ** (16 * r)) return `scrypt n is ${n}: with r ${r} it must be below 2^${16 * r} (RFC 7914)`
  if (n * r * p > kdfLimits.scryptWork)
    return `scrypt work n·r·p is ${n * r * p}; at most ${kdfLimits.scryptWork} is allowed`
  return undefined
}

const pbkdf2Refusal = ({ c }: typeof Pbkdf2Params.Type): string | undefined =>
  c < 1 || c > kdfLimits.pbkdf2Count
    ? `pbkdf2 count c is ${c}: it must be from 1 to ${kdfLimits.pbkdf2Count}`
    : undefined

/** Why `section` is refused before any key is derived from it, if it is. */
const refusal = (section: CryptoSection): string | undefined => {
  const size = (hex: string) => bytesOf(hex).length
  if (section.kdfparams.dklen !== 32)
    return `dklen is ${section.kdfparams.dklen}: it must be 32 (the MAC covers the derived key's second half)`
  if (size(section.mac) !== 32) return `the MAC is ${size(section.mac)} bytes: it must be 32 (keccak-256)`
  if (size(section.cipherparams.iv) !== 16)
    return `the iv is ${size(section.cipherparams.iv)} bytes: aes-128-ctr takes 16`
  if (size(section.ciphertext) !== 32) return `the ciphertext is ${size(section.ciphertext)} bytes: a private key is 32`
  return section.kdf === "scrypt" ? scryptRefusal(section.kdfparams) : pbkdf2Refusal(section.kdfparams)
}

/**
 * OpenSSL's scrypt; its memory cap (32 MiB by default) raised to what it counts for these
 * parameters (p blocks of 128·r bytes, and N + 2 more), with room to spare. Parameters it still
 * refuses (it throws at once) are a `KeystoreError` like its later failures.
 */
const deriveScrypt = (
  password: Uint8Array,
  salt: Uint8Array,
  params: { n: number; r: number; p: number; dklen: number }
) =>
  Effect.callback<Buffer, KeystoreError>((resume) => {
    const failed = (error: Error) => Effect.fail(new KeystoreError({ detail: `scrypt: ${error.message}` }))
    const maxmem = 128 * params.r * (params.n + params.p + 2) + 1024 * 1024
    try {
      scrypt(password, salt, params.dklen, { N: params.n, r: params.r, p: params.p, maxmem }, (error, key) =>
        resume(error === null ? Effect.succeed(key) : failed(error))
      )
    } catch (error) {
      resume(failed(error instanceof Error ? error : new Error(String(error))))
    }
  })

const derivePbkdf2 = (password: Uint8Array, salt: Uint8Array, c: number, dklen: number) =>
  Effect.callback<Buffer, KeystoreError>((resume) => {
    pbkdf2(password, salt, c, dklen, "sha256", (error, key) =>
      resume(
        error === null ? Effect.succeed(key) : Effect.fail(new KeystoreError({ detail: `pbkdf2: ${error.message}` }))
      )
    )
  })

/** Passwords are NFKD-normalised UTF-8, as ethers does. */
const passwordBytes = (password: Redacted.Redacted<string>) =>
  new TextEncoder().encode(Redacted.value(password).normalize("NFKD"))

const macOf = (derived: Uint8Array, ciphertext: Uint8Array) =>
  keccak_256(Buffer.concat([derived.subarray(16, 32), ciphertext]))

const aes = (key: Uint8Array, iv: Uint8Array, data: Uint8Array, direction: "encrypt" | "decrypt") => {
  const cipher =
    direction === "encrypt" ? createCipheriv("aes-128-ctr", key, iv) : createDecipheriv("aes-128-ctr", key, iv)
  return Buffer.concat([cipher.update(data), cipher.final()])
}

/** viem's accounts, loaded only when a keystore is opened or written (a start that needs neither skips it). */
const accounts = Effect.promise(() => import("viem/accounts"))

/** A v3 keystore of `privateKey` (0x-hex) under `password`. */
export const encrypt = Effect.fn("Keystore.encrypt")(function* (
  privateKey: Redacted.Redacted<`0x${string}`>,
  password: Redacted.Redacted<string>
) {
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const derived = yield* deriveScrypt(passwordBytes(password), salt, scryptCost)
  const ciphertext = aes(derived.subarray(0, 16), iv, bytesOf(Redacted.value(privateKey)), "encrypt")
  const address = (yield* accounts).privateKeyToAccount(Redacted.value(privateKey)).address
  return {
    version: 3,
    id: randomUUID(),
    address: address.slice(2).toLowerCase(),
    crypto: {
      cipher: "aes-128-ctr",
      cipherparams: { iv: iv.toString("hex") },
      ciphertext: ciphertext.toString("hex"),
      kdf: "scrypt",
      kdfparams: { ...scryptCost, salt: salt.toString("hex") },
      mac: Buffer.from(macOf(derived, ciphertext)).toString("hex")
    }
  } as const
})

const deriveFor = (section: CryptoSection, password: Redacted.Redacted<string>) =>
  section.kdf === "scrypt"
    ? deriveScrypt(passwordBytes(password), bytesOf(section.kdfparams.salt), section.kdfparams)
    : derivePbkdf2(
        passwordBytes(password),
        bytesOf(section.kdfparams.salt),
        section.kdfparams.c,
        section.kdfparams.dklen
      )

/** The private key (0x-hex, redacted) and address of a v3 keystore's JSON text. */
export const decrypt = Effect.fn("Keystore.decrypt")(function* (text: string, password: Redacted.Redacted<string>) {
  const file = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(KeystoreFile))(text).pipe(
    Effect.mapError(() => new KeystoreError({ detail: "not a v3 keystore (scrypt or pbkdf2, aes-128-ctr)" }))
  )
  const section = file.crypto ?? file.Crypto
  if (section === undefined) return yield* new KeystoreError({ detail: "not a v3 keystore: no crypto section" })
  const refused = refusal(section)
  if (refused !== undefined) return yield* new KeystoreError({ detail: `keystore refused: ${refused}` })
  const derived = yield* deriveFor(section, password)
  const ciphertext = bytesOf(section.ciphertext)
  if (!timingSafeEqual(macOf(derived, ciphertext), bytesOf(section.mac)))
    return yield* new KeystoreError({ detail: "wrong password for this keystore" })
  const key =
    `0x${aes(derived.subarray(0, 16), bytesOf(section.cipherparams.iv), ciphertext, "decrypt").toString("hex")}` as const
  const address = (yield* accounts).privateKeyToAccount(key).address.toLowerCase() as `0x${string}`
  return { privateKey: Redacted.make(key, { label: "PrivateKey" }), address }
})
