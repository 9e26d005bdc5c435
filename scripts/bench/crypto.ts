/**
 * Crypto benchmarks, against the provider's own packages and raw `node:crypto` in the same run:
 *
 * - key split + recover (3 of 5) per second, here and with `@lighthouse-web3/kavach` (target ≥ 50×);
 * - streaming encryption and decryption throughput, each as a ratio to a bare `node:crypto`
 *   AES-256-GCM loop over the same chunks (target ≥ 0.9; the key is derived beforehand, so PBKDF2
 *   is excluded). Timed in
 *   CPU seconds, in interleaved rounds, as the median ratio (the target is judged on it) and as
 *   fastest pass against fastest pass: wall time on a shared machine swings by 3× from one pass
 *   to the next, and a single major GC costs as much as a 16 MiB pass;
 * - peak memory growth while a 1 GiB stream is encrypted and decrypted again (target ≤ 1.1× the
 *   median of the same bytes through a bare `node:crypto` cipher and decipher, each measured 3
 *   times, alternately, in fresh processes): every `update` returns
 *   a fresh buffer, and V8 lets such garbage reach ~64 MB of external memory before collecting,
 *   so that loop sets a floor no streaming code over `node:crypto` can go under. The data is made
 *   on the fly from one reused 64 KiB block, never stored.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/crypto.ts` prints the rows and rewrites the `## Crypto` section of
 * BENCHMARKS.md; `run()` returns the rows for `scripts/bench/index.ts`.
 */
import * as Report from "./report.ts"
import { execFile } from "node:child_process"
import { type CipherGCM, createCipheriv, createDecipheriv } from "node:crypto"
import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import * as kavach from "@lighthouse-web3/kavach"
import { Effect, Redacted, Stream } from "effect"
import { type Errors, FileCipher, Shamir } from "lighthouse-effect"
import { FileCipherNode } from "lighthouse-effect/node"

export type BenchRow = Report.BenchRow

/** Options of {@link run}: smaller figures for a quick look. */
export interface RunOptions {
  /** Seconds each split+recover loop runs. @default 2 */
  readonly seconds?: number
  /** Bytes of each timed pass of the throughput comparison. @default 128 MiB */
  readonly throughputBytes?: number
  /** Rounds (raw, stream, stream, raw) of the throughput comparison. @default 7 */
  readonly rounds?: number
  /** Bytes of the memory test (and 4× that for the size check). @default 1 GiB */
  readonly memoryBytes?: number
}

const MiB = 1024 * 1024
const CHUNK = 64 * 1024
const MASTER = "635aa83f11730c019aa3138e54876ea4541b8fca21e8104609ee6d699a475d59"

const now = Effect.sync(() => performance.now())
/** A full collection (for memory baselines), enabled on first use so importing this file changes nothing. */
const gc = () => {
  setFlagsFromString("--expose-gc")
  ;(runInNewContext("gc") as () => void)()
}

// =============================================================================
// Split + recover
// =============================================================================

const splitRecoverHere = (seconds: number) =>
  Effect.gen(function* () {
    const start = yield* now
    let ops = 0
    while ((yield* now) - start < seconds * 1000) {
      const { keyShards, masterKey } = yield* Shamir.generate(3, 5)
      const key = yield* Shamir.recoverKey([keyShards[0]!, keyShards[2]!, keyShards[4]!], { threshold: 3 })
      if (Redacted.value(key) !== Redacted.value(masterKey)) return yield* Effect.die("recovered a wrong key")
      ops++
    }
    return (ops * 1000) / ((yield* now) - start)
  })

const splitRecoverVerifiedHere = (seconds: number) =>
  Effect.gen(function* () {
    const start = yield* now
    let ops = 0
    while ((yield* now) - start < seconds * 1000) {
      const { keyShards } = yield* Shamir.generate(3, 5)
      yield* Shamir.recoverKey(keyShards, { threshold: 3 })
      ops++
    }
    return (ops * 1000) / ((yield* now) - start)
  })

const splitRecoverKavach = (seconds: number) =>
  Effect.promise(async () => {
    const start = performance.now()
    let ops = 0
    while (performance.now() - start < seconds * 1000) {
      const { keyShards, masterKey } = await kavach.generate(3, 5)
      const { masterKey: recovered } = await kavach.recoverKey([keyShards[0]!, keyShards[2]!, keyShards[4]!])
      if (recovered !== masterKey) throw new Error("kavach recovered a wrong key")
      ops++
    }
    return (ops * 1000) / (performance.now() - start)
  })

// =============================================================================
// Streaming throughput
// =============================================================================

/** `total` bytes as 64 KiB chunks of one random block, one chunk per pull (as a file stream gives them). */
const source = (block: Uint8Array, total: number) =>
  Stream.fromIterable({
    *[Symbol.iterator]() {
      for (let sent = 0; sent < total; sent += CHUNK)
        yield sent + CHUNK <= total ? block : block.subarray(0, total - sent)
    }
  }).pipe(Stream.rechunk(1))

/** CPU seconds of this process (all its threads, GC included): steadier than wall time on a shared machine. */
const cpuSeconds = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = process.cpuUsage()
    yield* effect
    const used = process.cpuUsage(start)
    return (used.user + used.system) / 1e6
  })

/** `total` bytes through a bare `node:crypto` cipher (or decipher) in 64 KiB updates. */
const rawLoop = (direction: "cipher" | "decipher") => (key: FileCipher.FileKey, block: Uint8Array, total: number) =>
  Effect.sync(() => {
    const make = direction === "cipher" ? createCipheriv : createDecipheriv
    const aes = make("aes-256-gcm", Redacted.value(key.key), new Uint8Array(12))
    let bytes = 0
    for (let sent = 0; sent < total; sent += CHUNK) {
      bytes += aes.update(sent + CHUNK <= total ? block : block.subarray(0, total - sent)).length
    }
    if (direction === "cipher") bytes += aes.final().length + (aes as CipherGCM).getAuthTag().length
    if (bytes !== total + (direction === "cipher" ? 16 : 0)) throw new Error("raw loop lost bytes")
  })

const rawAesGcm = rawLoop("cipher")
const rawAesGcmDecrypt = rawLoop("decipher")

const streamingEncrypt = (key: FileCipher.FileKey, block: Uint8Array, total: number) =>
  Effect.gen(function* () {
    const bytes = yield* source(block, total).pipe(
      FileCipherNode.encryptStream(key),
      Stream.runFold(
        () => 0,
        (n, chunk) => n + chunk.length
      )
    )
    if (bytes !== total + 44) return yield* Effect.die("stream lost bytes")
  })

/**
 * The header, `total` bytes of "ciphertext" (the random block again and again) and a 16-byte tag
 * that cannot verify: every byte is deciphered and emitted, then the stream fails at the tag,
 * which costs a bare loop nothing more than its `final` would.
 */
const streamingDecrypt = (key: FileCipher.FileKey, block: Uint8Array, total: number) =>
  Effect.gen(function* () {
    const header = new Uint8Array(28)
    header.set(key.salt, 0)
    let bytes = 0
    const error: Errors.DecryptionFailed = yield* Stream.make(header).pipe(
      Stream.concat(source(block, total)),
      Stream.concat(Stream.make(new Uint8Array(16))),
      FileCipherNode.decryptStreamUnverified(key),
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          bytes += chunk.length
        })
      ),
      Effect.flip
    )
    if (error._tag !== "DecryptionFailed" || bytes !== total) return yield* Effect.die("stream lost bytes")
  })

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * Rounds of raw, stream, stream, raw (so drifts in machine load cancel), each timed in CPU
 * seconds; the ratio is the median of the rounds' ratios.
 */
const throughput = <E>(raw: Effect.Effect<void>, streamed: Effect.Effect<void, E>, total: number, rounds: number) =>
  Effect.gen(function* () {
    const ratios: Array<number> = []
    const rawSpeeds: Array<number> = []
    const streamSpeeds: Array<number> = []
    const rawTimes: Array<number> = []
    const streamTimes: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const a = yield* cpuSeconds(raw)
      const b = yield* cpuSeconds(streamed)
      const c = yield* cpuSeconds(streamed)
      const d = yield* cpuSeconds(raw)
      ratios.push((a + d) / (b + c))
      rawSpeeds.push((2 * total) / MiB / (a + d))
      streamSpeeds.push((2 * total) / MiB / (b + c))
      rawTimes.push(a, d)
      streamTimes.push(b, c)
    }
    return {
      ratio: median(ratios),
      bestRatio: Math.min(...rawTimes) / Math.min(...streamTimes),
      raw: median(rawSpeeds),
      streamed: median(streamSpeeds)
    }
  })

// =============================================================================
// Memory
// =============================================================================

/** Peak growth over a fully collected baseline, sampled every 32 chunks (2 MiB) while `body` runs. */
const peakGrowth = <E, R>(body: (sample: () => void) => Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    // Buffers freed by a collection are released on a background thread: let that finish first.
    gc()
    yield* Effect.sleep("300 millis")
    gc()
    const before = process.memoryUsage()
    let peakRss = before.rss
    let peakHeap = before.heapUsed + before.external
    let calls = 0
    const sample = () => {
      if (++calls % 32 !== 0) return
      const m = process.memoryUsage()
      peakRss = Math.max(peakRss, m.rss)
      peakHeap = Math.max(peakHeap, m.heapUsed + m.external)
    }
    const start = yield* now
    yield* body(sample)
    return {
      rss: (peakRss - before.rss) / MiB,
      heap: (peakHeap - before.heapUsed - before.external) / MiB,
      seconds: ((yield* now) - start) / 1000
    }
  })

/** The same bytes through a bare `node:crypto` cipher and decipher: the floor V8's collector sets. */
const rawRoundTrip = (key: FileCipher.FileKey, block: Uint8Array, total: number) =>
  peakGrowth((sample) =>
    Effect.sync(() => {
      const iv = new Uint8Array(12)
      const cipher = createCipheriv("aes-256-gcm", Redacted.value(key.key), iv)
      const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key.key), iv)
      for (let sent = 0; sent < total; sent += CHUNK) {
        decipher.update(cipher.update(block))
        sample()
      }
      cipher.final()
      decipher.setAuthTag(cipher.getAuthTag())
      decipher.final()
    })
  )

const streamRoundTrip = (key: FileCipher.FileKey, block: Uint8Array, total: number) =>
  peakGrowth((sample) =>
    Effect.gen(function* () {
      const bytes = yield* source(block, total).pipe(
        FileCipherNode.encryptStream(key),
        FileCipherNode.decryptStreamUnverified(key),
        Stream.runFold(
          () => 0,
          (n, chunk) => {
            sample()
            return n + chunk.length
          }
        )
      )
      if (bytes !== total) return yield* Effect.die("round trip lost bytes")
    })
  )

const CHILD = "--memory-child"
const self = fileURLToPath(import.meta.url)

interface Growth {
  readonly rss: number
  readonly heap: number
  readonly seconds: number
}

/** One memory round trip in a new process running this file (with this process's loader flags). */
const inChild = (which: "raw" | "stream", bytes: number) =>
  Effect.promise(
    () =>
      new Promise<Growth>((resolve, reject) =>
        execFile(process.execPath, [...process.execArgv, self, CHILD, which, String(bytes)], (error, stdout) =>
          error ? reject(error) : resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Growth)
        )
      )
  )

const child = (which: string, bytes: number) =>
  Effect.gen(function* () {
    const key = yield* FileCipher.deriveFileKey(MASTER)
    const block = crypto.getRandomValues(new Uint8Array(CHUNK))
    return yield* which === "raw" ? rawRoundTrip(key, block, bytes) : streamRoundTrip(key, block, bytes)
  })

// =============================================================================
// Run
// =============================================================================

/** Runs every crypto benchmark and returns its rows. */
export const run = (options?: RunOptions) =>
  Effect.gen(function* () {
    const seconds = options?.seconds ?? 2
    const throughputBytes = options?.throughputBytes ?? 128 * MiB
    const rounds = options?.rounds ?? 7
    const memoryBytes = options?.memoryBytes ?? 1024 * MiB
    const rows: Array<BenchRow> = []

    const kavachOps = yield* splitRecoverKavach(seconds)
    const hereOps = yield* splitRecoverHere(seconds)
    const verifiedOps = yield* splitRecoverVerifiedHere(seconds)
    rows.push({
      benchmark: "split (3 of 5) + recover from 3, per second",
      value: hereOps,
      unit: "ops/s",
      baseline: { name: "@lighthouse-web3/kavach 0.2.1", value: kavachOps },
      ratio: hereOps / kavachOps,
      target: "≥ 50× kavach",
      pass: hereOps / kavachOps >= 50
    })
    rows.push({
      benchmark: "split (3 of 5) + recover from all 5, verified, per second",
      value: verifiedOps,
      unit: "ops/s",
      baseline: { name: "@lighthouse-web3/kavach 0.2.1 (unverified, from 3)", value: kavachOps },
      ratio: verifiedOps / kavachOps,
      target: "≥ 50× kavach",
      pass: verifiedOps / kavachOps >= 50
    })

    const key = yield* FileCipher.deriveFileKey(MASTER)
    const block = crypto.getRandomValues(new Uint8Array(CHUNK))
    for (const [name, raw, streamed] of [
      ["encryptStream", rawAesGcm, streamingEncrypt],
      ["decryptStreamUnverified", rawAesGcmDecrypt, streamingDecrypt]
    ] as const) {
      // Warm both paths up before timing them.
      yield* raw(key, block, 16 * MiB)
      yield* streamed(key, block, 16 * MiB)
      const speed = yield* throughput(
        raw(key, block, throughputBytes),
        streamed(key, block, throughputBytes),
        throughputBytes,
        rounds
      )
      rows.push({
        benchmark:
          `${name} throughput, ${throughputBytes / MiB} MiB in 64 KiB chunks, PBKDF2 excluded ` +
          `(CPU time; median of ${rounds} interleaved rounds; fastest pass against fastest pass: ${Report.figure(speed.bestRatio)}×)`,
        value: speed.streamed,
        unit: "MiB/s",
        baseline: {
          name: `bare node:crypto aes-256-gcm ${name === "encryptStream" ? "cipher" : "decipher"} loop`,
          value: speed.raw
        },
        ratio: speed.ratio,
        target: "≥ 0.9× node:crypto",
        pass: speed.ratio >= 0.9
      })
    }

    // Each in a fresh process, so nothing earlier in this one (or the other loop) is in the
    // figures; alternately, three of each, as the collector's timing moves single figures by ±20 %.
    const floors: Array<Growth> = []
    const streams: Array<Growth> = []
    for (let i = 0; i < 3; i++) {
      floors.push(yield* inChild("raw", memoryBytes))
      streams.push(yield* inChild("stream", memoryBytes))
    }
    const medianOf = (runs: ReadonlyArray<Growth>): Growth => ({
      rss: median(runs.map((r) => r.rss)),
      heap: median(runs.map((r) => r.heap)),
      seconds: median(runs.map((r) => r.seconds))
    })
    const floor = medianOf(floors)
    const memory = medianOf(streams)
    const large = yield* inChild("stream", memoryBytes * 4)
    const size = `${memoryBytes / MiB} MiB`
    const bare = "bare node:crypto cipher → decipher loop, same bytes"
    rows.push({
      benchmark:
        `peak heap + external growth, ${size} encrypted then decrypted as one stream (${Report.figure(memory.seconds)} s; ` +
        `median of 3; runs ${streams.map((r) => Report.figure(r.heap)).join(", ")} against ${floors.map((r) => Report.figure(r.heap)).join(", ")})`,
      value: memory.heap,
      unit: "MiB",
      baseline: { name: bare, value: floor.heap },
      ratio: memory.heap / floor.heap,
      target: "≤ 1.1× node:crypto",
      pass: memory.heap <= 1.1 * floor.heap
    })
    rows.push({
      benchmark: `peak RSS growth, same ${size} round trip (median of 3)`,
      value: memory.rss,
      unit: "MiB",
      baseline: { name: bare, value: floor.rss },
      ratio: memory.rss / floor.rss,
      target: "≤ 1.1× node:crypto",
      pass: memory.rss <= 1.1 * floor.rss
    })
    rows.push({
      benchmark: `peak heap + external growth, ${(memoryBytes * 4) / MiB} MiB round trip: no growth with size`,
      value: large.heap,
      unit: "MiB",
      ratio: large.heap / memory.heap,
      target: `≤ 1.5× the ${size} figure`,
      pass: large.heap <= 1.5 * memory.heap
    })
    return rows as ReadonlyArray<BenchRow>
  })

// =============================================================================
// Report
// =============================================================================

/** The rows as the `## Crypto` section of BENCHMARKS.md. */
export const markdownSection = (rows: ReadonlyArray<BenchRow>): string =>
  [
    "## Crypto",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/crypto.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads).`,
    "",
    ...Report.comparisonTable(rows),
    "",
    "Throughput is timed in CPU seconds in interleaved rounds (this machine is shared; wall time swings 3× between",
    "passes). Each memory figure comes from a fresh process, over a baseline taken after a full collection. Every",
    "`update` of a `node:crypto` cipher returns a new buffer, and V8 lets such garbage reach about 64 MB of external",
    "memory before it collects, so the bare loop sets the floor for any streaming code over `node:crypto`. The",
    "stream is judged against that floor (ratio column; single figures of either move by ±20 % with machine load,",
    "when the thread that frees released buffers gets less time, hence medians of alternate runs) and does not",
    "grow with the size of the file (last row).",
    ""
  ].join("\n")

if (process.argv[1] === self && process.argv[2] === CHILD) {
  console.log(JSON.stringify(await Effect.runPromise(child(process.argv[3]!, Number(process.argv[4])))))
} else if (process.argv[1] === self) {
  const rows = await Effect.runPromise(run())
  Report.printRows(rows)
  Report.writeSection(markdownSection(rows))
}
