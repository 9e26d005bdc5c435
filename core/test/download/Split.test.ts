/**
 * The `split` strategy against the mock network with three more gateways: the file's ranges are
 * spread over honest sources (each serves some, the bytes are the file's); a liar is dropped and
 * its range fetched by the others; a source stalled past the stall time-out (TestClock) keeps the
 * verified bytes it served and the rest of its range is asked of another from there; a source
 * dropped on one range has its other request stopped at once, not left to stall; at most
 * `window` verified bytes wait for a consumer that does not read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as Download from "../../src/Download.ts"
import { run } from "../../src/download/Engine.ts"
import { planOf } from "../../src/download/Plan.ts"
import * as Hosts from "../../src/internal/Hosts.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"
import { parseCid } from "../../src/schema/Cid.ts"
import * as Upload from "../../src/Upload.ts"
import { makeVirtualTime } from "../support/network.ts"
import { alice, makeHarness } from "../upload/harness.ts"

const A = "https://gw-a.example"
const B = "https://gw-b.example"
const C = "https://gw-c.example"
const { network, server, log, layer, layerWith } = makeHarness({ gateways: [A, B, C] })
// A body aborted half-way over msw's `fetch` trips an assertion inside undici; Node applications use node:http.
const nodeHttp = layerWith({}, "node:http")
const time = makeVirtualTime()
time.watch(server)
const [faultsA, faultsB] = network.gateways.map((gateway) => gateway.faults) as [
  (typeof network.gateways)[number]["faults"],
  (typeof network.gateways)[number]["faults"]
]
const gateway = { host: "gateway" } as const

const KiB = 1024
const LEAF = 256 * KiB
/** Nine full 256 KiB leaves and a short tenth one. */
const SIZE = 9 * LEAF + 100 * KiB
const content = new Uint8Array(SIZE).map((_, i) => (i * 131 + (i >> 11)) & 0xff)

const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "split-key" }).apiKey
  const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey })
  log.length = 0
  return entry.Hash
})

/** The CAR requests each gateway saw, as `entity-bytes`. */
const asked = (base: string) =>
  log
    .filter((request) => request.url.origin === base && request.url.pathname.startsWith("/ipfs/"))
    .map((request) => request.url.searchParams.get("entity-bytes") ?? "-")

/** `[from, to]` of an `entity-bytes` value. */
const bounds = (entityBytes: string) => entityBytes.split(":").map(Number) as [number, number]

const sources = [A, B, C]

describe("split downloads", () => {
  it.effect("honest sources share the file: each serves some ranges, the bytes are the file's", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const options = { sources, strategy: "split", rangeSize: LEAF, requestsPerSource: 1, window: 4 * LEAF } as const
      const retrieved = yield* (yield* Download.Download).retrieve(cid, options)
      assert.deepStrictEqual(retrieved.bytes, content)
      const report = retrieved.verification.sources!
      assert.deepStrictEqual(
        report.map((source) => source.gateway),
        sources
      )
      for (const source of report) {
        assert.isAbove(source.bytes, 0)
        assert.isUndefined(source.dropped)
      }
      assert.strictEqual(
        report.reduce((total, source) => total + source.bytes, 0),
        SIZE
      )
      // Every request is one range of at most `rangeSize` bytes, on a range boundary.
      const requests = sources.flatMap(asked).map(bounds)
      for (const [from, to] of requests) {
        assert.strictEqual(from % LEAF, 0)
        assert.strictEqual(to, from + LEAF - 1)
      }
      const starts = requests.map(([from]) => from).filter((from) => from < SIZE)
      assert.deepStrictEqual(
        starts.toSorted((x, y) => x - y),
        Array.from({ length: 10 }, (_, i) => i * LEAF)
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("a lying source is dropped with its reason, its range comes from the others, the file is intact", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsB.lie(gateway, "flip-byte")
      const options = { sources, strategy: "split", rangeSize: LEAF, requestsPerSource: 1, window: 4 * LEAF } as const
      const retrieved = yield* (yield* Download.Download).retrieve(cid, options)
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b, c] = retrieved.verification.sources!
      assert.match(b!.dropped!, /^lied: block bafk\w+ had other bytes$/)
      assert.isUndefined(a!.dropped)
      assert.isUndefined(c!.dropped)
      assert.strictEqual(a!.bytes + b!.bytes + c!.bytes, SIZE)
      // The liar was asked once, then never again.
      assert.strictEqual(asked(B).length, 1)
      const [lied] = asked(B)
      assert.isTrue([...asked(A), ...asked(C)].some((range) => bounds(range)[1] === bounds(lied!)[1]))
    }).pipe(Effect.provide(layer))
  )

  it.effect("a stalling source keeps its verified bytes; the rest of its range is asked of another from there", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      // A's first range is two leaves: it answers the first, then no more.
      faultsA.stall(gateway, LEAF + 40 * KiB)
      const started = yield* Clock.currentTimeMillis
      const options = {
        sources,
        strategy: "split",
        rangeSize: 2 * LEAF,
        requestsPerSource: 1,
        window: 8 * LEAF
      } as const
      const retrieved = yield* time.settle((yield* Download.Download).retrieve(cid, options))
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b, c] = retrieved.verification.sources!
      assert.deepStrictEqual(a, { gateway: A, bytes: LEAF, dropped: "stalled 30 s" })
      assert.strictEqual(b!.bytes + c!.bytes, SIZE - LEAF)
      assert.deepStrictEqual(asked(A), [`0:${2 * LEAF - 1}`])
      assert.include([...asked(B), ...asked(C)], `${LEAF}:${2 * LEAF - 1}`)
      assert.isAtLeast((yield* Clock.currentTimeMillis) - started, 30_000)
    }).pipe(Effect.provide(nodeHttp))
  )

  it.effect("a source dropped on one piece has its other request stopped at once: no wait for it to stall", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      // Five ranges of two leaves, handed out A, B, C, A, B: B's first (the second range) stops after
      // a leaf, its second (the last range) lies.
      faultsB.lie(gateway, "flip-byte", { times: 1 })
      faultsB.stall(gateway, LEAF + 40 * KiB, { times: 1 })
      const started = yield* Clock.currentTimeMillis
      const options = {
        sources,
        strategy: "split",
        rangeSize: 2 * LEAF,
        requestsPerSource: 2,
        window: 10 * LEAF
      } as const
      const retrieved = yield* time.settle((yield* Download.Download).retrieve(cid, options))
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b, c] = retrieved.verification.sources!
      assert.match(b!.dropped!, /^lied: block bafk\w+ had other bytes$/)
      assert.strictEqual(a!.bytes + b!.bytes + c!.bytes, SIZE)
      // The stopped range kept its verified leaf; the rest of it was asked of A or C from there.
      assert.deepStrictEqual(asked(B), [`${2 * LEAF}:${4 * LEAF - 1}`, `${8 * LEAF}:${10 * LEAF - 1}`])
      assert.include([...asked(A), ...asked(C)], `${3 * LEAF}:${4 * LEAF - 1}`)
      // Stopped when B was caught lying, not after the 30 s stall time-out.
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 30_000)
    }).pipe(Effect.provide(nodeHttp))
  )

  it.effect("at most `window` verified bytes wait for the caller, and the window is filled", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const rangeSize = 64 * KiB
      const window = 4 * rangeSize
      const hosts = Hosts.make(LighthouseConfig.defaults, yield* HttpClient.HttpClient)
      const options = { sources, strategy: "split", rangeSize, requestsPerSource: 2, window } as const
      const plan = yield* planOf({ hosts, cid: yield* parseCid(cid), operation: "stream", options })
      const { stream, report } = run(plan)
      const served = Effect.map(report, ({ sources = [] }) =>
        sources.reduce((total, source) => total + source.bytes, 0)
      )
      const turn = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      let handedOut = 0
      let mostHeld = 0
      /** Lets the fetches run until the window ahead of the caller is full (or the file fetched), then measures. */
      const measure = Effect.gen(function* () {
        const full = Math.min(SIZE, handedOut + window)
        for (let turns = 0; turns < 100_000 && (yield* served) < full; turns++) yield* turn
        for (let turns = 0; turns < 50; turns++) yield* turn
        const held = (yield* served) - handedOut
        mostHeld = Math.max(mostHeld, held)
        assert.isAtMost(held, window)
      })
      const received: Array<Uint8Array> = []
      yield* Stream.runForEach(stream, (bytes) => {
        received.push(bytes)
        handedOut += bytes.length
        return measure
      })
      assert.deepStrictEqual(Buffer.concat(received), Buffer.from(content))
      // While the caller reads a range, the ranges after it fill the window, no more.
      assert.strictEqual(mostHeld, window)
    }).pipe(Effect.provide(layer))
  )
})
