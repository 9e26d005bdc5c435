/**
 * Key-node benchmarks: the wall time of the 5-node calls against the in-process mock network
 * (msw), as a ratio to one single-node call measured in the same run, and against the provider's
 * own client (`@lighthouse-web3/kavach`) doing the same work on the same mock.
 *
 * - saving a file key's 5 shards with the default policy (sequential, 1000 ms pause: faithful to
 *   the spec, so about 4 s by design), with the concurrent policy (target ≤ 1.5× one call), and
 *   with kavach's `saveShards`;
 * - recovering the key from 3 nodes (`fetchKey`) with both policies (concurrent target ≤ 1.5×).
 *
 * The concurrent figures are taken twice: with the mock answering at once, where every request
 * is CPU work on the one thread the client and msw share (so 5 requests cannot cost what 1 does;
 * 5 bare `fetch`es at once are measured as that floor), and with a modelled network latency per
 * request (the mock's `slow` fault), which is what the concurrent policy exists to overlap.
 *
 * Real time, not the TestClock: this measures what a user waits for.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/nodes.ts` prints the rows and rewrites the `## Key nodes` section of
 * BENCHMARKS.md; `run()` returns the rows.
 */

import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import * as kavach from "@lighthouse-web3/kavach"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { Auth, KeyNodes, KeyShards, LighthouseConfig, Signer } from "lighthouse-effect"
import { startMockNetwork } from "lighthouse-effect/mocks/node"
import { privateKeyToAccount } from "viem/accounts"
import * as Report from "./report.ts"

/** One measured figure: a median wall time in milliseconds over `runs` runs. */
export interface BenchRow extends Report.BenchRow {
  readonly unit: "ms"
  readonly runs: number
}

/** Options of {@link run}: fewer runs for a quick look. */
export interface RunOptions {
  /** Runs of each fast measurement (single call, concurrent policy). @default 100 */
  readonly fastRuns?: number
  /** Runs of each measurement that sleeps (sequential policy, kavach). @default 3 */
  readonly slowRuns?: number
  /** Modelled network latency of each key-node request in the second set of figures. @default 50 */
  readonly latencyMs?: number
}

const privateKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const cid = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"

/** Median wall time of `runs` sequential runs of `task`, after `warmup` untimed ones. */
const time = async (runs: number, task: () => Promise<unknown>, warmup = 2): Promise<number> => {
  for (let i = 0; i < warmup; i++) await task()
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await task()
    times.push(performance.now() - start)
  }
  return Report.median(times)
}

/**
 * Median wall time of each task, the tasks taking turns run after run, so a load spike on the
 * machine hits all of them alike and their ratios stay meaningful.
 */
const interleaved = async <K extends string>(
  runs: number,
  tasks: Readonly<Record<K, () => Promise<unknown>>>,
  warmup = 3
): Promise<Record<K, number>> => {
  const names = Object.keys(tasks) as Array<K>
  for (let i = 0; i < warmup; i++) for (const name of names) await tasks[name]()
  const times = Object.fromEntries(names.map((name) => [name, [] as Array<number>])) as Record<K, Array<number>>
  for (let i = 0; i < runs; i++) {
    for (const name of names) {
      const start = performance.now()
      await tasks[name]()
      times[name].push(performance.now() - start)
    }
  }
  return Object.fromEntries(names.map((name) => [name, Report.median(times[name])])) as Record<K, number>
}

const runtimeFor = (mode: "sequential" | "concurrent") =>
  ManagedRuntime.make(
    KeyShards.layer.pipe(Layer.provideMerge(Auth.layer())).pipe(
      Layer.provideMerge(KeyNodes.layer),
      Layer.provideMerge(LighthouseConfig.layer({ nodes: { mode } })),
      Layer.provideMerge(FetchHttpClient.layer),
      // Late-bound: msw patches `globalThis.fetch` when it starts.
      Layer.provide(Layer.succeed(FetchHttpClient.Fetch, (input, init) => globalThis.fetch(input, init)))
    )
  )

/** kavach's own save and recover against the same mock: a raw signature is single-use per node, so it gets the JWT too. */
const kavachTimes = async (
  slowRuns: number,
  jwt: string,
  keyShards: ReadonlyArray<{ readonly key: string; readonly index: string }>
) => {
  const address = privateKeyToAccount(privateKey).address
  const kavachShards = keyShards.map((s) => ({ ...s }))
  const kavachSave = await time(
    slowRuns,
    async () => {
      const result = await kavach.saveShards(address, cid, jwt, kavachShards)
      if (!result.isSuccess) throw new Error(`kavach saveShards failed: ${JSON.stringify(result.error)}`)
    },
    0
  )
  const kavachFetch = await time(
    slowRuns,
    async () => {
      const { shards, error } = await kavach.recoverShards(address, cid, jwt, 3)
      if (error !== null) throw new Error(`kavach recoverShards failed: ${JSON.stringify(error)}`)
      await kavach.recoverKey(shards)
    },
    0
  )

  return { kavachSave, kavachFetch }
}

/** The medians of one run, in milliseconds. */
type KeyNodeFigures = Record<
  | "singleMs"
  | "bareMs"
  | "concurrentSave"
  | "concurrentFetch"
  | "singleSlow"
  | "concurrentSaveSlow"
  | "concurrentFetchSlow"
  | "sequentialSave"
  | "sequentialFetch"
  | "kavachSave"
  | "kavachFetch",
  number
>

const ratioRow = (
  benchmark: string,
  value: number,
  runs: number,
  reference: number,
  target: string,
  pass: (ratio: number) => boolean
): BenchRow => ({
  benchmark,
  value,
  unit: "ms",
  runs,
  baseline: { name: "one single-node call", value: reference },
  ratio: value / reference,
  target,
  pass: pass(value / reference)
})
const atMost = (limit: number) => (ratio: number) => ratio <= limit
const info = () => true

/** The figures as report rows, each against its reference and target. */
const rowsOf = (
  figures: KeyNodeFigures,
  { fastRuns, slowRuns, latency }: { readonly fastRuns: number; readonly slowRuns: number; readonly latency: number }
): Array<BenchRow> => {
  const { singleMs, bareMs, concurrentSave, concurrentFetch, singleSlow } = figures
  const { concurrentSaveSlow, concurrentFetchSlow, sequentialSave, sequentialFetch, kavachSave, kavachFetch } = figures
  return [
    ratioRow("one call to one node (POST /api/setSharedKey/1), the reference", singleMs, fastRuns, singleMs, "–", info),
    ratioRow("5 bare `fetch`es at once, no client (the mock's own floor)", bareMs, fastRuns, singleMs, "–", info),
    ratioRow("save 5 shards, concurrent policy", concurrentSave, fastRuns, singleMs, "≤ 1.5× one call", atMost(1.5)),
    {
      benchmark: "save 5 shards, concurrent policy, against the mock's floor (the client's own cost)",
      value: concurrentSave,
      unit: "ms",
      runs: fastRuns,
      baseline: { name: "5 bare fetches at once", value: bareMs },
      ratio: concurrentSave / bareMs,
      target: "≤ 1.5× the floor",
      pass: concurrentSave / bareMs <= 1.5
    },
    ratioRow(
      "fetchKey (3 nodes + recover), concurrent policy",
      concurrentFetch,
      fastRuns,
      singleMs,
      "≤ 1.5× one call",
      atMost(1.5)
    ),
    ratioRow(
      `with ${latency} ms node latency: one call to one node, the reference`,
      singleSlow,
      fastRuns,
      singleSlow,
      "–",
      info
    ),
    ratioRow(
      `with ${latency} ms node latency: save 5 shards, concurrent policy`,
      concurrentSaveSlow,
      fastRuns,
      singleSlow,
      "≤ 1.5× one call",
      atMost(1.5)
    ),
    ratioRow(
      `with ${latency} ms node latency: fetchKey, concurrent policy`,
      concurrentFetchSlow,
      fastRuns,
      singleSlow,
      "≤ 1.5× one call",
      atMost(1.5)
    ),
    ratioRow(
      "save 5 shards, default policy (sequential, 1000 ms pause)",
      sequentialSave,
      slowRuns,
      singleMs,
      "4 pauses + 5 calls (spec)",
      () => sequentialSave >= 4000 && sequentialSave < 4000 + 10 * singleMs + 200
    ),
    ratioRow(
      "save 5 shards, kavach 0.2.1 `saveShards` (sleeps 1 s after every node)",
      kavachSave,
      slowRuns,
      singleMs,
      "baseline",
      info
    ),
    ratioRow(
      "fetchKey (3 nodes + recover), default policy (sequential, 1000 ms pause)",
      sequentialFetch,
      slowRuns,
      singleMs,
      "2 pauses + 3 calls (spec)",
      () => sequentialFetch >= 2000 && sequentialFetch < 2000 + 6 * singleMs + 200
    ),
    ratioRow(
      "`recoverShards` (3 nodes) + `recoverKey`, kavach 0.2.1 (sleeps 1 s after every node)",
      kavachFetch,
      slowRuns,
      singleMs,
      "baseline",
      info
    )
  ]
}

/** Runs every key-node benchmark against a fresh in-process mock network and returns its rows. */
export const run = async (options: RunOptions = {}): Promise<ReadonlyArray<BenchRow>> => {
  const fastRuns = options.fastRuns ?? 100
  const slowRuns = options.slowRuns ?? 3
  const latency = options.latencyMs ?? 50
  const mock = startMockNetwork({ onUnhandledFrame: "error" })
  const sequential = runtimeFor("sequential")
  const concurrent = runtimeFor("concurrent")
  try {
    const signer = await Effect.runPromise(Signer.makeFromPrivateKey(Redacted.make(privateKey)))
    const token = await concurrent.runPromise(Effect.flatMap(Auth.Auth, (auth) => auth.token(signer)))
    const { keyShards } = await Effect.runPromise(KeyShards.generate())
    const save = (runtime: typeof concurrent) => () =>
      runtime.runPromise(
        Effect.flatMap(KeyShards.KeyShards, (s) => s.save({ cid, address: signer.address, token, keyShards }))
      )
    const fetchKey = (runtime: typeof concurrent) => () =>
      runtime.runPromise(
        Effect.flatMap(KeyShards.KeyShards, (s) => s.fetchKey({ cid, address: signer.address, token }))
      )
    // The reference: one call to one node through the same stack (KeyNodes.call, same body).
    const single = () =>
      concurrent.runPromise(
        Effect.flatMap(KeyNodes.KeyNodes, (nodes) =>
          nodes.call(1, {
            method: "POST",
            path: "/api/setSharedKey/1",
            body: { address: signer.address, cid, payload: keyShards[0] },
            token
          })
        )
      )
    await save(concurrent)()

    // The floor the mock itself sets: the same 5 requests as bare `fetch`es, all at once.
    const jwt = Redacted.value(token)
    const bare = () =>
      Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          fetch(`${LighthouseConfig.DefaultHosts.encryption}/api/setSharedKey/${n}`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${jwt}` },
            body: JSON.stringify({ address: signer.address, cid, payload: keyShards[n - 1] })
          }).then((r) => r.json())
        )
      )

    const atOnce = await interleaved(fastRuns, { single, bare, save: save(concurrent), fetch: fetchKey(concurrent) })

    // The same with a modelled network: every key-node request answered `latency` ms later.
    const fault = mock.network.faults.slow({ host: "encryption" }, latency)
    const slow = await interleaved(fastRuns, { single, save: save(concurrent), fetch: fetchKey(concurrent) }, 1)
    mock.network.faults.remove(fault)

    const sequentialSave = await time(slowRuns, save(sequential), 0)
    const sequentialFetch = await time(slowRuns, fetchKey(sequential), 0)
    const kavach = await kavachTimes(slowRuns, jwt, keyShards)
    return rowsOf(
      {
        singleMs: atOnce.single,
        bareMs: atOnce.bare,
        concurrentSave: atOnce.save,
        concurrentFetch: atOnce.fetch,
        singleSlow: slow.single,
        concurrentSaveSlow: slow.save,
        concurrentFetchSlow: slow.fetch,
        sequentialSave,
        sequentialFetch,
        ...kavach
      },
      { fastRuns, slowRuns, latency }
    )
  } finally {
    await sequential.dispose()
    await concurrent.dispose()
    mock.close()
  }
}

// =============================================================================
// Report
// =============================================================================

/** The rows as the `## Key nodes` section of BENCHMARKS.md. */
export const markdownSection = (rows: ReadonlyArray<BenchRow>): string =>
  [
    "## Key nodes",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/nodes.ts\` on Node ${process.version}, ` +
      `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} threads), against the in-process mock network (msw). ` +
      "Median wall time; the fast figures are taken in interleaved turns so machine load hits them alike; " +
      "ratios are to one single-node call in the same run unless said otherwise.",
    "",
    "With the mock answering at once, each request is CPU work (msw interception, JWT check, handler) on the " +
      "one thread the client shares with the mock, so 5 requests cannot take the time of 1: the row of 5 bare " +
      "`fetch`es at once is that floor, and the concurrent policy adds little to it. With a modelled latency per " +
      "request (the mock's `slow` fault), the concurrent policy overlaps the 5 waits as it would against remote nodes.",
    "",
    "| benchmark | median | runs | ratio | to | target | met |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.benchmark} | ${Report.figure(r.value)} ms | ${r.runs} | ${r.ratio === undefined ? "–" : `${Report.figure(r.ratio)}×`} | ` +
        `${r.baseline?.name ?? "–"} | ${r.target} | ${r.pass ? "yes" : "**no**"} |`
    ),
    ""
  ].join("\n")

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await run()
  for (const r of rows) {
    const ratio = r.ratio === undefined ? "" : `  ratio ${Report.figure(r.ratio)}×`
    console.log(
      `${r.pass ? "ok  " : "FAIL"} ${r.benchmark}: ${Report.figure(r.value)} ms (${r.runs} runs)${ratio}  [${r.target}]`
    )
  }
  Report.writeSection(markdownSection(rows))
}
