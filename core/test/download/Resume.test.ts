/**
 * `toFile` with `resume: true` against the mock network: a download interrupted at 90 % (a
 * source stalling past the stall time-out, on the `TestClock`) keeps its verified bytes in
 * `<path>.partial`; the next call checks them against the file's DAG and fetches only the rest
 * (counted on the mock gateways); bytes altered on disk are found and fetched again; without
 * `resume` nothing is kept.
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Download from "../../src/Download.ts"
import type { AllSourcesFailed } from "../../src/Errors.ts"
import * as Upload from "../../src/Upload.ts"
import { alice } from "../upload/harness.ts"
import { A, gateway, LEAF, makeResumeHarness, SIZE } from "./resumeHarness.ts"

const { network, log, layer, time, faultsA, tempDir, asked, countingGatewayBytes } = makeResumeHarness("resume-test-")

const content = new Uint8Array(SIZE).map((_, i) => (i * 13 + (i >> 11)) & 0xff)

const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "resume-key" }).apiKey
  const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey })
  log.length = 0
  return entry.Hash
})

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

      const { result, served } = yield* countingGatewayBytes(download.toFile(cid, target, options))
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
      const { result, served } = yield* countingGatewayBytes(
        (yield* Download.Download).toFile(cid, target, { resume: true })
      )
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
