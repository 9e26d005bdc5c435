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
import * as Platform from "#stream-cipher"
import { CHUNK, chunksOf, IV, MASTER, makeBlock, SALT } from "./webCipherInput.ts"

/** What a pass does; `stream*` go through `FileCipher`'s streams, `oneShot*` through `encrypt`/`decrypt`. */
export type PassKind =
  | "streamEncrypt"
  | "streamDecrypt"
  | "streamRoundTrip"
  | "oneShotEncrypt"
  | "oneShotDecrypt"
  | KeystreamKind

/** A keystream construction alone, in a plain loop over the input (no tag, no stream). */
export type KeystreamKind =
  | "webCryptoCtr"
  | "webCryptoCtrLarge"
  | "webCryptoCtrDetached"
  | "nobleCtrFresh"
  | "nobleCtrReused"
  | "freshCopy"

/** How a stream pass runs the web cipher; without it, as `FileCipher`'s streams do by default. */
export interface CipherSetup {
  readonly segmentKiB: number
  /** Workers used in turn; 0 is the in-page cipher (`@noble/ciphers`' AES-CTR). */
  readonly workers: number
  /** MiB a Worker enciphers before it is replaced. */
  readonly recycleMiB: number
  /** The Worker hands back a copy of WebCrypto's result, not the result itself. */
  readonly copy: boolean
  /** Each replacement Worker is started when half its predecessor's share is given. */
  readonly standby: boolean
  /** Segments in flight per Worker. */
  readonly inFlight: number
}

export interface PassRequest {
  readonly kind: PassKind
  readonly bytes: number
  readonly cipher?: CipherSetup | undefined
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

type FileKey = FileCipher.FileKey
type Encrypt = (plaintext: Stream.Stream<Uint8Array, never, never>) => Stream.Stream<Uint8Array, unknown, never>
type Decrypt = (ciphertext: Stream.Stream<Uint8Array, unknown, never>) => Stream.Stream<Uint8Array, unknown, never>

/**
 * The web cipher's internal streams with a segment length and Workers. The page is bundled under
 * the `browser` condition, where `#stream-cipher` is `FileCipherWeb.ts`; the typechecker resolves
 * it for Node, hence the shape spelled out here.
 */
/** How a pass sets up the web cipher's Workers (`false`: the in-page cipher). */
interface WorkerSetup {
  readonly workers: number
  readonly recycleBytes: number
  readonly copy: boolean
  readonly standby: boolean
  readonly inFlight: number
}

const WebCipher = Platform as unknown as {
  readonly encryptStreamIn: (
    segment: number,
    key: FileKey,
    options: { readonly iv: Uint8Array },
    workers: WorkerSetup | false
  ) => Encrypt
  readonly decryptStreamUnverifiedIn: (segment: number, key: FileKey, workers: WorkerSetup | false) => Decrypt
}

/** The streams a pass runs: `FileCipher`'s, or the web cipher set up as asked. */
const streamsOf = (key: FileKey, setup: CipherSetup | undefined): { encrypt: Encrypt; decrypt: Decrypt } => {
  if (setup === undefined)
    return { encrypt: FileCipher.encryptStream(key, { iv: IV }), decrypt: FileCipher.decryptStreamUnverified(key) }
  const workers =
    setup.workers === 0
      ? false
      : {
          workers: setup.workers,
          recycleBytes: setup.recycleMiB * 1024 * 1024,
          copy: setup.copy,
          standby: setup.standby,
          inFlight: setup.inFlight
        }
  return {
    encrypt: WebCipher.encryptStreamIn(setup.segmentKiB * 1024, key, { iv: IV }, workers),
    decrypt: WebCipher.decryptStreamUnverifiedIn(setup.segmentKiB * 1024, key, workers)
  }
}

const streamPass = async (request: PassRequest): Promise<PassResult> => {
  const key = await fileKey
  const { encrypt, decrypt } = streamsOf(key, request.cipher)
  const out = sink(request.hash)
  const between = sink(request.hash)
  const started = performance.now()
  if (request.kind === "streamEncrypt") {
    await Effect.runPromise(
      Stream.runForEach(plaintext(request.bytes).pipe(encrypt), (b) => Effect.sync(() => out.take(b)))
    )
  } else if (request.kind === "streamDecrypt") {
    const error = await Effect.runPromise(
      Effect.flip(Stream.runForEach(fakeSealed(request.bytes).pipe(decrypt), (b) => Effect.sync(() => out.take(b))))
    )
    if ((error as { _tag?: string })._tag !== "DecryptionFailed") throw new Error(`unexpected ${String(error)}`)
  } else {
    const sealed = plaintext(request.bytes).pipe(
      encrypt,
      Stream.tap((b) => Effect.sync(() => between.take(b)))
    )
    await Effect.runPromise(Stream.runForEach(sealed.pipe(decrypt), (b) => Effect.sync(() => out.take(b))))
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

/** One segment's output of a construction; `at` is the segment's offset in the file. */
type Keystream = (segment: Uint8Array<ArrayBuffer>, at: number) => Promise<Uint8Array>

/** The 16-byte counter block of the segment at `at` (zero IV). */
const counterAt = (at: number): Uint8Array<ArrayBuffer> => {
  const counter = new Uint8Array(16)
  new DataView(counter.buffer).setUint32(12, at / 16)
  return counter
}

/**
 * The ways a keystream can be made: WebCrypto's AES-CTR 256 KiB or 4 MiB per call, or with each
 * result copied out and detached (`ArrayBuffer.prototype.transfer`); the AES of
 * `@noble/ciphers` into a new buffer per segment (what the stream does) or into one reused
 * buffer; and, as the floor of any stream that hands out new buffers, only copying the input
 * into a new one.
 */
const keystreams = async (): Promise<Record<KeystreamKind, Keystream>> => {
  const raw = new Uint8Array(32)
  const key = await crypto.subtle.importKey("raw", raw, "AES-CTR", false, ["encrypt"])
  const webCrypto = (segment: Uint8Array<ArrayBuffer>, at: number) =>
    crypto.subtle.encrypt({ name: "AES-CTR", counter: counterAt(at), length: 32 }, key, segment)
  const reused = new Uint8Array(256 * 1024)
  const fresh = (segment: Uint8Array) => {
    const copy = new Uint8Array(segment.length)
    copy.set(segment)
    return copy
  }
  return {
    webCryptoCtr: async (segment, at) => new Uint8Array(await webCrypto(segment, at)),
    webCryptoCtrLarge: async (segment, at) => new Uint8Array(await webCrypto(segment, at)),
    webCryptoCtrDetached: async (segment, at) => {
      const result = await webCrypto(segment, at)
      const copy = fresh(new Uint8Array(result))
      // ES2024, beyond the project's lib: detaches `result` (Chromium 114 and later).
      ;(result as unknown as { transfer: (length: number) => ArrayBuffer }).transfer(0)
      return copy
    },
    nobleCtrFresh: async (segment, at) => {
      const out = fresh(segment)
      return ctr(raw, counterAt(at)).encrypt(out, out)
    },
    nobleCtrReused: async (segment, at) => ctr(raw, counterAt(at)).encrypt(segment, reused.subarray(0, segment.length)),
    freshCopy: async (segment) => fresh(segment)
  }
}

/** A keystream construction over the input in a plain loop, 256 KiB per segment (4 MiB for `webCryptoCtrLarge`). */
const keystreamPass = async (request: PassRequest & { readonly kind: KeystreamKind }): Promise<PassResult> => {
  const make = (await keystreams())[request.kind]
  const segment = new Uint8Array(request.kind === "webCryptoCtrLarge" ? 4 * 1024 * 1024 : 256 * 1024)
  for (let at = 0; at < segment.length; at += CHUNK) segment.set(block, at)
  const out = sink(request.hash)
  const started = performance.now()
  for (let at = 0; at < request.bytes; at += segment.length)
    out.take(await make(segment.subarray(0, Math.min(segment.length, request.bytes - at)), at))
  return { seconds: (performance.now() - started) / 1000, outBytes: out.count(), outputSha256: out.digest() }
}

const isKeystream = (request: PassRequest): request is PassRequest & { readonly kind: KeystreamKind } =>
  !request.kind.startsWith("stream") && !request.kind.startsWith("oneShot")

const run = (request: PassRequest): Promise<PassResult> =>
  isKeystream(request)
    ? keystreamPass(request)
    : request.kind.startsWith("stream")
      ? streamPass(request)
      : oneShotPass(request)

;(globalThis as { webCipherBench?: unknown }).webCipherBench = { run, ready: fileKey.then(() => true) }
