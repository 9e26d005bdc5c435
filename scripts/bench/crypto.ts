/**
 * Crypto benchmarks, against the provider's own packages and raw `node:crypto` in the same run:
 *
 * - key split + recover (3 of 5) per second, here and with `@lighthouse-web3/kavach` (target ≥ 50×);
 * - streaming encryption and decryption throughput, each as a ratio to a bare `node:crypto`
 *   AES-256-GCM loop over the same chunks (target ≥ 0.9×), in CPU time (this machine is shared;
 *   wall time swings 3× between passes);
 * - peak memory while 1 GiB is encrypted and decrypted again as one stream (target ≤ 1.1× the
 *   bare cipher → decipher loop over the same bytes), what of it is still referenced, and that it
 *   does not grow with the size of the file;
 * - a CPU profile of each stream, which says where its time goes.
 *
 * Every pass of the cipher runs in a fresh process (`cipher.ts` says why), stream and bare loop
 * alternately, and each figure is the median of its passes.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/crypto.ts` prints the rows and
 * rewrites the `## Crypto` section of BENCHMARKS.md.
 */

import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import * as kavach from "@lighthouse-web3/kavach"
import { Effect, Redacted } from "effect"
import { Shamir } from "lighthouse-effect"
import { type Direction, inChild, type Kind, type Measure, MiB, type PassResult, type Profile } from "./cipher.ts"
import * as Report from "./report.ts"

export type BenchRow = Report.BenchRow

/** Options of {@link run}: smaller figures for a quick look. */
export interface RunOptions {
  /** Seconds each split+recover loop runs. @default 2 */
  readonly seconds?: number
  /** Bytes of each cipher pass (and 4× that for the size check). @default 1 GiB */
  readonly cipherBytes?: number
  /** Passes of each side, stream and bare loop alternately. @default 5 */
  readonly rounds?: number
}

const now = Effect.sync(() => performance.now())

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

/** Split + recover per second, here and with kavach. */
const shamirRows = (seconds: number) =>
  Effect.gen(function* () {
    const kavachOps = yield* splitRecoverKavach(seconds)
    const hereOps = yield* splitRecoverHere(seconds)
    const verifiedOps = yield* splitRecoverVerifiedHere(seconds)
    return [
      {
        benchmark: "split (3 of 5) + recover from 3, per second",
        value: hereOps,
        unit: "ops/s",
        baseline: { name: "@lighthouse-web3/kavach 0.2.1", value: kavachOps },
        ratio: hereOps / kavachOps,
        target: "≥ 50× kavach",
        pass: hereOps / kavachOps >= 50
      },
      {
        benchmark: "split (3 of 5) + recover from all 5, verified, per second",
        value: verifiedOps,
        unit: "ops/s",
        baseline: { name: "@lighthouse-web3/kavach 0.2.1 (unverified, from 3)", value: kavachOps },
        ratio: verifiedOps / kavachOps,
        target: "≥ 50× kavach",
        pass: verifiedOps / kavachOps >= 50
      }
    ] satisfies Array<BenchRow>
  })

// =============================================================================
// The streaming cipher
// =============================================================================

type Sides = Readonly<Record<Kind, ReadonlyArray<PassResult>>>

/**
 * `rounds` passes of each kind in fresh processes, in turns, the order rotating each round so no
 * kind always runs first.
 */
const alternate = (
  measure: Measure,
  direction: Direction,
  bytes: number,
  rounds: number,
  kinds: ReadonlyArray<Kind> = ["raw", "stream"]
) =>
  Effect.gen(function* () {
    const passes: Record<Kind, Array<PassResult>> = { raw: [], map: [], stream: [] }
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(i + k) % kinds.length]!
        passes[kind].push(yield* inChild(measure, direction, kind, bytes))
      }
    }
    return passes satisfies Sides
  })

const listed = (passes: ReadonlyArray<PassResult>, of: (p: PassResult) => number) =>
  passes.map((p) => Report.figure(of(p))).join(", ")

/** Throughput in CPU time: the median of each round's ratio, so drifts in machine load cancel. */
const throughputRow = (direction: "encrypt" | "decrypt", bytes: number, sides: Sides): BenchRow => {
  const ratio = Report.median(sides.raw.map((raw, i) => raw.cpuSeconds / sides.stream[i]!.cpuSeconds))
  const speed = (passes: ReadonlyArray<PassResult>) => bytes / MiB / Report.median(passes.map((p) => p.cpuSeconds))
  const name = direction === "encrypt" ? "encryptStream" : "decryptStreamUnverified"
  return {
    benchmark:
      `${name} throughput, ${bytes / MiB} MiB in 64 KiB chunks, PBKDF2 excluded (CPU time; median of ` +
      `${sides.stream.length} passes each, alternately, each in a fresh process; CPU seconds ` +
      `${listed(sides.stream, (p) => p.cpuSeconds)} against ${listed(sides.raw, (p) => p.cpuSeconds)})`,
    value: speed(sides.stream),
    unit: "MiB/s",
    baseline: {
      name: `bare node:crypto aes-256-gcm ${direction === "encrypt" ? "cipher" : "decipher"} loop`,
      value: speed(sides.raw)
    },
    ratio,
    target: "≥ 0.9× node:crypto",
    pass: ratio >= 0.9
  }
}

const BARE_ROUND_TRIP = "bare node:crypto cipher → decipher loop, same bytes"

/** A memory figure in MiB against a baseline, with the target of at most 1.1× it. */
const withinTenPercent = (
  benchmark: string,
  value: number,
  baseline: { readonly name: string; readonly value: number },
  against: string
): BenchRow => ({
  benchmark,
  value,
  unit: "MiB",
  baseline,
  ratio: value / baseline.value,
  target: `≤ 1.1× ${against}`,
  pass: value <= 1.1 * baseline.value
})

/** Peak growth of the round trip (heap + external, and RSS), and what of it is still referenced. */
const memoryRows = (bytes: number, peak: Sides, retained: Sides, retainedBytes: number): Array<BenchRow> => {
  const heap = (passes: ReadonlyArray<PassResult>) => Report.median(passes.map((p) => p.heapMiB))
  const rss = (passes: ReadonlyArray<PassResult>) => Report.median(passes.map((p) => p.rssMiB))
  const seconds = Report.median(peak.stream.map((p) => p.wallSeconds))
  const referenced = heap(retained.stream) - heap(retained.raw)
  return [
    withinTenPercent(
      `peak heap + external growth, ${bytes / MiB} MiB encrypted then decrypted as one stream ` +
        `(${Report.figure(seconds)} s; median of ${peak.stream.length}; runs ${listed(peak.stream, (p) => p.heapMiB)} ` +
        `against ${listed(peak.raw, (p) => p.heapMiB)})`,
      heap(peak.stream),
      { name: BARE_ROUND_TRIP, value: heap(peak.raw) },
      "node:crypto"
    ),
    withinTenPercent(
      `the same peak against the bare loop's \`update\` calls in a plain \`Stream.map\` pipeline (median of ` +
        `${peak.map.length}; runs ${listed(peak.map, (p) => p.heapMiB)})`,
      heap(peak.stream),
      { name: "any Effect stream over node:crypto", value: heap(peak.map) },
      "the plain Stream.map"
    ),
    withinTenPercent(
      `peak RSS growth, same round trip (median of ${peak.stream.length})`,
      rss(peak.stream),
      { name: BARE_ROUND_TRIP, value: rss(peak.raw) },
      "node:crypto"
    ),
    {
      benchmark:
        `memory still referenced: peak heap + external growth of a ${retainedBytes / MiB} MiB round trip with a ` +
        `full collection every 2 MiB (median of ${retained.stream.length}), the stream's excess over the bare loop`,
      value: referenced,
      unit: "MiB",
      baseline: { name: BARE_ROUND_TRIP, value: heap(retained.raw) },
      target: "≤ 1 MiB (a few 64 KiB chunks in flight)",
      pass: referenced <= 1
    }
  ]
}

/** The 4× larger round trip's peak against the 1× figure: no growth with the size of the file. */
const sizeRow = (bytes: number, large: PassResult, peak: Sides): BenchRow => {
  const base = Report.median(peak.stream.map((p) => p.heapMiB))
  return {
    benchmark: `peak heap + external growth, ${(bytes * 4) / MiB} MiB round trip: no growth with size`,
    value: large.heapMiB,
    unit: "MiB",
    ratio: large.heapMiB / base,
    target: `≤ 1.5× the ${bytes / MiB} MiB figure`,
    pass: large.heapMiB <= 1.5 * base
  }
}

/** Where each side's main thread spends a pass, by V8's sampling profiler. */
const profiles = (bytes: number) =>
  Effect.gen(function* () {
    const found: Array<readonly [string, Profile]> = []
    for (const [name, direction, kind] of [
      ["encryptStream", "encrypt", "stream"],
      ["bare cipher loop", "encrypt", "raw"],
      ["decryptStreamUnverified", "decrypt", "stream"],
      ["bare decipher loop", "decrypt", "raw"]
    ] as const) {
      found.push([name, (yield* inChild("profile", direction, kind, bytes)).profile!])
    }
    return found
  })

/** How far the bare loop's own passes spread around their median: the machine's noise in this run. */
const spreadOf = (passes: ReadonlyArray<PassResult>) => {
  const seconds = passes.map((p) => p.cpuSeconds)
  const middle = Report.median(seconds)
  return { low: Math.min(...seconds) / middle, high: Math.max(...seconds) / middle }
}

const cipherRows = (bytes: number, rounds: number) =>
  Effect.gen(function* () {
    const encrypt = yield* alternate("cpu", "encrypt", bytes, rounds)
    const decrypt = yield* alternate("cpu", "decrypt", bytes, rounds)
    const peak = yield* alternate("peak", "roundTrip", bytes, rounds, ["raw", "map", "stream"])
    const retainedBytes = Math.min(bytes, 256 * MiB)
    const retained = yield* alternate("retained", "roundTrip", retainedBytes, 3)
    const large = yield* inChild("peak", "roundTrip", "stream", bytes * 4)
    const rows = [
      throughputRow("encrypt", bytes, encrypt),
      throughputRow("decrypt", bytes, decrypt),
      ...memoryRows(bytes, peak, retained, retainedBytes),
      sizeRow(bytes, large, peak)
    ]
    return { rows, spread: spreadOf([...encrypt.raw, ...decrypt.raw]) }
  })

// =============================================================================
// Run
// =============================================================================

/** What {@link run} measured. */
export interface Result {
  readonly rows: ReadonlyArray<BenchRow>
  readonly profiles: ReadonlyArray<readonly [string, Profile]>
  /** The bare loops' fastest and slowest CPU time against their median. */
  readonly spread: { readonly low: number; readonly high: number }
  readonly bytes: number
}

/** Every crypto benchmark: its rows, the profiles and the machine's noise. */
export const run = (options?: RunOptions) =>
  Effect.gen(function* () {
    const seconds = options?.seconds ?? 2
    const bytes = options?.cipherBytes ?? 1024 * MiB
    const rounds = options?.rounds ?? 7
    const shamir = yield* shamirRows(seconds)
    const cipher = yield* cipherRows(bytes, rounds)
    return {
      rows: [...shamir, ...cipher.rows],
      profiles: yield* profiles(bytes),
      spread: cipher.spread,
      bytes
    } satisfies Result
  })

// =============================================================================
// Report
// =============================================================================

const CATEGORIES = ["cipher.update", "garbage collector", "Effect runtime", "lighthouse-effect", "other"] as const

const totalOf = (profile: Profile) => CATEGORIES.reduce((sum, c) => sum + profile[c], 0)

/** The share of a pass that is the stream's own code: what the bare loop does not run. */
const ownShare = (profile: Profile) => (profile["Effect runtime"] + profile["lighthouse-effect"]) / totalOf(profile)

/** The profiles as a table: milliseconds and share of the pass for each category. */
const profileTable = (found: Result["profiles"]): Array<string> => [
  `| pass | ${CATEGORIES.join(" | ")} |`,
  `|---|${CATEGORIES.map(() => "---").join("|")}|`,
  ...found.map(([name, profile]) => {
    const cells = CATEGORIES.map(
      (c) => `${profile[c].toFixed(0)} ms (${((100 * profile[c]) / totalOf(profile)).toFixed(0)} %)`
    )
    return `| ${name} | ${cells.join(" | ")} |`
  })
]

const percent = (share: number) => `${(100 * share).toFixed(1)} %`

/** What the profiles and the spread say of the throughput rows, with this run's figures. */
const reading = (result: Result): Array<string> => {
  const streams = result.profiles.filter(([name]) => name.endsWith("Stream") || name.endsWith("Unverified"))
  const shares = streams.map(([name, profile]) => `${percent(ownShare(profile))} of \`${name}\`'s`).join(" and ")
  return [
    `The stream's own code (Effect's runtime and this library) is ${shares} main-thread time; the`,
    "rest is the `update` calls, allocations and collections the bare loop also makes over the same bytes.",
    `The bare loop's own passes in this run took ${percent(result.spread.low)} to ${percent(result.spread.high)} of their`,
    "median CPU time: passes of identical work differ by more than the stream's own share, which is what the",
    "collector and the allocator (fresh pages for each new buffer) make of a shared machine."
  ]
}

/** The rows and profiles as the `## Crypto` section of BENCHMARKS.md. */
export const markdownSection = (result: Result): string =>
  [
    "## Crypto",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/crypto.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads).`,
    "",
    ...Report.comparisonTable(result.rows),
    "",
    "Every `update` of a `node:crypto` cipher returns a new buffer, and V8 collects such garbage when external",
    "memory has grown by about 64 MiB, so a pass leaves garbage behind: each pass of the cipher runs in a fresh",
    "process (in one shared process, the next pass pays for the last one's collection), stream and bare loop",
    "alternately, and single figures of either move by ±20 % with machine load. The bare loop allocates the",
    "same buffers as the stream, so its peak is the floor for any streaming code over `node:crypto`; the",
    '"still referenced" row, with a full collection every 2 MiB, shows what the stream itself holds.',
    "",
    "Any Effect stream over `node:crypto` peaks above the bare loop, the library's or a plain `Stream.map`",
    "with the bare loop's calls alike (second row of the round trip). V8 frees these buffers when an",
    "incremental mark-compact ends, and `--trace-gc` (2026-11-23, 1 GiB round trip) shows marking taking",
    "longer from its start to the compaction under a stream (40–94 ms) than under the tight loop (34–48 ms),",
    "which drives the marking itself with its allocations: the buffers made meanwhile are the difference.",
    "",
    `Where the time goes: V8's sampling profiler over one ${result.bytes / MiB} MiB pass of each, main thread only (the`,
    "collector's background threads are in the CPU times above, not here).",
    "",
    ...profileTable(result.profiles),
    "",
    ...reading(result),
    ""
  ].join("\n")

const self = fileURLToPath(import.meta.url)

if (process.argv[1] === self) {
  const result = await Effect.runPromise(run())
  Report.printRows(result.rows)
  Report.writeSection(markdownSection(result))
}
