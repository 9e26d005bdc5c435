/**
 * Downloads from several trustless gateways at once, against the mock network with three more
 * gateways, each with faults of its own: `fallback` and `race` with honest, stalling, lying and
 * failing sources; the verified bytes a dropped source served stay, the next source is asked from
 * the first byte not yet handed out (`entity-bytes`); the report names each source's bytes and
 * why it was dropped; `AllSourcesFailed` lists every reason. Stalls run on the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Stream } from "effect"
import * as Download from "../../src/Download.ts"
import type { AllSourcesFailed } from "../../src/Errors.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"
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
const [faultsA, faultsB, faultsC] = network.gateways.map((gateway) => gateway.faults) as [
  (typeof network.gateways)[number]["faults"],
  (typeof network.gateways)[number]["faults"],
  (typeof network.gateways)[number]["faults"]
]
const gateway = { host: "gateway" } as const

/** 700 KiB: three 256 KiB leaves under a root, so a lie in the last leaf comes after 512 KiB of good bytes. */
const SIZE = 700 * 1024
const content = new Uint8Array(SIZE).map((_, i) => (i * 31 + (i >> 9)) & 0xff)

const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "sources-key" }).apiKey
  const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey })
  log.length = 0
  return entry.Hash
})

/** The CAR requests each gateway saw, as `entity-bytes` (`-` for the whole file). */
const asked = (base: string) =>
  log
    .filter((request) => request.url.origin === base && request.url.pathname.startsWith("/ipfs/"))
    .map((request) => request.url.searchParams.get("entity-bytes") ?? "-")

describe("downloads from several sources", () => {
  it.effect("fallback: a 429 is skipped, a liar is dropped after its good blocks, the next goes on from there", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsA.status(gateway, 429)
      faultsB.lie(gateway, "flip-byte")
      const retrieved = yield* (yield* Download.Download).retrieve(cid, { sources: [A, B, C] })
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b, c] = retrieved.verification.sources!
      const lastLeaf = log.find((r) => r.url.origin === C)!.url
      assert.deepStrictEqual(a, { gateway: A, bytes: 0, dropped: "HTTP 429" })
      assert.strictEqual(b!.bytes, 512 * 1024)
      assert.match(b!.dropped!, /^lied: block bafk\w+ had other bytes$/)
      assert.deepStrictEqual(c, { gateway: C, bytes: SIZE - 512 * 1024 })
      assert.isTrue(retrieved.verification.verified)
      assert.deepStrictEqual(asked(B), ["-"])
      assert.deepStrictEqual(asked(C), [`${512 * 1024}:*`])
      assert.strictEqual(lastLeaf.pathname, `/ipfs/${cid}`)
      assert.deepStrictEqual(asked("https://gateway.lighthouse.storage"), [])
    }).pipe(Effect.provide(layer))
  )

  it.effect("fallback: a source stalled past the stall time-out (TestClock) is dropped as stalled", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsA.stall(gateway, 300 * 1024)
      const started = yield* Clock.currentTimeMillis
      const retrieved = yield* time.settle((yield* Download.Download).retrieve(cid, { sources: [A, B] }))
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b] = retrieved.verification.sources!
      assert.strictEqual(a!.dropped, "stalled 30 s")
      assert.strictEqual(a!.bytes + b!.bytes, SIZE)
      assert.isTrue(a!.bytes > 0 && a!.bytes < 300 * 1024)
      assert.deepStrictEqual(asked(B), [`${a!.bytes}:*`])
      assert.isAtLeast((yield* Clock.currentTimeMillis) - started, 30_000)
    }).pipe(Effect.provide(nodeHttp))
  )

  it.effect("the stall time-out is an option: 5 s, as a Duration or milliseconds", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsA.stall(gateway, 0)
      const download = yield* Download.Download
      const first = yield* time.settle(download.retrieve(cid, { sources: [A, B], stallTimeout: 5000 }))
      assert.strictEqual(first.verification.sources![0]!.dropped, "stalled 5 s")
      const started = yield* Clock.currentTimeMillis
      const second = yield* time.settle(download.retrieve(cid, { sources: [A, B], stallTimeout: 5000 }))
      assert.deepStrictEqual(second.bytes, content)
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 30_000)
    }).pipe(Effect.provide(nodeHttp))
  )

  it.effect("race: every source is asked at once, the first to answer serves, the slow one is interrupted", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      // Real time: the slow gateway's answer would take a minute, but its request is aborted.
      faultsA.slow(gateway, 60_000)
      const retrieved = yield* (yield* Download.Download).retrieve(cid, { sources: [A, B], strategy: "race" })
      assert.deepStrictEqual(retrieved.bytes, content)
      assert.deepStrictEqual(retrieved.verification.sources, [
        { gateway: A, bytes: 0 },
        { gateway: B, bytes: SIZE }
      ])
      // The slow one's request may be aborted before the network saw it.
      assert.deepStrictEqual(asked(B), ["-"])
      assert.isAtMost(asked(A).length, 1)
    }).pipe(Effect.provide(layer))
  )

  it.effect("race: a liar that won is dropped and the others race again from its last verified byte", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsA.slow(gateway, 60_000, { times: 1 })
      faultsB.lie(gateway, "flip-byte")
      const retrieved = yield* (yield* Download.Download).retrieve(cid, { sources: [A, B], strategy: "race" })
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b] = retrieved.verification.sources!
      assert.deepStrictEqual(a, { gateway: A, bytes: SIZE - 512 * 1024 })
      assert.strictEqual(b!.bytes, 512 * 1024)
      assert.match(b!.dropped!, /^lied: block bafk\w+ had other bytes$/)
      assert.deepStrictEqual(asked(A), ["-", `${512 * 1024}:*`])
    }).pipe(Effect.provide(layer))
  )

  for (const strategy of ["fallback", "race", "split"] as const) {
    it.effect(`${strategy}: every source failing is AllSourcesFailed, each with its reason`, () =>
      Effect.gen(function* () {
        const cid = yield* uploaded
        faultsA.status(gateway, 429)
        faultsB.down(gateway)
        faultsC.lie(gateway, "other-file")
        const error = yield* Effect.flip((yield* Download.Download).bytes(cid, { sources: [A, B, C], strategy }))
        assert.strictEqual(error._tag, "AllSourcesFailed")
        const failed = error as AllSourcesFailed
        assert.strictEqual(failed.cid, cid)
        assert.deepStrictEqual(
          failed.sources.map((source) => source.gateway),
          [A, B, C]
        )
        assert.strictEqual(failed.sources[0]!.reason, "HTTP 429")
        assert.strictEqual(failed.sources[1]!.reason, "no answer (network error)")
        assert.match(failed.sources[2]!.reason, /^lied: /)
        assert.strictEqual(
          failed.message,
          `Every source of ${cid} failed: ${A} (HTTP 429); ${B} (no answer (network error)); ${C} (${failed.sources[2]!.reason})`
        )
      }).pipe(Effect.provide(layer))
    )
  }

  it.effect("raw blocks from sources: a liar's first block is caught, the stream comes from the next", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsA.lie(gateway, "flip-byte")
      const download = yield* Download.Download
      const chunks = yield* Stream.runCollect(download.stream(cid, { sources: [A, B], trustless: "raw" }))
      assert.deepStrictEqual(Buffer.concat(chunks), Buffer.from(content))
      assert.isTrue(log.some((r) => r.url.origin === A && r.url.searchParams.get("format") === "raw"))
      assert.isTrue(log.filter((r) => r.url.origin === B).length >= 4)
    }).pipe(Effect.provide(layer))
  )

  it.effect("the configuration's sources and strategy apply when a call names none; without them, one gateway", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsA.down(gateway)
      const config = LighthouseConfig.make({ downloads: { sources: [A, C], strategy: "fallback" } })
      const configured = yield* Download.make.pipe(Effect.provideService(LighthouseConfig.LighthouseConfig, config))
      const retrieved = yield* configured.retrieve(cid)
      assert.deepStrictEqual(retrieved.verification.sources, [
        { gateway: A, bytes: 0, dropped: "no answer (network error)" },
        { gateway: C, bytes: SIZE }
      ])
      log.length = 0
      const plain = yield* (yield* Download.Download).retrieve(cid)
      assert.deepStrictEqual(plain.verification, { verified: true })
      assert.deepStrictEqual(
        log.map((r) => r.url.origin),
        ["https://gateway.lighthouse.storage"]
      )
    }).pipe(Effect.provide(layer))
  )
})
