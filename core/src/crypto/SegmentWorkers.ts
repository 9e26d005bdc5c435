/**
 * WebCrypto's AES-CTR and per-segment GHASH (`StreamingGcm.ts`) in dedicated Workers, for the web
 * path's streams (`FileCipherWeb.ts`). In a page, every WebCrypto call returns a new ArrayBuffer
 * that Chromium frees only at a full collection, so a stream of them grows by hundreds of MiB
 * (BENCHMARKS.md, "Web cipher in Chromium"). Here the calls run in a Worker that is terminated
 * and replaced every {@link RECYCLE_BYTES}: its heap, with every result WebCrypto made in it, goes
 * with it. A segment is transferred in, enciphered, and its result copied into a buffer the Worker's
 * script allocates; both are transferred back, so nothing of either stays behind in the Worker, the
 * input buffer is filled again, and the result is an ordinary buffer the page's collector frees.
 * Writing into fresh memory costs the page faults of every new buffer; they are paid in the Worker,
 * not on the page's thread (BENCHMARKS.md measures both).
 *
 * The Worker's script is inlined and loaded from a Blob URL: it imports nothing, so it needs no
 * bundler support (Vite, webpack and esbuild alike) and works from the package's own build. Where
 * Workers are missing, or refused (a Content-Security-Policy without `blob:` in `worker-src`),
 * {@link open} says so and the caller keeps the in-page cipher. Once started, a Worker that throws,
 * reports an error, or stays silent for {@link ANSWER_MILLIS} with work given stops them all: every
 * job fails with `CipherWorkerFailed`, and the stream with it (its segments' input went with them).
 *
 * @since 0.1.0
 */
import { CipherWorkerFailed } from "../Errors.ts"

/**
 * Bytes a Worker enciphers before it is replaced. Chromium's RSS grew as little at 128 MiB as at
 * 32 MiB (2 GiB streams: +82-89 MiB against +81-98), and 128 MiB ran 0.86-0.97x bare WebCrypto
 * AES-CTR against 0.6-0.8x at 32 MiB (BENCHMARKS.md): fewer Workers started, fewer turns waiting.
 */
export const RECYCLE_BYTES = 128 * 1024 * 1024

/**
 * Segments given to each Worker before the page awaits the oldest result. The page waits on the
 * Workers most of the time (its own share is a copy and a GHASH step per segment), so a Worker
 * should never go without work while a result travels back: 4 enciphered ~1.15× faster than 2
 * in the same run (BENCHMARKS.md), for 2 MiB more held per Worker.
 */
export const IN_FLIGHT = 4

/** What a segment is: plaintext to encrypt, or ciphertext to decrypt (the hash is of the ciphertext). */
export type Direction = "encrypt" | "decrypt"

/**
 * A segment's output in a new buffer, `E(K, J0) ⊕ GHASH_H(C ‖ L)` of its ciphertext, and the
 * buffer that went in, back for the next segment.
 */
export interface SegmentResult {
  readonly bytes: Uint8Array<ArrayBuffer>
  readonly maskedHash: Uint8Array
  readonly input: ArrayBuffer
}

/**
 * The Worker: imports the key once (AES-CTR for the keystream, AES-GCM for the hash), then for each
 * job enciphers `length` bytes of the transferred buffer from the counter block `IV ‖ BE32(counter)`
 * (WebCrypto's `length: 32` wraps the low 32 bits as GCM's inc32 does) into a new buffer and
 * hashes the ciphertext as AES-GCM's associated data. WebCrypto copies its input when
 * called, so decryption hashes the ciphertext while the keystream is made.
 */
const WORKER_SOURCE = `
let keys
const counterBlock = (iv, counter) => {
  const block = new Uint8Array(16)
  block.set(iv, 0)
  new DataView(block.buffer).setUint32(12, counter >>> 0, false)
  return block
}
const hashOf = (k, data) =>
  crypto.subtle.encrypt({ name: "AES-GCM", iv: k.iv, additionalData: data, tagLength: 128 }, k.gcm, new Uint8Array(0))
const run = async (k, job) => {
  const data = new Uint8Array(job.buffer, 0, job.length)
  const opening = job.direction === "decrypt" ? hashOf(k, data) : undefined
  const out = await crypto.subtle.encrypt({ name: "AES-CTR", counter: counterBlock(k.iv, job.counter), length: 32 }, k.ctr, data)
  let result = new Uint8Array(out)
  if (job.copy) {
    result = new Uint8Array(job.length)
    result.set(new Uint8Array(out))
  }
  const hash = await (opening ?? hashOf(k, result))
  postMessage({ id: job.id, input: job.buffer, output: result.buffer, hash }, [job.buffer, result.buffer])
}
onmessage = (event) => {
  const message = event.data
  if (message.key !== undefined) {
    keys = Promise.all([
      crypto.subtle.importKey("raw", message.key, "AES-CTR", false, ["encrypt"]),
      crypto.subtle.importKey("raw", message.key, "AES-GCM", false, ["encrypt"])
    ]).then(([ctr, gcm]) => ({ ctr, gcm, iv: message.iv }))
    keys.then(() => postMessage({ ready: true }), (error) => postMessage({ failed: String(error) }))
  } else keys.then((k) => run(k, message)).catch((error) => postMessage({ id: message.id, failed: String(error) }))
}
`

interface Job {
  readonly resolve: (result: SegmentResult) => void
  readonly reject: (error: CipherWorkerFailed) => void
  readonly length: number
}

/** One Worker, the jobs it has not answered, and the bound on its silence while it has some. */
interface Slot {
  readonly worker: Worker
  readonly jobs: Map<number, Job>
  retiring: boolean
  deadline: ReturnType<typeof setTimeout> | undefined
}

/** Workers enciphering one file's segments; see {@link open}. */
export interface SegmentWorkers {
  readonly url: string
  readonly key: Uint8Array
  readonly iv: Uint8Array
  readonly recycleBytes: number
  readonly copy: boolean
  readonly answerMillis: number
  readonly early: boolean
  /** Segments in flight per Worker (see {@link WorkerOptions}). */
  readonly inFlight: number
  /** The Worker of each turn, a replacement while it starts; and the bytes given to it so far. */
  readonly slots: Array<Promise<Slot>>
  readonly given: Array<number>
  /** Each turn's next Worker, started before its share is used up. */
  readonly standby: Array<Promise<Slot> | undefined>
  /** Every Worker not yet terminated, those retiring with answers still to come included. */
  readonly live: Set<Slot>
  /** How to give up each Worker still starting (terminated, its start resolved as failed). */
  readonly starting: Set<() => void>
  nextId: number
  nextSlot: number
  closed: boolean
  /** Why the Workers stopped, when one failed: every later job fails with it too. */
  failure: CipherWorkerFailed | undefined
}

export interface WorkerOptions {
  /** Workers used in turn (default 2: one enciphers while the other's result is handed on). */
  readonly workers?: number | undefined
  /** Bytes a Worker enciphers before it is replaced (default {@link RECYCLE_BYTES}). */
  readonly recycleBytes?: number | undefined
  /** Hand back a copy of WebCrypto's result in a buffer of the Worker's script, not the result itself. */
  readonly copy?: boolean | undefined
  /** How long a Worker given work may stay silent before the stream fails (default {@link ANSWER_MILLIS}). */
  readonly answerMillis?: number | undefined
  /** Start each replacement when half its predecessor's share is given, not when all is (default true). */
  readonly standby?: boolean | undefined
  /** Segments given to each Worker before the oldest result is awaited (default {@link IN_FLIGHT}). */
  readonly inFlight?: number | undefined
}

/**
 * How long a Worker with work to do, or one starting, may go without answering. A segment takes
 * about a millisecond; a Worker that closes itself or is killed by the browser (out of memory)
 * gives the page no event at all, so without a bound its stream would wait forever. Timers of a
 * background tab fire late, never early, so a throttled page does not trip it.
 */
export const ANSWER_MILLIS = 30_000

const workerFailed = (reason: string) => new CipherWorkerFailed({ reason })

const terminate = (pool: Pick<SegmentWorkers, "live">, slot: Slot): void => {
  clearTimeout(slot.deadline)
  slot.worker.terminate()
  pool.live.delete(slot)
}

/**
 * Ends every Worker of the pool and fails every job given out with `error` (the first failure
 * wins: later jobs fail with the same error); the script's URL is freed.
 */
const stop = (pool: SegmentWorkers, error: CipherWorkerFailed): void => {
  if (pool.closed) return
  pool.closed = true
  pool.failure = error
  for (const giveUp of pool.starting) giveUp()
  for (const slot of pool.live) {
    terminate(pool, slot)
    for (const job of slot.jobs.values()) job.reject(error)
    slot.jobs.clear()
  }
  URL.revokeObjectURL(pool.url)
}

/** (Re)starts the bound on the Worker's silence while it has jobs; clears it when it has none. */
const watch = (pool: SegmentWorkers, slot: Slot): void => {
  clearTimeout(slot.deadline)
  slot.deadline =
    slot.jobs.size === 0
      ? undefined
      : setTimeout(
          () => stop(pool, workerFailed(`a Worker did not answer within ${pool.answerMillis} ms`)),
          pool.answerMillis
        )
}

interface Answer {
  readonly id: number
  readonly input?: ArrayBuffer
  readonly output?: ArrayBuffer
  readonly hash?: ArrayBuffer
  readonly failed?: string
}

const answer = (pool: SegmentWorkers, slot: Slot, data: Answer) => {
  const job = slot.jobs.get(data.id)
  if (job === undefined) return
  if (data.failed !== undefined || data.input === undefined || data.output === undefined || data.hash === undefined)
    return stop(pool, workerFailed(`a Worker reported: ${data.failed ?? "no result"}`))
  slot.jobs.delete(data.id)
  job.resolve({ bytes: new Uint8Array(data.output), maskedHash: new Uint8Array(data.hash), input: data.input })
  watch(pool, slot)
  if (slot.retiring && slot.jobs.size === 0) terminate(pool, slot)
}

/**
 * A Worker with the file's key, once it has said it is ready; `undefined` if it could not start
 * (its script refused or failed to load, or silent for {@link ANSWER_MILLIS}: a busy machine may
 * take seconds to start one). Once started, an error it raises stops the pool.
 */
const spawn = (pool: SegmentWorkers): Promise<Slot | undefined> =>
  new Promise((resolve) => {
    let worker: Worker
    try {
      worker = new Worker(pool.url, { type: "module" })
    } catch {
      return resolve(undefined)
    }
    let started = false
    const giveUp = () => {
      pool.starting.delete(giveUp)
      clearTimeout(slot.deadline)
      worker.terminate()
      resolve(undefined)
    }
    const slot: Slot = { worker, jobs: new Map(), retiring: false, deadline: setTimeout(giveUp, ANSWER_MILLIS) }
    worker.onerror = (event) => {
      event.preventDefault?.()
      if (started) stop(pool, workerFailed(`a Worker threw: ${event.message ?? "error"}`))
      else giveUp()
    }
    worker.onmessage = (event: MessageEvent) => {
      if (started) answer(pool, slot, event.data)
      else if (event.data.ready === true) {
        started = true
        pool.starting.delete(giveUp)
        clearTimeout(slot.deadline)
        slot.deadline = undefined
        resolve(slot)
      } else giveUp()
    }
    pool.starting.add(giveUp)
    worker.postMessage({ key: pool.key.slice(), iv: pool.iv.slice() })
  })

/** Whether this runtime can run a Worker from a Blob URL at all. */
export const available = (): boolean =>
  typeof Worker === "function" && typeof Blob === "function" && typeof URL?.createObjectURL === "function"

/**
 * Workers for one file's AES-GCM with a 32-byte key and a 12-byte IV, or `undefined` where
 * Workers cannot run (the caller keeps its in-page cipher). {@link close} them when done.
 */
export const open = async (
  key: Uint8Array,
  iv: Uint8Array,
  options?: WorkerOptions
): Promise<SegmentWorkers | undefined> => {
  if (!available()) return undefined
  const pool: SegmentWorkers = {
    url: URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" })),
    key: key.slice(),
    iv: iv.slice(),
    recycleBytes: options?.recycleBytes ?? RECYCLE_BYTES,
    copy: options?.copy ?? false,
    answerMillis: options?.answerMillis ?? ANSWER_MILLIS,
    early: options?.standby ?? true,
    inFlight: Math.max(1, options?.inFlight ?? IN_FLIGHT),
    slots: [],
    given: [],
    standby: [],
    live: new Set(),
    starting: new Set(),
    nextId: 0,
    nextSlot: 0,
    closed: false,
    failure: undefined
  }
  const slots = await Promise.all(Array.from({ length: Math.max(1, options?.workers ?? 2) }, () => spawn(pool)))
  const started = slots.filter((slot): slot is Slot => slot !== undefined)
  for (const slot of started) pool.live.add(slot)
  if (started.length < slots.length) {
    close(pool)
    return undefined
  }
  for (const slot of started) {
    pool.slots.push(Promise.resolve(slot))
    pool.given.push(0)
    pool.standby.push(undefined)
  }
  return pool
}

const closedError = (pool: SegmentWorkers) => pool.failure ?? workerFailed("closed")

/** A replacement Worker, terminated at once if the Workers were closed while it started. */
const replacement = async (pool: SegmentWorkers): Promise<Slot> => {
  const fresh = await spawn(pool)
  if (fresh === undefined) {
    stop(pool, workerFailed("a replacement Worker did not start"))
    throw closedError(pool)
  }
  if (pool.closed) fresh.worker.terminate()
  else pool.live.add(fresh)
  return fresh
}

/**
 * The next Worker in turn, chosen now (jobs are given out in order), replaced first if it has
 * enciphered its share: the old one is terminated once it has answered what it was given. Its
 * replacement is started when half the share is given, so that it is ready by then: a Worker
 * takes tens of milliseconds to start, and its turn would wait for it.
 */
const nextSlot = (pool: SegmentWorkers, length: number): Promise<Slot> => {
  const at = pool.nextSlot
  pool.nextSlot = (at + 1) % pool.slots.length
  if (pool.given[at]! >= pool.recycleBytes) {
    // Jobs posted to the old Worker were registered on this promise before: they are in its map.
    void pool.slots[at]!.then((old) => {
      old.retiring = true
      if (old.jobs.size === 0) terminate(pool, old)
    }, ignore)
    pool.slots[at] = pool.standby[at] ?? replacement(pool)
    pool.standby[at] = undefined
    pool.given[at] = 0
  }
  pool.given[at]! += length
  if (pool.early && pool.given[at]! >= pool.recycleBytes / 2 && pool.standby[at] === undefined && !pool.closed) {
    const standby = replacement(pool)
    // Awaited when its turn comes; a failure has stopped the pool already.
    standby.catch(ignore)
    pool.standby[at] = standby
  }
  return pool.slots[at]!
}

const ignore = () => undefined

/**
 * Enciphers the first `length` bytes of `buffer` from counter `counter`, in a Worker. The buffer
 * is transferred (detached here) and comes back with the result, for reuse; the hash is of the
 * ciphertext. Fails with `CipherWorkerFailed` once any Worker of the pool has failed.
 */
export const run = (
  pool: SegmentWorkers,
  buffer: ArrayBuffer,
  length: number,
  counter: number,
  direction: Direction
): Promise<SegmentResult> => {
  if (pool.closed) return Promise.reject(closedError(pool))
  const id = pool.nextId++
  return nextSlot(pool, length).then(
    (slot) =>
      new Promise<SegmentResult>((resolve, reject) => {
        if (pool.closed) return reject(closedError(pool))
        slot.jobs.set(id, { resolve, reject, length })
        if (slot.deadline === undefined) watch(pool, slot)
        slot.worker.postMessage({ id, buffer, length, counter: counter >>> 0, direction, copy: pool.copy }, [buffer])
      })
  )
}

/** Terminates the Workers, retiring ones included (unanswered jobs fail), and frees the script's URL. */
export const close = (pool: SegmentWorkers): void => stop(pool, workerFailed("closed"))
