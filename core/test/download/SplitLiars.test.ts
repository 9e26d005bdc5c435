/**
 * One liar among honest sources costs only the liar (through the public API): a source that
 * appends a block to every CAR had its pieces' bytes all delivered, so those pieces are done and
 * no empty range is ever asked of the others; a 400 to a ranged request is an HTTP failure, not
 * "no trustless answer". Property: any one lying source among honest ones (which, how it lies, every
 * strategy, seeded), the file arrives intact and no honest source is dropped.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Download, Upload } from "lighthouse-effect"
import { GatewayLies } from "lighthouse-effect/mocks"
import { alice, makeHarness } from "../upload/harness.ts"

const A = "https://gw-a.example"
const B = "https://gw-b.example"
const C = "https://gw-c.example"
const sources = [A, B, C]
const { network, log, layer } = makeHarness({ gateways: sources })
const faultsOf = network.gateways.map((gateway) => gateway.faults)
const gateway = { host: "gateway" } as const

const KiB = 1024
const LEAF = 256 * KiB
/** Nine full leaves and a short tenth one. */
const SIZE = 9 * LEAF + 100 * KiB
const content = new Uint8Array(SIZE).map((_, i) => (i * 151 + (i >> 9)) & 0xff)

/** No faults armed, no requests logged. */
const reset = Effect.sync(() => {
  for (const faults of faultsOf) faults.clear()
  log.length = 0
})

/** The file's CID (the network starts afresh for every test). */
const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "liars-key" }).apiKey
  const cid = (yield* (yield* Upload.Upload).buffer(content, { apiKey })).Hash
  yield* reset
  return cid
})

/** The `entity-bytes` of every CAR request, per gateway. */
const ranges = () =>
  log
    .filter((request) => request.url.searchParams.get("format") === "car")
    .map((request) => ({ origin: request.url.origin, range: request.url.searchParams.get("entity-bytes") ?? "-" }))

const isEmptyRange = (range: string) => {
  const [from, to] = range.split(":")
  return to !== "*" && Number(to) < Number(from)
}

describe("split with one liar", () => {
  it.effect("a source appending a block to every CAR: dropped alone, no empty range asked, the file intact", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsOf[1]!.lie(gateway, "extra-block")
      const options = { sources, strategy: "split", rangeSize: LEAF, requestsPerSource: 1, window: 4 * LEAF } as const
      const retrieved = yield* (yield* Download.Download).retrieve(cid, options)
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b, c] = retrieved.verification.sources!
      assert.match(b!.dropped!, /^lied: /)
      assert.isUndefined(a!.dropped)
      assert.isUndefined(c!.dropped)
      assert.strictEqual(a!.bytes + b!.bytes + c!.bytes, SIZE)
      assert.deepStrictEqual(
        ranges().filter(({ range }) => isEmptyRange(range)),
        []
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("a 400 to a ranged request drops the source as HTTP 400, not as lacking trustless answers", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsOf[2]!.status({ host: "gateway", path: /^\/ipfs\// }, 400)
      const options = { sources, strategy: "split", rangeSize: LEAF, requestsPerSource: 1, window: 4 * LEAF } as const
      const retrieved = yield* (yield* Download.Download).retrieve(cid, options)
      assert.deepStrictEqual(retrieved.bytes, content)
      const [a, b, c] = retrieved.verification.sources!
      assert.deepStrictEqual(c, { gateway: C, bytes: 0, dropped: "HTTP 400" })
      assert.isUndefined(a!.dropped)
      assert.isUndefined(b!.dropped)
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "property: any one lying source among honest ones, every strategy: the file intact, only the liar dropped",
    () =>
      Effect.gen(function* () {
        const cid = yield* uploaded
        const download = yield* Download.Download
        const run = (liar: number, lie: (typeof GatewayLies)[number], strategy: "fallback" | "race" | "split") =>
          Effect.gen(function* () {
            yield* reset
            faultsOf[liar]!.lie(gateway, lie)
            // The split's shape is an option of `split` alone (refused with the other strategies).
            const shape = strategy === "split" ? { rangeSize: LEAF, requestsPerSource: 1, window: 4 * LEAF } : {}
            const options = { sources, strategy, ...shape }
            const retrieved = yield* download.retrieve(cid, options)
            assert.deepStrictEqual(retrieved.bytes, content)
            const report = retrieved.verification.sources!
            report.forEach((source, index) => {
              if (index !== liar) assert.isUndefined(source.dropped, `${source.gateway} is honest`)
            })
            // `split` asks every source; `fallback` the first one first: there the liar is always caught.
            const liarAsked = strategy === "split" || (strategy === "fallback" && liar === 0)
            if (liarAsked) assert.match(report[liar]!.dropped ?? "", /^(lied|cut short): /)
            assert.deepStrictEqual(
              ranges().filter(({ range }) => isEmptyRange(range)),
              []
            )
          })
        const property = fc.asyncProperty(
          fc.integer({ min: 0, max: sources.length - 1 }),
          fc.constantFrom(...GatewayLies),
          fc.constantFrom("fallback", "race", "split"),
          (liar, lie, strategy) => Effect.runPromise(run(liar, lie, strategy))
        )
        yield* Effect.promise(() => fc.assert(property, { seed: 36, numRuns: 40 }))
      }).pipe(Effect.provide(layer))
  )
})
