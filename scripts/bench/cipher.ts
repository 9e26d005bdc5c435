/**
 * One pass of the streaming cipher, or of a bare `node:crypto` AES-256-GCM loop over the same
 * bytes, each run in a fresh process (`crypto.ts` starts them): its CPU time, its peak memory,
 * the memory it still references, or a CPU profile of where its main thread's time goes.
 *
 * A pass gets a process of its own because every `update` of a `node:crypto` cipher returns a
 * new buffer, so a pass leaves tens of MiB of garbage that V8 collects whenever external memory
 * has grown by about 64 MiB: in a shared process, one pass's garbage is collected (and its CPU
 * time charged) during the next pass. The data is made on the fly from one reused 64 KiB block,
 * never stored; the key is derived beforehand, so PBKDF2 is excluded.
 *
 * `node --conditions=@lighthouse-effect/source --import tsx scripts/bench/cipher.ts <measure> <direction> <kind> <bytes>`
 * prints one JSON line; {@link inChild} runs it.
 *
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import { type CipherGCM, createCipheriv, createDecipheriv } from "node:crypto"
import { Session } from "node:inspector/promises"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Effect, Redacted, Stream } from "effect"
import { type Errors, FileCipher } from "lighthouse-effect"
import { FileCipherNode } from "lighthouse-effect/node"

export const MiB = 1024 * 1024
const CHUNK = 64 * 1024
const MASTER = "635aa83f11730c019aa3138e54876ea4541b8fca21e8104609ee6d699a475d59"

/** What a pass does: encrypt, decrypt, or encrypt then decrypt as one stream. */
export type Direction = "encrypt" | "decrypt" | "roundTrip"
/**
 * The library's stream; the bare `node:crypto` loop it is judged against; or the same `update`
 * calls in a plain `Stream.map` pipeline (what any Effect stream over `node:crypto` costs).
 */
export type Kind = "stream" | "raw" | "map"
/** What is measured of a pass. */
export type Measure = "cpu" | "peak" | "retained" | "profile"

/** Where a profiled pass's main thread spent its time, in milliseconds. */
export interface Profile {
  readonly "cipher.update": number
  readonly "garbage collector": number
  readonly "Effect runtime": number
  readonly "lighthouse-effect": number
  readonly other: number
}

/** What one pass reports: CPU seconds, or memory growth in MiB, or a profile. */
export interface PassResult {
  readonly cpuSeconds: number
  readonly wallSeconds: number
  readonly heapMiB: number
  readonly rssMiB: number
  readonly profile?: Profile | undefined
}

/** A full collection, enabled on first use so importing this file changes nothing. */
const gc = () => {
  setFlagsFromString("--expose-gc")
  ;(runInNewContext("gc") as () => void)()
}

// =============================================================================
// Passes
// =============================================================================

/** `total` bytes as 64 KiB chunks of one random block, one chunk per pull (as a file stream gives them). */
const source = (block: Uint8Array, total: number) =>
  Stream.fromIterable({
    *[Symbol.iterator]() {
      for (let sent = 0; sent < total; sent += CHUNK)
        yield sent + CHUNK <= total ? block : block.subarray(0, total - sent)
    }
  }).pipe(Stream.rechunk(1))

/** The bare loop: one `update` per 64 KiB chunk, nothing kept. */
const rawPass = (direction: Direction, key: FileCipher.FileKey, block: Uint8Array, total: number, tick: () => void) =>
  Effect.sync(() => {
    const iv = new Uint8Array(12)
    const cipher = createCipheriv("aes-256-gcm", Redacted.value(key.key), iv)
    const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key.key), iv)
    for (let sent = 0; sent < total; sent += CHUNK) {
      const chunk = sent + CHUNK <= total ? block : block.subarray(0, total - sent)
      if (direction === "encrypt") cipher.update(chunk)
      else if (direction === "decrypt") decipher.update(chunk)
      else decipher.update(cipher.update(chunk))
      tick()
    }
    if (direction !== "decrypt") {
      cipher.final()
      ;(cipher as CipherGCM).getAuthTag()
    }
  })

/** The bare loop's `update` calls, each in a `Stream.map` over the same source. */
const mapPass = (direction: Direction, key: FileCipher.FileKey, block: Uint8Array, total: number, tick: () => void) =>
  Effect.gen(function* () {
    const iv = new Uint8Array(12)
    const cipher = createCipheriv("aes-256-gcm", Redacted.value(key.key), iv)
    const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key.key), iv)
    const encrypted =
      direction === "decrypt" ? source(block, total) : Stream.map(source(block, total), (chunk) => cipher.update(chunk))
    const out = direction === "encrypt" ? encrypted : Stream.map(encrypted, (chunk) => decipher.update(chunk))
    yield* Stream.runForEach(out, () => Effect.sync(tick))
  })

/**
 * The library's stream over the same chunks. Decryption is given the header, the chunks as
 * "ciphertext" and a tag that cannot verify: every byte is deciphered and emitted, then the
 * stream fails at the tag, which costs a bare loop nothing more than its `final` would.
 */
const streamPass = (
  direction: Direction,
  key: FileCipher.FileKey,
  block: Uint8Array,
  total: number,
  tick: () => void
) =>
  Effect.gen(function* () {
    const count = <E>(stream: Stream.Stream<Uint8Array, E>) =>
      Stream.runFold(
        stream,
        () => 0,
        (n, chunk) => {
          tick()
          return n + chunk.length
        }
      )
    if (direction === "encrypt") {
      const bytes = yield* count(source(block, total).pipe(FileCipherNode.encryptStream(key)))
      if (bytes !== total + 44) return yield* Effect.die("encryption lost bytes")
    } else if (direction === "roundTrip") {
      const stream = source(block, total).pipe(
        FileCipherNode.encryptStream(key),
        FileCipherNode.decryptStreamUnverified(key)
      )
      if ((yield* count(stream)) !== total) return yield* Effect.die("round trip lost bytes")
    } else {
      const header = new Uint8Array(28)
      header.set(key.salt, 0)
      const stream = Stream.make(header).pipe(
        Stream.concat(source(block, total)),
        Stream.concat(Stream.make(new Uint8Array(16))),
        FileCipherNode.decryptStreamUnverified(key)
      )
      const error: Errors.DecryptionFailed = yield* Effect.flip(count(stream))
      if (error._tag !== "DecryptionFailed") return yield* Effect.die("decryption did not fail at the tag")
    }
  }).pipe(Effect.orDie)

// =============================================================================
// Measures
// =============================================================================

/** Peak growth of heap + external memory and of RSS over a collected baseline, sampled every 2 MiB. */
const memoryOf = (pass: (tick: () => void) => Effect.Effect<void>, collectEachSample: boolean) =>
  Effect.gen(function* () {
    // Buffers freed by a collection are released on a background thread: let that finish first.
    gc()
    yield* Effect.sleep("300 millis")
    gc()
    const before = process.memoryUsage()
    let peakRss = before.rss
    let peakHeap = before.heapUsed + before.external
    let calls = 0
    const tick = () => {
      if (++calls % 32 !== 0) return
      if (collectEachSample) gc()
      const m = process.memoryUsage()
      peakRss = Math.max(peakRss, m.rss)
      peakHeap = Math.max(peakHeap, m.heapUsed + m.external)
    }
    const timed = yield* timeOf(pass(tick))
    return {
      ...timed,
      heapMiB: (peakHeap - before.heapUsed - before.external) / MiB,
      rssMiB: (peakRss - before.rss) / MiB
    }
  })

/** CPU seconds of this process (all its threads, the collector's included) and wall seconds. */
const timeOf = (pass: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const cpu = process.cpuUsage()
    const wall = performance.now()
    yield* pass
    const used = process.cpuUsage(cpu)
    return { cpuSeconds: (used.user + used.system) / 1e6, wallSeconds: (performance.now() - wall) / 1000 }
  })

type ProfileNode = { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string } }

const categoryOf = ({ functionName, url }: ProfileNode["callFrame"]): keyof Profile | undefined => {
  // The profiler's own call, and time the thread was not running JavaScript.
  if (functionName === "(idle)" || functionName === "(program)" || url === "node:inspector") return undefined
  // The JavaScript `update` and the native binding it calls (no URL).
  if (functionName === "update" && (url === "" || url.includes("internal/crypto/cipher"))) return "cipher.update"
  if (functionName === "(garbage collector)") return "garbage collector"
  if (url.includes("/node_modules/effect/")) return "Effect runtime"
  if (url.includes("/core/src/")) return "lighthouse-effect"
  return "other"
}

/** The pass under V8's sampling profiler; each sample's self time goes to one category. */
const profileOf = (pass: Effect.Effect<void>) =>
  Effect.promise(async () => {
    const session = new Session()
    session.connect()
    await session.post("Profiler.enable")
    await session.post("Profiler.start")
    await Effect.runPromise(pass)
    const { profile } = await session.post("Profiler.stop")
    session.disconnect()
    const nodes = new Map((profile.nodes as ReadonlyArray<ProfileNode>).map((n) => [n.id, n.callFrame]))
    const spent: Record<keyof Profile, number> = {
      "cipher.update": 0,
      "garbage collector": 0,
      "Effect runtime": 0,
      "lighthouse-effect": 0,
      other: 0
    }
    profile.samples!.forEach((id, i) => {
      const category = categoryOf(nodes.get(id)!)
      if (category !== undefined) spent[category] += (profile.timeDeltas![i] ?? 0) / 1000
    })
    return spent as Profile
  })

/** One pass, measured as asked. */
export const measurePass = (measure: Measure, direction: Direction, kind: Kind, bytes: number) =>
  Effect.gen(function* () {
    const key = yield* FileCipher.deriveFileKey(MASTER)
    const block = crypto.getRandomValues(new Uint8Array(CHUNK))
    const passes = { raw: rawPass, map: mapPass, stream: streamPass }
    const pass = (tick: () => void) => passes[kind](direction, key, block, bytes, tick)
    const none = () => {}
    if (measure === "cpu") return { ...(yield* timeOf(pass(none))), heapMiB: 0, rssMiB: 0 }
    if (measure === "profile") {
      const profile = yield* profileOf(pass(none))
      return { cpuSeconds: 0, wallSeconds: 0, heapMiB: 0, rssMiB: 0, profile }
    }
    return yield* memoryOf(pass, measure === "retained")
  })

const self = fileURLToPath(import.meta.url)

/** One pass in a new process running this file, with this process's loader flags. */
export const inChild = (measure: Measure, direction: Direction, kind: Kind, bytes: number) =>
  Effect.promise(
    () =>
      new Promise<PassResult>((resolve, reject) =>
        execFile(
          process.execPath,
          [...process.execArgv, self, measure, direction, kind, String(bytes)],
          (error, stdout) =>
            error ? reject(error) : resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as PassResult)
        )
      )
  )

if (process.argv[1] === self) {
  const [measure, direction, kind, bytes] = process.argv.slice(2) as [Measure, Direction, Kind, string]
  console.log(JSON.stringify(await Effect.runPromise(measurePass(measure, direction, kind, Number(bytes)))))
}
