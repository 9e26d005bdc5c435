/**
 * The web path's cipher in Chromium (the browser of the Storybook tests, from
 * `@sparticuz/chromium`): `FileCipher`'s streams (the keystream of `@noble/ciphers`, GHASH chained over segments)
 * encrypting and decrypting 1 GiB, their output hashed or counted and discarded, beside
 * WebCrypto's one-shot AES-GCM. Memory is the summed RSS of every Chromium process, sampled
 * every 20 ms, over its level before the pass; the stream's bytes are checked against
 * `node:crypto` computing the same file in this process, and against the one-shot.
 *
 * `npx tsx --conditions=@lighthouse-effect/source scripts/bench/webCipher.ts` (sizes:
 * `BENCH_WEB_STREAM_MIB`, default 1024; `BENCH_WEB_ONESHOT_MIB`, default 256).
 *
 * @since 0.1.0
 */
import { createCipheriv, createHash, pbkdf2Sync } from "node:crypto"
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import { availableParallelism, loadavg } from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import Chromium from "@sparticuz/chromium"
import { build } from "esbuild"
import { type Browser, chromium, type Page } from "playwright-core"
import * as Report from "./report.ts"
import { chunksOf, IV, MASTER, makeBlock, SALT } from "./webCipherInput.ts"
import type { CipherSetup, PassKind, PassRequest, PassResult } from "./webCipherPage.ts"

const MiB = 1024 * 1024
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const streamBytes = Number(process.env.BENCH_WEB_STREAM_MIB ?? 1024) * MiB
const largeBytes = Number(process.env.BENCH_WEB_LARGE_MIB ?? 4096) * MiB
const oneShotBytes = Number(process.env.BENCH_WEB_ONESHOT_MIB ?? 256) * MiB
const LIMIT_MIB = 160
/** Stream throughput target: this, or half of WebCrypto's one-shot AES-GCM in the same run. */
const TARGET_MIB_S = 150

// =============================================================================
// Chromium's memory
// =============================================================================

/** Every process below `pid` (Chromium's browser, renderers, GPU and utility processes). */
const descendants = async (pid: number): Promise<Array<number>> => {
  const parents = new Map<number, Array<number>>()
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "")
    // The command name is in parentheses and may hold spaces: the fields after it are plain.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
  }
  const found: Array<number> = []
  const walk = (p: number) => {
    for (const child of parents.get(p) ?? []) {
      found.push(child)
      walk(child)
    }
  }
  walk(pid)
  return found
}

/** The summed resident set of the processes, in bytes (a process gone meanwhile counts 0). */
const summedRss = async (pids: ReadonlyArray<number>): Promise<number> => {
  let total = 0
  for (const pid of pids) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "")
    const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
    total += kib === undefined ? 0 : Number(kib) * 1024
  }
  return total
}

/** Samples the summed RSS every 20 ms until stopped; the peak. Processes are looked up on each sample. */
const sampleRss = () => {
  let peak = 0
  let running = true
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await summedRss(await descendants(process.pid)))
      await new Promise((done) => setTimeout(done, 20))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return peak
    }
  }
}

// =============================================================================
// The page
// =============================================================================

const executablePath = async (): Promise<string> => {
  if (process.env.CHROMIUM_PATH !== undefined) return process.env.CHROMIUM_PATH
  const previous = process.env.TMPDIR
  process.env.TMPDIR = path.join(root, "node_modules", ".cache", "chromium")
  await mkdir(process.env.TMPDIR, { recursive: true })
  try {
    return await Chromium.executablePath()
  } finally {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
  }
}

/** The page script, bundled as a browser app would bundle the library. */
const bundlePage = async (): Promise<Uint8Array> => {
  const result = await build({
    entryPoints: [path.join(root, "scripts", "bench", "webCipherPage.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@lighthouse-effect/source", "browser"],
    write: false,
    logLevel: "silent",
    absWorkingDir: root
  })
  return result.outputFiles[0]!.contents
}

const serve = (script: Uint8Array) =>
  new Promise<Server>((done) => {
    const server = createServer((request, response) => {
      if (request.url === "/page.js") response.writeHead(200, { "content-type": "text/javascript" }).end(script)
      else
        response
          .writeHead(200, { "content-type": "text/html" })
          .end('<!doctype html><script type="module" src="/page.js"></script>')
    })
    server.listen(0, "127.0.0.1", () => done(server))
  })

/**
 * With `BENCH_WEB_PROFILE=dir`, the page's main thread under V8's sampling profiler (DevTools
 * protocol), each pass's profile summarised by self time per function and written to `dir`.
 */
const startProfile = async (page: Page) => {
  const dir = process.env.BENCH_WEB_PROFILE
  if (dir === undefined) return undefined
  const session = await page.context().newCDPSession(page)
  await session.send("Profiler.enable")
  await session.send("Profiler.setSamplingInterval", { interval: 1000 })
  await session.send("Profiler.start")
  return {
    stop: async (name: string) => {
      const { profile } = await session.send("Profiler.stop")
      await mkdir(dir, { recursive: true })
      await writeFile(path.join(dir, `${name.replace(/[^\w]+/g, "-")}.cpuprofile`), JSON.stringify(profile))
      const deltas = profile.timeDeltas ?? []
      const self = new Map<number, number>()
      for (const [i, id] of (profile.samples ?? []).entries()) self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0))
      const byName = new Map<string, number>()
      for (const node of profile.nodes) {
        const label = `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.split("/").pop()}:${node.callFrame.lineNumber}`
        byName.set(label, (byName.get(label) ?? 0) + (self.get(node.id) ?? 0))
      }
      const total = [...byName.values()].reduce((a, b) => a + b, 0)
      console.log(`  profile of ${name}: ${(total / 1e6).toFixed(2)} s sampled`)
      for (const [label, micros] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 12))
        console.log(`    ${((100 * micros) / total).toFixed(1)} % ${label}`)
    }
  }
}

export interface WebPass {
  readonly name: string
  readonly request: PassRequest
  readonly result: PassResult
  /** Peak summed RSS of Chromium over its level before the pass, MiB. */
  readonly growthMiB: number
}

/** One pass on a fresh page (a new renderer), its baseline taken after a full collection. */
const runPass = async (browser: Browser, url: string, name: string, request: PassRequest): Promise<WebPass> => {
  const page: Page = await browser.newPage()
  try {
    await page.goto(url)
    await page.waitForFunction(() => "webCipherBench" in globalThis)
    await page.evaluate(
      () => (globalThis as unknown as { webCipherBench: { ready: Promise<boolean> } }).webCipherBench.ready
    )
    await page.evaluate(() => (globalThis as unknown as { gc: () => void }).gc())
    await new Promise((done) => setTimeout(done, 500))
    const baseline = await summedRss(await descendants(process.pid))
    const profiler = await startProfile(page)
    const sampler = sampleRss()
    const result = await page.evaluate(
      (r) =>
        (
          globalThis as unknown as { webCipherBench: { run: (r: PassRequest) => Promise<PassResult> } }
        ).webCipherBench.run(r),
      request
    )
    const peak = await sampler.stop()
    await profiler?.stop(name)
    const pass = { name, request, result, growthMiB: (peak - baseline) / MiB }
    console.log(
      `${name}: ${(request.bytes / MiB).toFixed(0)} MiB in ${result.seconds.toFixed(2)} s, ` +
        `${(request.bytes / MiB / result.seconds).toFixed(0)} MiB/s, RSS +${pass.growthMiB.toFixed(1)} MiB`
    )
    return pass
  } finally {
    await page.close()
  }
}

// =============================================================================
// The same file in node:crypto
// =============================================================================

/** SHA-256 of the file `node:crypto` makes of the generated input, and of the input itself. */
const nodeReference = (total: number) => {
  const key = pbkdf2Sync(Buffer.from(MASTER, "utf8"), SALT, 250_000, 32, "sha256")
  const cipher = createCipheriv("aes-256-gcm", key, IV)
  const sealed = createHash("sha256").update(SALT).update(IV)
  const plain = createHash("sha256")
  for (const chunk of chunksOf(makeBlock(), total)) {
    sealed.update(cipher.update(chunk))
    plain.update(chunk)
  }
  sealed.update(cipher.final()).update(cipher.getAuthTag())
  return { sealed: sealed.digest("hex"), plain: plain.digest("hex") }
}

// =============================================================================
// Run and report
// =============================================================================

export interface WebCipherRun {
  readonly chromium: string
  /** The machine's 1-minute load average when the run started, and its cores: throughput depends on both. */
  readonly load: { readonly average: number; readonly cores: number }
  readonly passes: ReadonlyArray<WebPass>
  /** Each check of the stream's bytes, and whether it held. */
  readonly checks: ReadonlyArray<{ readonly what: string; readonly holds: boolean }>
}

type Planned = readonly [name: string, kind: PassKind, bytes: number, hash: boolean, cipher?: CipherSetup]

/** Each way of making the keystream alone, over the whole streamed size, output counted. */
const keystreamPlan: ReadonlyArray<Planned> = [
  ["WebCrypto AES-CTR, 256 KiB per call", "webCryptoCtr", streamBytes, false],
  ["WebCrypto AES-CTR, 4 MiB per call", "webCryptoCtrLarge", streamBytes, false],
  ["WebCrypto AES-CTR, each result copied out and detached", "webCryptoCtrDetached", streamBytes, false],
  ["`@noble/ciphers` AES-CTR in place in a new buffer per segment (the stream's)", "nobleCtrFresh", streamBytes, false],
  ["`@noble/ciphers` AES-CTR into one reused buffer", "nobleCtrReused", streamBytes, false],
  ["no cipher: a new buffer per segment, the input copied in (the floor)", "freshCopy", streamBytes, false]
]

const ROUND_TRIP = "stream encrypt → decrypt, both hashed"
const ONE_SHOT = "one-shot encrypt (WebCrypto AES-GCM)"
const STREAM_AT_ONE_SHOT = "stream encrypt, hashed"

const cipherPlan: ReadonlyArray<Planned> = [
  ["stream encrypt", "streamEncrypt", streamBytes, false],
  ["stream decrypt", "streamDecrypt", streamBytes, false],
  [ROUND_TRIP, "streamRoundTrip", streamBytes, true],
  [ONE_SHOT, "oneShotEncrypt", oneShotBytes, true],
  ["one-shot decrypt (WebCrypto AES-GCM)", "oneShotDecrypt", oneShotBytes, false],
  [STREAM_AT_ONE_SHOT, "streamEncrypt", oneShotBytes, true],
  ["stream encrypt", "streamEncrypt", largeBytes, false],
  ["stream decrypt", "streamDecrypt", largeBytes, false]
]

/** Each pass of `passes` in turn, each on a fresh page of one Chromium. */
export const runPasses = async (
  passes: ReadonlyArray<Planned>
): Promise<{ readonly chromium: string; readonly passes: ReadonlyArray<WebPass> }> => {
  const server = await serve(await bundlePage())
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
  const browser = await chromium.launch({
    executablePath: await executablePath(),
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--js-flags=--expose-gc"]
  })
  try {
    const done: Array<WebPass> = []
    for (const [name, kind, bytes, hash, cipher] of passes)
      done.push(await runPass(browser, url, name, { kind, bytes, hash, cipher }))
    return { chromium: browser.version(), passes: done }
  } finally {
    await browser.close()
    server.close()
  }
}

/** A setup's name in a row: its segment, and its Workers or the in-page cipher. */
export const setupName = (setup: CipherSetup): string =>
  setup.workers === 0
    ? `in the page (\`@noble/ciphers\`' AES-CTR), ${setup.segmentKiB} KiB segments`
    : `${setup.workers} Worker${setup.workers === 1 ? "" : "s"} recycled every ${setup.recycleMiB} MiB, ${setup.segmentKiB} KiB segments, ${setup.copy ? "WebCrypto's result copied" : "WebCrypto's result transferred"}${setup.standby ? "" : ", no standby"}, ${setup.inFlight} in flight per Worker`

/**
 * `BENCH_WEB_SETUPS=segmentKiB:workers:recycleMiB[:copy[:sizeMiB[:standby[:inFlight]]]],…` (sizeMiB 0: the stream size;
 * standby 0: a replacement Worker started only when its turn comes): each setup's stream encrypt and decrypt, timed.
 */
const setupPlan = (): ReadonlyArray<Planned> =>
  (process.env.BENCH_WEB_SETUPS?.split(",") ?? []).flatMap((spec): ReadonlyArray<Planned> => {
    const [segmentKiB = 256, workers = 2, recycleMiB = 128, copy = 0, size = 0, standby = 1, inFlight = 4] = spec
      .split(":")
      .map(Number)
    const setup = { segmentKiB, workers, recycleMiB, copy: copy === 1, standby: standby === 1, inFlight }
    const sizeMiB = size === 0 ? undefined : size
    const bytes = sizeMiB === undefined ? streamBytes : sizeMiB * MiB
    return [
      [`stream encrypt, ${setupName(setup)}`, "streamEncrypt", bytes, false, setup],
      [`stream decrypt, ${setupName(setup)}`, "streamDecrypt", bytes, false, setup]
    ]
  })

export const run = async (): Promise<WebCipherRun> => {
  const load = { average: loadavg()[0]!, cores: availableParallelism() }
  const only = process.env.BENCH_WEB_ONLY?.split(",")
  const plan = [...cipherPlan, ...keystreamPlan]
    .filter(([, kind, bytes]) => (only === undefined || only.includes(kind)) && bytes > 0)
    .concat(setupPlan())
  const { chromium: version, passes } = await runPasses(plan)
  if (!passes.some((p) => p.name === ROUND_TRIP) || !passes.some((p) => p.name === ONE_SHOT))
    return { chromium: version, load, passes, checks: [] }
  const named = (name: string) => passes.find((p) => p.name === name)!.result
  const long = nodeReference(streamBytes)
  const short = nodeReference(oneShotBytes)
  const gib = `${(streamBytes / MiB).toFixed(0)} MiB`
  const checks = [
    { what: `stream ciphertext of ${gib} = node:crypto's`, holds: named(ROUND_TRIP).ciphertextSha256 === long.sealed },
    { what: `stream round trip of ${gib} = the input`, holds: named(ROUND_TRIP).outputSha256 === long.plain },
    {
      what: `stream ciphertext of ${(oneShotBytes / MiB).toFixed(0)} MiB = WebCrypto's one-shot = node:crypto's`,
      holds:
        named(STREAM_AT_ONE_SHOT).outputSha256 === named(ONE_SHOT).outputSha256 &&
        named(ONE_SHOT).outputSha256 === short.sealed
    }
  ]
  return { chromium: version, load, passes, checks }
}

const rate = (p: WebPass) => p.request.bytes / MiB / p.result.seconds

const row = (p: WebPass) =>
  `| ${p.name} | ${(p.request.bytes / MiB).toFixed(0)} MiB | ${Report.figure(p.result.seconds)} s | ${Report.figure(rate(p))} MiB/s | ${Report.figure(p.growthMiB)} MiB |`

const TABLE_HEAD = ["| pass | size | time | throughput | Chromium RSS growth |", "|---|---|---|---|---|"]

/** The default streams' timed passes against ${TARGET_MIB_S} MiB/s or half of the one-shot encrypt's rate. */
const speedTarget = (passes: ReadonlyArray<WebPass>): string => {
  const oneShot = passes.find((p) => p.name === ONE_SHOT)
  const floor = Math.min(TARGET_MIB_S, oneShot === undefined ? TARGET_MIB_S : rate(oneShot) / 2)
  const streams = passes.filter(
    (p) => p.request.kind.startsWith("stream") && !p.request.hash && p.request.cipher === undefined
  )
  const slowest = Math.min(...streams.map(rate))
  return `Target: stream encrypt and decrypt ≥ ${TARGET_MIB_S} MiB/s or ≥ 0.5× the one-shot encrypt (${Report.figure(floor)} MiB/s here): ${
    slowest >= floor ? "met" : "**not met**"
  } (slowest ${Report.figure(slowest)} MiB/s).`
}

export const markdownSection = (result: WebCipherRun): string => {
  const isCipher = (p: WebPass) => p.request.kind.startsWith("stream") || p.request.kind.startsWith("oneShot")
  const timed = result.passes.filter((p) => isCipher(p) && (!p.request.hash || p.request.kind.startsWith("oneShot")))
  const memory = result.passes.filter((p) => p.request.kind.startsWith("stream"))
  return [
    "## Web cipher in Chromium",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/webCipher.ts\`:`,
    `headless Chromium ${result.chromium} (\`@sparticuz/chromium\`), the library bundled for the browser. \`FileCipher\`'s`,
    "streams take 64 KiB chunks and stream in constant memory: each 256 KiB segment is transferred to one of two",
    "Workers, which make its keystream with WebCrypto's AES-CTR and its GHASH with WebCrypto's AES-GCM, and transfer",
    "WebCrypto's result back, 4 segments in flight per Worker; a Worker is replaced every 128 MiB (its successor",
    "started at 64 MiB), its heap going with it. The segments' hashes are",
    "chained in the page (`@noble/ciphers`' GHASH); the one-shot is WebCrypto's AES-GCM over the whole file in memory. Output is counted (timed",
    "passes) or SHA-256 hashed, never kept. Memory is the summed RSS of all Chromium processes, sampled every",
    "20 ms, at its peak over its level before the pass.",
    `The machine had ${result.load.cores} cores and a load average of ${Report.figure(result.load.average)} when the run started:`,
    "throughputs are of such a machine, and the comparisons between rows are what carries over.",
    "",
    ...TABLE_HEAD,
    ...timed.map(row),
    "",
    `Target: a stream pass grows Chromium's RSS by ≤ ${LIMIT_MIB} MiB: ${
      memory.every((p) => p.growthMiB <= LIMIT_MIB) ? "met" : "**not met**"
    } (largest ${Report.figure(Math.max(...memory.map((p) => p.growthMiB)))} MiB, hashed passes included).`,
    speedTarget(result.passes),
    "",
    ...result.checks.map((c) => `- ${c.what}: ${c.holds ? "yes" : "**no**"}`),
    "",
    "Each way of making the keystream, alone in a plain loop over the same input (256 KiB per segment",
    "unless said; no tag, no stream). Every WebCrypto call returns a new ArrayBuffer that Chromium frees only",
    "at a full collection: bigger calls leave more behind, and detaching the results hides them from the",
    "collector's accounting without freeing them. In a Worker that is terminated every 128 MiB they go with its",
    "heap, and a result transferred to the page is freed there like a buffer of its own. A stream that hands out",
    "a new buffer per segment pays the last row (fresh memory, faulted in) whatever its cipher: the streams above",
    "pay it in the Worker, where WebCrypto writes its result, not on the page's thread.",
    "",
    ...TABLE_HEAD,
    ...result.passes.filter((p) => !isCipher(p)).map(row),
    ""
  ].join("\n")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run()
  const section = markdownSection(result)
  console.log(section)
  // A partial run (`BENCH_WEB_ONLY=kind,…`) is printed, not written.
  if (process.env.BENCH_WEB_ONLY === undefined) Report.writeSection(section)
  if (!result.checks.every((c) => c.holds)) process.exitCode = 1
}
