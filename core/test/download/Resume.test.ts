/**
 * `toFile` with `resume: true` against the mock network: a download interrupted at 90 % (a
 * source stalling past the stall time-out, on the `TestClock`) keeps its verified bytes in
 * `<path>.partial`; the next call checks them against the file's DAG and fetches only the rest
 * (counted on the mock gateways); bytes altered on disk are found and fetched again; without
 * `resume` nothing is kept.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Download from "../../src/Download.ts"
import type { AllSourcesFailed } from "../../src/Errors.ts"
import * as Upload from "../../src/Upload.ts"
import { makeVirtualTime } from "../support/network.ts"
import { alice, makeHarness } from "../upload/harness.ts"

const A = "https://gw-a.example"
const { network, server, log, layerWith } = makeHarness({ gateways: [A] })
// A body aborted half-way over msw's `fetch` trips an assertion inside undici; Node applications use node:http.
const layer = layerWith({}, "node:http")
const time = makeVirtualTime()
time.watch(server)
const faultsA = network.gateways[0]!.faults
const gateway = { host: "gateway" } as const

/** Ten 256 KiB leaves under one root. */
const LEAF = 256 * 1024
const SIZE = 10 * LEAF
const content = new Uint8Array(SIZE).map((_, i) => (i * 13 + (i >> 11)) & 0xff)

const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "resume-key" }).apiKey
  const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey })
  log.length = 0
  return entry.Hash
})

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "resume-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** Counts the body bytes the mock network answers while `effect` runs. */
const countingServed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    let served = 0
    const reading: Array<Promise<void>> = []
    const listener = ({ response }: { response: Response }) => {
      reading.push(
        response
          .clone()
          .arrayBuffer()
          .then((body) => {
            served += body.byteLength
          })
      )
    }
    server.events.on("response:mocked", listener)
    const result = yield* effect.pipe(
      Effect.ensuring(Effect.sync(() => server.events.removeListener("response:mocked", listener)))
    )
    yield* Effect.promise(() => Promise.all(reading))
    return { result, served }
  })

/** The CAR requests of gateway `base`, as `entity-bytes` (`-` for the whole file). */
const asked = (base: string) =>
  log
    .filter((request) => request.url.origin === base && request.url.searchParams.get("format") === "car")
    .map((request) => request.url.searchParams.get("entity-bytes") ?? "-")

describe("resumed downloads", () => {
  it.effect("interrupted at 90 %, the partial file is kept; resuming fetches at most 12 % again", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const target = nodePath.join(yield* tempDir, "file.bin")
      const download = yield* Download.Download
      // 90 % of the file and the CAR's framing: nine leaves arrive whole, the tenth is cut short.
      faultsA.stall(gateway, 9 * LEAF + 4096, { times: 1 })
      const options = { sources: [A], stallTimeout: 5000, resume: true }
      const failed = (yield* Effect.flip(time.settle(download.toFile(cid, target, options)))) as AllSourcesFailed
      assert.strictEqual(failed._tag, "AllSourcesFailed")
      const kept = yield* Effect.promise(() => fs.readFile(`${target}.partial`))
      assert.strictEqual(kept.length, 9 * LEAF)
      assert.deepStrictEqual(new Uint8Array(kept), content.subarray(0, 9 * LEAF))
      log.length = 0

      const { result, served } = yield* countingServed(download.toFile(cid, target, options))
      assert.deepStrictEqual(result, { verified: true, sources: [{ gateway: A, bytes: SIZE - 9 * LEAF }] })
      assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), content)
      assert.deepStrictEqual(asked(A), [`${9 * LEAF}:*`])
      assert.isAtLeast(served, SIZE - 9 * LEAF)
      assert.isAtMost(served, SIZE * 0.12)
      assert.isFalse(
        yield* Effect.promise(() =>
          fs.stat(`${target}.partial`).then(
            () => true,
            () => false
          )
        )
      )
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("bytes altered in the partial file are found: the download goes on from the leaf holding them", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const target = nodePath.join(yield* tempDir, "file.bin")
      const altered = content.slice(0, 9 * LEAF)
      altered[2 * LEAF + 1000] = 255 - content[2 * LEAF + 1000]!
      yield* Effect.promise(() => fs.writeFile(`${target}.partial`, altered))
      const report = yield* (yield* Download.Download).toFile(cid, target, { resume: true })
      assert.deepStrictEqual(report, { verified: true })
      assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), content)
      assert.deepStrictEqual(asked("https://gateway.lighthouse.storage"), [`${2 * LEAF}:*`])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a whole file already at the path is checked and nothing of it is fetched again", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const target = nodePath.join(yield* tempDir, "file.bin")
      yield* Effect.promise(() => fs.writeFile(target, content))
      const { result, served } = yield* countingServed((yield* Download.Download).toFile(cid, target, { resume: true }))
      assert.deepStrictEqual(result, { verified: true })
      assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), content)
      assert.isBelow(served, LEAF)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("without resume an interrupted download keeps nothing and the next starts over", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const dir = yield* tempDir
      const target = nodePath.join(dir, "file.bin")
      const download = yield* Download.Download
      faultsA.stall(gateway, 9 * LEAF + 4096, { times: 1 })
      const options = { sources: [A], stallTimeout: 5000 }
      yield* Effect.flip(time.settle(download.toFile(cid, target, options)))
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), [])
      log.length = 0
      yield* download.toFile(cid, target, options)
      assert.deepStrictEqual(asked(A), ["-"])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})
