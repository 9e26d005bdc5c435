/**
 * Leaves hashed on a second core on Node: one `node:worker_threads` worker, started at the first
 * leaf a large file sends it, hashes each with `node:crypto` while the builder reads on. The
 * package's `#leaf-worker` import resolves here under the `node` condition only
 * (`LeafWorkerWeb.ts` elsewhere).
 *
 * A leaf is copied into a slot of memory shared with the worker (a block that finds no free slot
 * is hashed here, as one larger than a slot, and every leaf once the worker failed or ended). The
 * worker keeps the process alive only while leaves are out, and ends with the scope that made it.
 * It pays only where a core is idle: none on one core, nor while the machine is busy.
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
/** Bytes of a slot: a 256 KiB leaf and its dag-pb framing. */
const SLOT_BYTES = 256 * 1024 + 64

/** The worker: CommonJS evaluated from this string, so it needs no file of its own in any build. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const { createHash } = require("node:crypto")
const shared = new Uint8Array(workerData)
parentPort.on("message", ({ slot, length }) => {
  const start = slot * ${SLOT_BYTES}
  const digest = createHash("sha256").update(shared.subarray(start, start + length)).digest()
  parentPort.postMessage({ slot, digest })
})
`

interface Hashed {
  readonly slot: number
  readonly digest: Uint8Array
}

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
const started = () => {
  const memory = new SharedArrayBuffer(SLOTS * SLOT_BYTES)
  const shared = new Uint8Array(memory)
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: memory })
  const waiting = new Map<number, Waiting>()
  const free = Array.from({ length: SLOTS }, (_, slot) => slot)
  let stopped = false
  worker.unref()
  worker.on("message", ({ slot, digest }: Hashed) => {
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
      leaf.resolve(sha256.digest(shared.subarray(slot * SLOT_BYTES, slot * SLOT_BYTES + leaf.length)))
    }
    waiting.clear()
  }
  worker.on("error", stop)
  worker.on("exit", stop)
  const send = (block: Uint8Array): Promise<MultihashDigest> => {
    if (stopped) return hashedHere(block)
    const slot = block.length <= SLOT_BYTES ? free.pop() : undefined
    if (slot === undefined) return hashedHere(block)
    shared.set(block, slot * SLOT_BYTES)
    if (waiting.size === 0) worker.ref()
    return new Promise<MultihashDigest>((resolve) => {
      waiting.set(slot, { resolve, length: block.length })
      worker.postMessage({ slot, length: block.length })
    })
  }
  return { send, end: () => worker.terminate() }
}

/**
 * Whether a core is idle for the worker: more than one, and the last minute's load average below
 * their number less one. On a busy machine the worker only adds its own costs (the copies and the
 * messages): a 512 MiB verified upload at load 13 on 2 cores took 3.18 s/GiB of CPU and 17.6 s
 * with it, 2.44 s/GiB and 14.2 s without.
 */
const idleCore = () => {
  const cores = availableParallelism()
  return cores > 1 && loadavg()[0]! < cores - 1
}

/**
 * Leaf hashing on a worker for the calculator of one upload, ended with `scope`'s close; none
 * unless a core is idle (`anyLoad` skips that check, for tests). `after` is {@link WORKER_AFTER}
 * unless a test says otherwise.
 */
export const leafWorker = (
  after: number = WORKER_AFTER,
  anyLoad = false
): Effect.Effect<LeafHashing | undefined, never, Scope.Scope> =>
  Effect.suspend(() => {
    if (availableParallelism() < 2 || !(anyLoad || idleCore())) return Effect.succeed(undefined)
    let running: ReturnType<typeof started> | undefined
    let closed = false
    const hashing: LeafHashing = {
      after,
      sha256: (block) => {
        if (closed) return hashedHere(block)
        running ??= started()
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
