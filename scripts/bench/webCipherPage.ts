/**
 * The browser side of the web cipher benchmark (`webCipher.ts` bundles this for a page in
 * Chromium): each pass runs the library's web cipher over generated input, its output hashed
 * (SHA-256 of `@noble/hashes`, incremental) or only counted, never kept.
 *
 * @since 0.1.0
 */
import { ctr } from "@noble/ciphers/aes.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { Effect, Stream } from "effect"
import { FileCipher } from "lighthouse-effect"
import { CHUNK, chunksOf, IV, MASTER, makeBlock, SALT } from "./webCipherInput.ts"

/** What a pass does; `stream*` go through `FileCipher`'s streams, `oneShot*` through `encrypt`/`decrypt`. */
export type PassKind =
  | "streamEncrypt"
  | "streamDecrypt"
  | "streamRoundTrip"
  | "oneShotEncrypt"
  | "oneShotDecrypt"
  | "bareCtr"
  | "bareCtrLarge"
  | "bareCtrDetached"
  | "nobleCtrFresh"
  | "nobleCtrReused"
  | "freshCopy"

export interface PassRequest {
  readonly kind: PassKind
  readonly bytes: number
  /** Hash the output (and, for a round trip, the ciphertext in between); a timed pass does not. */
  readonly hash: boolean
}

export interface PassResult {
  readonly seconds: number
  /** Bytes that came out (plaintext or ciphertext, header and tag included). */
  readonly outBytes: number
  readonly outputSha256?: string | undefined
  readonly ciphertextSha256?: string | undefined
}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** Counts, and hashes if asked, whatever passes through. */
const sink = (hash: boolean) => {
  const hasher = hash ? sha256.create() : undefined
  let count = 0
  return {
    take: (bytes: Uint8Array) => {
      count += bytes.length
      hasher?.update(bytes)
    },
    count: () => count,
    digest: () => (hasher === undefined ? undefined : toHex(hasher.digest()))
  }
}

const block = makeBlock()
const plaintext = (total: number) => Stream.fromIterable(chunksOf(block, total)).pipe(Stream.rechunk(1))
const fileKey = Effect.runPromise(FileCipher.deriveFileKey(MASTER, SALT))

/**
 * Decryption of the whole input without a real file: the header, the generated chunks as
 * ciphertext and a tag that cannot verify. Every byte is deciphered and released, then the stream
 * fails at the tag, as it would on an altered file.
 */
const fakeSealed = (total: number) =>
  Stream.make(new Uint8Array([...SALT, ...IV])).pipe(
    Stream.concat(plaintext(total)),
    Stream.concat(Stream.make(new Uint8Array(FileCipher.TAG_LENGTH)))
  )

const streamPass = async (request: PassRequest): Promise<PassResult> => {
  const key = await fileKey
  const out = sink(request.hash)
  const between = sink(request.hash)
  const started = performance.now()
  if (request.kind === "streamEncrypt") {
    await Effect.runPromise(
      Stream.runForEach(plaintext(request.bytes).pipe(FileCipher.encryptStream(key, { iv: IV })), (b) =>
        Effect.sync(() => out.take(b))
      )
    )
  } else if (request.kind === "streamDecrypt") {
    const error = await Effect.runPromise(
      Effect.flip(
        Stream.runForEach(fakeSealed(request.bytes).pipe(FileCipher.decryptStreamUnverified(key)), (b) =>
          Effect.sync(() => out.take(b))
        )
      )
    )
    if (error._tag !== "DecryptionFailed") throw new Error(`unexpected ${String(error)}`)
  } else {
    const sealed = plaintext(request.bytes).pipe(
      FileCipher.encryptStream(key, { iv: IV }),
      Stream.tap((b) => Effect.sync(() => between.take(b)))
    )
    await Effect.runPromise(
      Stream.runForEach(sealed.pipe(FileCipher.decryptStreamUnverified(key)), (b) => Effect.sync(() => out.take(b)))
    )
  }
  return {
    seconds: (performance.now() - started) / 1000,
    outBytes: out.count(),
    outputSha256: out.digest(),
    ciphertextSha256: between.digest()
  }
}

/** The whole input in memory, as the one-shot cipher needs it. */
const wholeInput = (total: number) => {
  const bytes = new Uint8Array(total)
  for (let at = 0; at < total; at += CHUNK) bytes.set(block.subarray(0, Math.min(CHUNK, total - at)), at)
  return bytes
}

const oneShotPass = async (request: PassRequest): Promise<PassResult> => {
  const key = await fileKey
  const out = sink(request.hash)
  let input: Uint8Array = wholeInput(request.bytes)
  if (request.kind === "oneShotDecrypt") input = await Effect.runPromise(FileCipher.encrypt(input, key, { iv: IV }))
  const started = performance.now()
  const result =
    request.kind === "oneShotEncrypt"
      ? await Effect.runPromise(FileCipher.encrypt(input, key, { iv: IV }))
      : await Effect.runPromise(FileCipher.decrypt(input, key))
  const seconds = (performance.now() - started) / 1000
  out.take(result)
  return { seconds, outBytes: out.count(), outputSha256: out.digest() }
}

/**
 * What the stream is built on, without it: WebCrypto's AES-CTR over the same input, 256 KiB per
 * call, in a plain loop (the floor of its time and of the garbage WebCrypto's outputs make).
 */
const bareCtrPass = async (request: PassRequest): Promise<PassResult> => {
  const key = await crypto.subtle.importKey("raw", new Uint8Array(32), "AES-CTR", false, ["encrypt"])
  const segment = new Uint8Array(256 * 1024)
  for (let at = 0; at < segment.length; at += CHUNK) segment.set(block, at)
  const out = sink(request.hash)
  const started = performance.now()
  for (let at = 0; at < request.bytes; at += segment.length) {
    const counter = new Uint8Array(16)
    new DataView(counter.buffer).setUint32(12, at / 16)
    const part = segment.subarray(0, Math.min(segment.length, request.bytes - at))
    out.take(new Uint8Array(await crypto.subtle.encrypt({ name: "AES-CTR", counter, length: 32 }, key, part)))
  }
  return { seconds: (performance.now() - started) / 1000, outBytes: out.count(), outputSha256: out.digest() }
}

/** One segment's output per construction; `at` is its offset in the file. */
type Keystream = (segment: Uint8Array, at: number) => Promise<Uint8Array>

const candidates = async (): Promise<Record<string, Keystream>> => {
  const raw = new Uint8Array(32)
  const key = await crypto.subtle.importKey("raw", raw, "AES-CTR", false, ["encrypt"])
  const counter = (at: number) => {
    const block = new Uint8Array(16)
    new DataView(block.buffer).setUint32(12, at / 16)
    return block
  }
  const reused = new Uint8Array(4 * 1024 * 1024)
  return {
    bareCtrLarge: async (segment, at) =>
      new Uint8Array(await crypto.subtle.encrypt({ name: "AES-CTR", counter: counter(at), length: 32 }, key, segment)),
    bareCtrDetached: async (segment, at) => {
      const result = await crypto.subtle.encrypt({ name: "AES-CTR", counter: counter(at), length: 32 }, key, segment)
      const copy = new Uint8Array(result.byteLength)
      copy.set(new Uint8Array(result))
      ;(result as unknown as { transfer: (n: number) => unknown }).transfer(0)
      return copy
    },
    nobleCtrFresh: async (segment, at) => ctr(raw, counter(at)).encrypt(segment, new Uint8Array(segment.length)),
    nobleCtrReused: async (segment, at) => ctr(raw, counter(at)).encrypt(segment, reused.subarray(0, segment.length)),
    freshCopy: async (segment) => {
      const copy = new Uint8Array(segment.length)
      copy.set(segment)
      return copy
    }
  }
}

/** A keystream construction over the input in a plain loop, 256 KiB per segment (4 MiB for `bareCtrLarge`). */
const candidatePass = async (request: PassRequest): Promise<PassResult> => {
  const make = (await candidates())[request.kind]!
  const segment = new Uint8Array(request.kind === "bareCtrLarge" ? 4 * 1024 * 1024 : 256 * 1024)
  for (let at = 0; at < segment.length; at += CHUNK) segment.set(block, at)
  const out = sink(request.hash)
  const started = performance.now()
  for (let at = 0; at < request.bytes; at += segment.length)
    out.take(await make(segment.subarray(0, Math.min(segment.length, request.bytes - at)), at))
  return { seconds: (performance.now() - started) / 1000, outBytes: out.count(), outputSha256: out.digest() }
}

const run = (request: PassRequest): Promise<PassResult> =>
  request.kind === "bareCtr"
    ? bareCtrPass(request)
    : request.kind.startsWith("bare") || request.kind.startsWith("noble") || request.kind === "freshCopy"
      ? candidatePass(request)
    : request.kind.startsWith("stream")
      ? streamPass(request)
      : oneShotPass(request)

;(globalThis as { webCipherBench?: unknown }).webCipherBench = { run, ready: fileKey.then(() => true) }
