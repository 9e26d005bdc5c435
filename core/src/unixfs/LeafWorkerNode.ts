/**
 * Leaves hashed on a second core on Node: one `node:worker_threads` worker, started at the first
 * leaf a large file sends it, hashes each with `node:crypto` while the builder reads on. The
 * package's `#leaf-worker` import resolves here under the `node` condition only
 * (`LeafWorkerWeb.ts` elsewhere).
 *
 * A leaf is copied into a slot of memory shared with the worker (a block that finds no free slot
 * is hashed here, as one larger than a slot, and every leaf once the worker failed or ended). The
 * worker keeps the process alive only while leaves are out, and ends with the scope that made it.
 * It pays only where a core is idle: none on one core, nor while the machine is busy. Tests and
 * benchmarks force it on or off past the load check with `LIGHTHOUSE_EFFECT_LEAF_WORKER=on|off`
 * (or `mode`); one core still means none.
 *
 * @internal
 */
import { availableParallelism, loadavg } from "node:os"
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Digest from "multiformats/hashes/digest"
import type { MultihashDigest } from "multiformats/hashes/interface"
import { sha256 } from "multiformats/hashes/sha2"
import type { LeafHashing } from "./Layout.ts"

/** A file's bytes hashed on the builder's thread before its leaves go to the worker. */
export const WORKER_AFTER = 16 * 1024 * 1024

/** Slots of the memory shared with the worker: leaves out at once, across the files of an upload. */
const SLOTS = 16
/** Bytes of a slot past the leaf's content: its dag-pb and UnixFS framing. */
const FRAMING_BYTES = 64

/** Whether the worker runs: where a core is idle (`auto`), whatever the load (`on`), or never (`off`). */
export type LeafWorkerMode = "auto" | "on" | "off"

/** The mode `LIGHTHOUSE_EFFECT_LEAF_WORKER` names, for tests and benchmarks; `auto` otherwise. */
const modeOfEnvironment = (): LeafWorkerMode => {
  const named = permitted(() => process.env.LIGHTHOUSE_EFFECT_LEAF_WORKER, undefined)
  return named === "on" || named === "off" ? named : "auto"
}

/**
 * `read()`, or `otherwise` where the runtime refuses it: Deno without `--allow-sys` / `--allow-env`
 * throws `NotCapable` from `os.loadavg()`, `os.availableParallelism()` and `process.env`.
 */
const permitted = <A>(read: () => A, otherwise: A): A => {
  try {
    return read()
  } catch {
    return otherwise
  }
}

/** What a calculator's worker is made for. */
export interface LeafWorkerOptions {
  /** The layout's leaf size: a slot holds one leaf and its framing. */
  readonly leafBytes: number
  /** Bytes of a file hashed here before its leaves go out. @default WORKER_AFTER */
  readonly after?: number | undefined
  /** @default the environment's, else `auto` */
  readonly mode?: LeafWorkerMode | undefined
}

/** Bytes of a SHA-256 digest, written by the worker after the slots. */
const DIGEST_BYTES = 32

/**
 * The worker: CommonJS evaluated from this string, so it needs no file of its own in any build.
 * `workerData` is the shared memory and the bytes of a slot. Messages are numbers, not objects,
 * and the digest comes back in the shared memory: nothing to serialize or allocate per leaf.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const { createHash } = require("node:crypto")
const shared = new Uint8Array(workerData.memory)
const slotBytes = workerData.slotBytes
const digestsAt = ${SLOTS} * slotBytes
parentPort.on("message", (message) => {
  const slot = message % ${SLOTS}
  const start = slot * slotBytes
  const digest = createHash("sha256").update(shared.subarray(start, start + (message - slot) / ${SLOTS})).digest()
  shared.set(digest, digestsAt + slot * ${DIGEST_BYTES})
  parentPort.postMessage(slot)
})
`

interface Waiting {
  readonly resolve: (digest: MultihashDigest | PromiseLike<MultihashDigest>) => void
  readonly length: number
}

/** The SHA-256 multihash of `block`, hashed here (no free slot, or a block larger than one). */
const hashedHere = (block: Uint8Array): Promise<MultihashDigest> => Promise.resolve(sha256.digest(block))

/**
 * The worker, started by the first leaf. Leaves are copied into slots of memory shared with it,
 * so nothing is allocated or transferred per leaf (a transferred buffer counts as new memory to
 * V8, which then collects more often).
 */
const started = (leafBytes: number) => {
  const slotBytes = leafBytes + FRAMING_BYTES
  const digestsAt = SLOTS * slotBytes
  const memory = new SharedArrayBuffer(digestsAt + SLOTS * DIGEST_BYTES)
  const shared = new Uint8Array(memory)
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { memory, slotBytes } })
  const waiting = new Map<number, Waiting>()
  const free = Array.from({ length: SLOTS }, (_, slot) => slot)
  let stopped = false
  worker.unref()
  worker.on("message", (slot: number) => {
    const digest = shared.slice(digestsAt + slot * DIGEST_BYTES, digestsAt + (slot + 1) * DIGEST_BYTES)
    const leaf = waiting.get(slot)
    waiting.delete(slot)
    free.push(slot)
    if (waiting.size === 0) worker.unref()
    leaf?.resolve(Digest.create(sha256.code, digest))
  })
  // A worker that failed or ended leaves its leaves to this thread: their bytes are still in their slots.
  const stop = () => {
    stopped = true
    for (const [slot, leaf] of waiting) {
      leaf.resolve(sha256.digest(shared.subarray(slot * slotBytes, slot * slotBytes + leaf.length)))
    }
    waiting.clear()
  }
  worker.on("error", stop)
  worker.on("exit", stop)
  const send = (block: Uint8Array): Promise<MultihashDigest> => {
    if (stopped) return hashedHere(block)
    const slot = block.length <= slotBytes ? free.pop() : undefined
    if (slot === undefined) return hashedHere(block)
    shared.set(block, slot * slotBytes)
    if (waiting.size === 0) worker.ref()
    return new Promise<MultihashDigest>((resolve) => {
      waiting.set(slot, { resolve, length: block.length })
      // The leaf's length and slot in one number (the worker splits them).
      worker.postMessage(block.length * SLOTS + slot)
    })
  }
  return { send, end: () => worker.terminate() }
}

/** The worker, or none where the runtime cannot start one (every leaf then hashed here). */
const startedOrHere = (leafBytes: number): ReturnType<typeof started> => {
  try {
    return started(leafBytes)
  } catch {
    return { send: hashedHere, end: () => Promise.resolve(0) }
  }
}

/**
 * Whether a core is idle for the worker: more than one, and the last minute's load average below
 * their number less one. On a busy machine the worker only adds its own costs (the copies and the
 * messages): a 512 MiB verified upload at load 13 on 2 cores took 3.18 s/GiB of CPU and 17.6 s
 * with it, 2.44 s/GiB and 14.2 s without.
 */
const idleCore = (cores: number) => permitted(() => loadavg()[0]! < cores - 1, false)

/** Whether `mode` runs a worker on this machine now (never where the runtime will not say its cores). */
const wanted = (mode: LeafWorkerMode): boolean => {
  if (mode === "off") return false
  const cores = permitted(availableParallelism, 1)
  return cores > 1 && (mode === "on" || idleCore(cores))
}

/**
 * Leaf hashing on a worker for the calculator of one upload, ended with `scope`'s close; none
 * unless a core is idle (see {@link LeafWorkerMode}).
 */
export const leafWorker = (options: LeafWorkerOptions): Effect.Effect<LeafHashing | undefined, never, Scope.Scope> =>
  Effect.suspend(() => {
    if (!wanted(options.mode ?? modeOfEnvironment())) return Effect.succeed(undefined)
    let running: ReturnType<typeof started> | undefined
    let closed = false
    const hashing: LeafHashing = {
      after: options.after ?? WORKER_AFTER,
      sha256: (block) => {
        if (closed) return hashedHere(block)
        running ??= startedOrHere(options.leafBytes)
        return running.send(block)
      }
    }
    const end = Effect.promise(async () => {
      closed = true
      await running?.end()
    })
    return Effect.as(
      Effect.addFinalizer(() => end),
      hashing
    )
  })
