/**
 * Web3 Secret Storage v3 keystores: the format the provider's `createWallet` writes (through
 * ethers), and geth and MetaMask import. A private key is encrypted with AES-128-CTR under the
 * first half of a key derived from the password with scrypt (n 131072, r 8, p 1, as ethers and
 * geth write), and the keccak-256 MAC of the derived key's second half and the ciphertext tells
 * a wrong password from a right one. Reading also takes pbkdf2 (hmac-sha256) keystores and the
 * `Crypto` spelling ethers writes.
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
import { privateKeyToAccount } from "viem/accounts"
import { KeystoreError } from "./Errors.ts"

const Hex = Schema.String.check(Schema.isPattern(/^(0x)?[0-9a-fA-F]*$/))

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

/** OpenSSL's scrypt; its memory cap (32 MiB by default) raised to what n and r need. */
const deriveScrypt = (
  password: Uint8Array,
  salt: Uint8Array,
  params: { n: number; r: number; p: number; dklen: number }
) =>
  Effect.callback<Buffer, KeystoreError>((resume) => {
    const maxmem = 128 * params.n * params.r * 2 + 1024 * 1024
    scrypt(password, salt, params.dklen, { N: params.n, r: params.r, p: params.p, maxmem }, (error, key) =>
      resume(
        error === null ? Effect.succeed(key) : Effect.fail(new KeystoreError({ detail: `scrypt: ${error.message}` }))
      )
    )
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

/** A v3 keystore of `privateKey` (0x-hex) under `password`. */
export const encrypt = Effect.fn("Keystore.encrypt")(function* (
  privateKey: Redacted.Redacted<`0x${string}`>,
  password: Redacted.Redacted<string>
) {
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const derived = yield* deriveScrypt(passwordBytes(password), salt, scryptCost)
  const ciphertext = aes(derived.subarray(0, 16), iv, bytesOf(Redacted.value(privateKey)), "encrypt")
  const address = privateKeyToAccount(Redacted.value(privateKey)).address
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
  const derived = yield* deriveFor(section, password)
  const ciphertext = bytesOf(section.ciphertext)
  if (!timingSafeEqual(macOf(derived, ciphertext), bytesOf(section.mac)))
    return yield* new KeystoreError({ detail: "wrong password for this keystore" })
  const key =
    `0x${aes(derived.subarray(0, 16), bytesOf(section.cipherparams.iv), ciphertext, "decrypt").toString("hex")}` as const
  const address = privateKeyToAccount(key).address.toLowerCase() as `0x${string}`
  return { privateKey: Redacted.make(key, { label: "PrivateKey" }), address }
})
