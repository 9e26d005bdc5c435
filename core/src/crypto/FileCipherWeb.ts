/**
 * The provider's encrypted-file format (`FileFormat.ts`) with WebCrypto, so it runs in browsers,
 * workers and Node alike. {@link encrypt} and {@link decrypt} take a whole file (WebCrypto's
 * AES-GCM is one-shot). The streams run in constant memory: a file up to one segment (256 KiB) goes
 * through the one-shot AES-GCM, a longer one segment by segment through `StreamingGcm.ts`
 * (GHASH chained over segments), with the same bytes: each segment's keystream and hash made by
 * WebCrypto in recycled Workers (`SegmentWorkers.ts`), a few segments in flight at once, or where
 * Workers cannot start, in the page with the AES-CTR of `@noble/ciphers`. Node targets stream with
 * `FileCipherNode.ts` instead; the public `FileCipher` (`FileCipher.ts`) picks one per platform.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { CipherWorkerFailed, type DecryptionFailed } from "../Errors.ts"
import {
  checkLength,
  type EncryptOptions,
  equalBytes,
  type FileKey,
  HEADER_LENGTH,
  IV_LENGTH,
  keyForHeader,
  type MasterKey,
  OVERHEAD,
  randomBytes,
  resolveFileKey,
  SALT_LENGTH,
  TAG_LENGTH,
  tagMismatch,
  tooShort
} from "./FileFormat.ts"
import * as Workers from "./SegmentWorkers.ts"
import * as Gcm from "./StreamingGcm.ts"

// WebCrypto's typings want ArrayBuffer-backed views; copy only when the input is not one.
const buffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes)

const importAesKey = (fileKey: FileKey, usage: "encrypt" | "decrypt") =>
  Effect.promise(() => crypto.subtle.importKey("raw", buffer(Redacted.value(fileKey.key)), "AES-GCM", false, [usage]))

// =============================================================================
// One-shot
// =============================================================================

/**
 * Encrypts a whole file in memory into the provider's layout. With a master key, a fresh salt
 * and key are made for this file; with a {@link FileKey}, its salt is used.
 */
export const encrypt = Effect.fn("FileCipher.encrypt")(function* (
  plaintext: Uint8Array,
  key: MasterKey | FileKey,
  options?: EncryptOptions
): Effect.fn.Return<Uint8Array> {
  const iv = options?.iv ?? randomBytes(IV_LENGTH)
  yield* checkLength("iv", iv, IV_LENGTH)
  const fileKey = yield* resolveFileKey(key)
  const sealed = yield* sealBody(fileKey, iv, plaintext)
  const out = new Uint8Array(HEADER_LENGTH + sealed.byteLength)
  out.set(fileKey.salt, 0)
  out.set(iv, SALT_LENGTH)
  out.set(sealed, HEADER_LENGTH)
  return out
})

/** AES-GCM in one call: the ciphertext and tag of `plaintext`. */
const sealBody = (fileKey: FileKey, iv: Uint8Array, plaintext: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.flatMap(importAesKey(fileKey, "encrypt"), (aesKey) =>
    Effect.promise(
      async () =>
        new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: buffer(iv) }, aesKey, buffer(plaintext)))
    )
  )

/** AES-GCM in one call: the plaintext of `sealed` (ciphertext and tag), or `DecryptionFailed`. */
const openBody = (fileKey: FileKey, iv: Uint8Array, sealed: Uint8Array): Effect.Effect<Uint8Array, DecryptionFailed> =>
  Effect.flatMap(importAesKey(fileKey, "decrypt"), (aesKey) =>
    Effect.tryPromise({
      try: async () =>
        new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: buffer(iv) }, aesKey, buffer(sealed))),
      catch: tagMismatch
    })
  )

/**
 * Decrypts a whole file in the provider's layout. A wrong key, altered bytes or a truncated file
 * fail with `DecryptionFailed`; nothing unauthenticated is returned.
 */
export const decrypt = Effect.fn("FileCipher.decrypt")(function* (
  ciphertext: Uint8Array,
  key: MasterKey | FileKey
): Effect.fn.Return<Uint8Array, DecryptionFailed> {
  if (ciphertext.length < OVERHEAD) return yield* tooShort()
  const fileKey = yield* keyForHeader(key, ciphertext.subarray(0, SALT_LENGTH))
  return yield* openBody(fileKey, ciphertext.slice(SALT_LENGTH, HEADER_LENGTH), ciphertext.subarray(HEADER_LENGTH))
})

// =============================================================================
// Streams (the signatures of FileCipherNode's)
// =============================================================================

/**
 * Bytes the streams hold at most (plus a tag when decrypting), and the longest file they
 * encrypt or decrypt with the one-shot AES-GCM (verified before release, and one call).
 */
export const SEGMENT_LENGTH = 256 * 1024

/** A buffer that input is copied into until it holds a segment; replaced when it goes to a Worker. */
interface Pending {
  bytes: Uint8Array<ArrayBuffer>
  filled: number
}

// =============================================================================
// Segments in Workers (SegmentWorkers.ts), in order
// =============================================================================

/**
 * Segments on their way through the Workers, oldest first. The Workers are opened with the first
 * segment (a file of one segment never starts one); `false` where they cannot run.
 */
interface Pipeline {
  readonly options: Workers.WorkerOptions | false
  workers: Workers.SegmentWorkers | undefined | false
  readonly inFlight: Array<Promise<Workers.SegmentResult>>
  /** Input buffers back from the Workers, to be filled again (no new memory to fault in). */
  readonly spare: Array<ArrayBuffer>
  /** Blocks sent so far: the next segment's counter is `2 + sent` (mod 2³²). */
  sent: number
}

/** A buffer for the next segment: one back from the Workers, or a new one. */
const nextBuffer = (pipeline: Pipeline, length: number): Uint8Array<ArrayBuffer> => {
  const spare = pipeline.spare.pop()
  return spare !== undefined && spare.byteLength === length ? new Uint8Array(spare) : new Uint8Array(length)
}

/** Segments in flight at once: `SegmentWorkers.IN_FLIGHT` per Worker by default, enciphered or waiting to go. */
const depth = (pipeline: Pipeline): number =>
  pipeline.workers === undefined || pipeline.workers === false
    ? 0
    : pipeline.workers.inFlight * pipeline.workers.slots.length

const newPipeline = (options: Workers.WorkerOptions | false): Pipeline => ({
  options,
  workers: options === false ? false : undefined,
  inFlight: [],
  spare: [],
  sent: 0
})

/** The Workers, opened on first use; `false` where they cannot run (the in-page cipher is used). */
const workersOf = (pipeline: Pipeline, fileKey: FileKey, iv: Uint8Array) =>
  Effect.gen(function* () {
    if (pipeline.workers === undefined && pipeline.options !== false) {
      const options = pipeline.options
      pipeline.workers = (yield* Effect.promise(() => Workers.open(Redacted.value(fileKey.key), iv, options))) ?? false
    }
    return pipeline.workers === undefined ? false : pipeline.workers
  })

/** A Worker's failure as `SegmentWorkers` reports it; anything else it throws, named. */
const workerFailure = (error: unknown): CipherWorkerFailed =>
  error instanceof CipherWorkerFailed ? error : new CipherWorkerFailed({ reason: String(error) })

/**
 * The oldest segment's output once its Worker has answered; its hash goes into the tag. A failed
 * Worker fails the stream with `CipherWorkerFailed` (the Workers are stopped already).
 */
const settle = (gcm: Gcm.StreamingGcm, pipeline: Pipeline) =>
  Effect.map(Effect.tryPromise({ try: () => pipeline.inFlight.shift()!, catch: workerFailure }), (result) => {
    Gcm.absorbMasked(gcm, result.bytes.length, result.maskedHash)
    pipeline.spare.push(result.input)
    return result.bytes
  })

/** Every segment's output still in flight, in order. */
const drain = (gcm: Gcm.StreamingGcm | undefined, pipeline: Pipeline) =>
  Effect.gen(function* () {
    const out: Array<Uint8Array> = []
    while (gcm !== undefined && pipeline.inFlight.length > 0) out.push(yield* settle(gcm, pipeline))
    return out
  })

/**
 * Sends the first `length` bytes of `buffer` (transferred: detached here) to the Workers; the
 * outputs of the oldest segments once more than {@link depth} are in flight.
 */
const submit = (
  gcm: Gcm.StreamingGcm,
  workers: Workers.SegmentWorkers,
  pipeline: Pipeline,
  buffer: ArrayBuffer,
  length: number,
  direction: Workers.Direction
) =>
  Effect.gen(function* () {
    const result = Workers.run(workers, buffer, length, 2 + pipeline.sent, direction)
    // A stream that ends early closes the Workers, failing what is in flight that nobody awaits.
    result.catch(() => undefined)
    pipeline.inFlight.push(result)
    pipeline.sent += length / 16
    const out: Array<Uint8Array> = []
    while (pipeline.inFlight.length > depth(pipeline)) out.push(yield* settle(gcm, pipeline))
    return out
  })

const closeWorkers = (pipeline: Pipeline) =>
  Effect.sync(() => {
    if (pipeline.workers !== undefined && pipeline.workers !== false) Workers.close(pipeline.workers)
    pipeline.workers = false
  })

/**
 * Copies `chunk[at..]` into `pending` up to its capacity; returns how many bytes were taken.
 */
const fill = (pending: Pending, chunk: Uint8Array, at: number): number => {
  const taken = Math.min(pending.bytes.length - pending.filled, chunk.length - at)
  pending.bytes.set(chunk.subarray(at, at + taken), pending.filled)
  pending.filled += taken
  return taken
}

/** The state of one run of {@link encryptStreamIn}: the pending plaintext, and the GCM once a segment has gone. */
interface Sealing {
  readonly fileKey: FileKey
  readonly iv: Uint8Array
  readonly pending: Pending
  readonly pipeline: Pipeline
  gcm: Gcm.StreamingGcm | undefined
}

const sealSegment = (state: Sealing, plaintext: Uint8Array) =>
  Effect.gen(function* () {
    state.gcm ??= yield* Gcm.start(Redacted.value(state.fileKey.key), state.iv)
    return yield* Gcm.encryptSegment(state.gcm, plaintext)
  })

/**
 * The full pending segment's ciphertext: in a Worker, the buffer transferred there (one back from
 * the Workers takes its place), or in the page. The outputs that are due, in order.
 */
const sealPending = (state: Sealing) =>
  Effect.gen(function* () {
    const { pending } = state
    state.gcm ??= yield* Gcm.start(Redacted.value(state.fileKey.key), state.iv)
    const workers = yield* workersOf(state.pipeline, state.fileKey, state.iv)
    pending.filled = 0
    if (workers === false) return [yield* Gcm.encryptSegment(state.gcm, pending.bytes)]
    const full = pending.bytes
    pending.bytes = nextBuffer(state.pipeline, full.length)
    return yield* submit(state.gcm, workers, state.pipeline, full.buffer, full.length, "encrypt")
  })

/**
 * Encrypts the segments that more bytes follow: a full segment waits for the next byte, so a
 * file of exactly one segment still ends on the one-shot path. In the page, whole segments inside
 * `chunk` are encrypted where they are, without a copy; a Worker gets its own buffer.
 */
const sealChunk = (state: Sealing, chunk: Uint8Array) =>
  Effect.gen(function* () {
    const { pending } = state
    const segment = pending.bytes.length
    const out: Array<Uint8Array> = []
    let at = 0
    while (at < chunk.length) {
      if (pending.filled === segment) out.push(...(yield* sealPending(state)))
      const direct =
        pending.filled === 0 && state.pipeline.workers === false
          ? Math.floor((chunk.length - at - 1) / segment) * segment
          : 0
      if (direct > 0) {
        out.push(yield* sealSegment(state, chunk.subarray(at, at + direct)))
        at += direct
      } else at += fill(pending, chunk, at)
    }
    return out
  })

/** The rest of the ciphertext and the tag; the whole sealed body when no segment has gone (one-shot). */
const sealEnd = (state: Sealing) =>
  Effect.gen(function* () {
    const rest = state.pending.bytes.subarray(0, state.pending.filled)
    if (state.gcm === undefined) return [yield* sealBody(state.fileKey, state.iv, rest)]
    const earlier = yield* drain(state.gcm, state.pipeline)
    const last = rest.length > 0 ? yield* Gcm.encryptSegment(state.gcm, rest) : new Uint8Array(0)
    return [...earlier, last, Gcm.tag(state.gcm)]
  })

/**
 * @internal {@link encryptStream} with a given segment length (a multiple of 16) and Workers
 * (`false`: the in-page cipher only), for tests and the benchmark.
 */
export const encryptStreamIn =
  (
    segmentLength: number,
    key: MasterKey | FileKey,
    options?: EncryptOptions,
    workers: Workers.WorkerOptions | false = {}
  ) =>
  <E, R>(plaintext: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | CipherWorkerFailed, R> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const iv = options?.iv ?? randomBytes(IV_LENGTH)
        yield* checkLength("iv", iv, IV_LENGTH)
        const fileKey = yield* resolveFileKey(key)
        const state: Sealing = {
          fileKey,
          iv: iv.slice(),
          pending: { bytes: new Uint8Array(segmentLength), filled: 0 },
          pipeline: newPipeline(workers),
          gcm: undefined
        }
        const header = new Uint8Array(HEADER_LENGTH)
        header.set(fileKey.salt, 0)
        header.set(iv, SALT_LENGTH)
        return Stream.succeed(header).pipe(
          Stream.concat(Stream.flattenIterable(Stream.mapEffect(plaintext, (chunk) => sealChunk(state, chunk)))),
          Stream.concat(Stream.flattenIterable(Stream.fromEffect(Effect.suspend(() => sealEnd(state))))),
          Stream.filter((bytes) => bytes.length > 0),
          Stream.ensuring(closeWorkers(state.pipeline))
        )
      })
    )

/**
 * Encrypts a plaintext stream into the provider's layout (`plaintext + 44` bytes) in constant
 * memory: the 28-byte header first, then the ciphertext a segment (256 KiB) at a time, then the
 * tag; a file up to one segment comes out in one piece after the header. Each run is a new
 * file: a new IV, and with a master key a new salt and key.
 */
export const encryptStream = (
  key: MasterKey | FileKey,
  options?: EncryptOptions
): (<E, R>(plaintext: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Uint8Array, E | CipherWorkerFailed, R>) =>
  encryptStreamIn(SEGMENT_LENGTH, key, options)

/** The state of one run of {@link decryptStreamUnverifiedIn}. */
interface Opening {
  readonly key: MasterKey | FileKey
  readonly header: Pending
  /** Ciphertext not yet deciphered: a segment and the 16 bytes that are the tag if the file ends there. */
  readonly pending: Pending
  readonly pipeline: Pipeline
  fileKey: FileKey | undefined
  gcm: Gcm.StreamingGcm | undefined
}

const ivOf = (state: Opening) => state.header.bytes.subarray(SALT_LENGTH, HEADER_LENGTH)

/**
 * Deciphers the full pending buffer but its last 16 bytes (which stay pending: they are the tag if
 * the file ends there): in a Worker, the buffer transferred there (one back from the Workers takes
 * its place), or in the page. The outputs that are due, in order.
 */
const openPending = (state: Opening, fileKey: FileKey) =>
  Effect.gen(function* () {
    const { pending } = state
    const segment = pending.filled - TAG_LENGTH
    state.gcm ??= yield* Gcm.start(Redacted.value(fileKey.key), ivOf(state))
    const workers = yield* workersOf(state.pipeline, fileKey, ivOf(state))
    if (workers === false) {
      const opened = yield* Gcm.decryptSegment(state.gcm, pending.bytes.subarray(0, segment))
      pending.bytes.copyWithin(0, segment)
      pending.filled = TAG_LENGTH
      return [opened]
    }
    const full = pending.bytes
    pending.bytes = nextBuffer(state.pipeline, full.length)
    pending.bytes.set(full.subarray(segment))
    pending.filled = TAG_LENGTH
    return yield* submit(state.gcm, workers, state.pipeline, full.buffer, segment, "decrypt")
  })

/** Reads the header (the key is derived when the salt is in), then deciphers the segments that more bytes follow. */
const openChunk = (state: Opening, chunk: Uint8Array) =>
  Effect.gen(function* () {
    let at = 0
    if (state.fileKey === undefined) {
      at = fill(state.header, chunk, 0)
      if (state.header.filled < HEADER_LENGTH) return []
      state.fileKey = yield* keyForHeader(state.key, state.header.bytes.subarray(0, SALT_LENGTH))
    }
    const { pending } = state
    const out: Array<Uint8Array> = []
    // A full buffer waits for the next byte (which proves its last 16 are not the tag), so a file
    // of exactly one segment still ends on the one-shot path.
    while (at < chunk.length) {
      if (pending.filled === pending.bytes.length) out.push(...(yield* openPending(state, state.fileKey)))
      at += fill(pending, chunk, at)
    }
    return out
  })

/**
 * The last plaintext once the tag verifies; the whole file's when no segment has gone (one-shot,
 * so nothing was released before the tag was checked).
 */
const openEnd = (state: Opening) =>
  Effect.gen(function* () {
    const { fileKey, pending } = state
    if (fileKey === undefined || pending.filled < TAG_LENGTH) return yield* tooShort()
    const body = pending.bytes.subarray(0, pending.filled)
    if (state.gcm === undefined) return [yield* openBody(fileKey, ivOf(state), body)]
    const cut = body.length - TAG_LENGTH
    const earlier = yield* drain(state.gcm, state.pipeline)
    const last = cut > 0 ? yield* Gcm.decryptSegment(state.gcm, body.subarray(0, cut)) : new Uint8Array(0)
    if (!equalBytes(Gcm.tag(state.gcm), body.subarray(cut))) return yield* tagMismatch()
    return [...earlier, last]
  })

/**
 * @internal {@link decryptStreamUnverified} with a given segment length (a multiple of 16) and
 * Workers (`false`: the in-page cipher only), for tests and the benchmark.
 */
export const decryptStreamUnverifiedIn =
  (segmentLength: number, key: MasterKey | FileKey, workers: Workers.WorkerOptions | false = {}) =>
  <E, R>(
    ciphertext: Stream.Stream<Uint8Array, E, R>
  ): Stream.Stream<Uint8Array, E | DecryptionFailed | CipherWorkerFailed, R> =>
    Stream.suspend(() => {
      const state: Opening = {
        key,
        header: { bytes: new Uint8Array(HEADER_LENGTH), filled: 0 },
        pending: { bytes: new Uint8Array(segmentLength + TAG_LENGTH), filled: 0 },
        pipeline: newPipeline(workers),
        fileKey: undefined,
        gcm: undefined
      }
      return Stream.flattenIterable(Stream.mapEffect(ciphertext, (chunk) => openChunk(state, chunk))).pipe(
        Stream.concat(Stream.flattenIterable(Stream.fromEffect(Effect.suspend(() => openEnd(state))))),
        Stream.filter((bytes) => bytes.length > 0),
        Stream.ensuring(closeWorkers(state.pipeline))
      )
    })

/**
 * Decrypts a ciphertext stream in constant memory; the key is derived once, when the 16-byte
 * salt has arrived.
 *
 * **Gotchas** As `FileCipherNode`'s, a file longer than one segment (256 KiB) is NOT authenticated
 * until the stream ends without error: its plaintext goes downstream a segment at a time, and a
 * wrong key or altered data fails the stream with `DecryptionFailed` only at the end (the last
 * segment is withheld then). Hold the output back until the end, or use {@link decrypt}. A file
 * up to one segment is verified before any of it is emitted.
 */
export const decryptStreamUnverified = (
  key: MasterKey | FileKey
): (<E, R>(
  ciphertext: Stream.Stream<Uint8Array, E, R>
) => Stream.Stream<Uint8Array, E | DecryptionFailed | CipherWorkerFailed, R>) =>
  decryptStreamUnverifiedIn(SEGMENT_LENGTH, key)
