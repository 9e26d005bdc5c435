/**
 * The client's CID calculator against kubo's published CIDs (hello world, the empty file, 1 MiB
 * of zeros, a pseudo-random megabyte with CID v1) and against the mock upload node's importer for
 * folders, wrapping and random files, fed in chunks of any size.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import { addAll, ContentStore } from "lighthouse-effect/mocks"
import { lcgMegabyte } from "lighthouse-effect/mocks/testing"
import { type AddSettings, calculator, cidsOf } from "../../src/verify/UnixfsCids.ts"

const hello = new TextEncoder().encode("hello world\n")
const MiB = 1024 * 1024

/** `bytes` as a stream of `size`-byte chunks. */
const chunks = (bytes: Uint8Array, size = 64 * 1024) =>
  Stream.fromIterable(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
  )

const rootOf = (bytes: Uint8Array, settings: AddSettings, chunkSize?: number) =>
  cidsOf([{ path: "file", content: chunks(bytes, chunkSize) }], settings).pipe(
    Effect.map((entries) => entries.at(-1)!.cid.toString())
  )

/** What the mock node's importer answers for the same files. */
const nodeEntries = async (files: ReadonlyArray<{ path: string; bytes: Uint8Array }>, settings: AddSettings) => {
  const { rawLeaves, wrapWithDirectory } = settings
  const mockSettings = {
    cidVersion: settings.cidVersion,
    ...(rawLeaves === undefined ? {} : { rawLeaves }),
    ...(wrapWithDirectory === undefined ? {} : { wrapWithDirectory })
  }
  const out: Array<{ path: string; cid: string; size: bigint }> = []
  const candidates = files.map(({ path, bytes }) => ({ path, content: [bytes] }))
  for await (const entry of addAll(candidates, new ContentStore().staging(), mockSettings)) {
    out.push({ path: entry.path, cid: entry.cid.toString(), size: entry.size })
  }
  return out
}

describe("kubo's CIDs", () => {
  it.effect("hello world, CID v0 and v1", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* rootOf(hello, { cidVersion: 0 }), "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
      assert.strictEqual(
        yield* rootOf(hello, { cidVersion: 1 }),
        "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
      )
    })
  )

  it.effect("the empty file: no chunk at all, or an empty one", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* rootOf(new Uint8Array(), { cidVersion: 0 }),
        "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"
      )
      const [entry] = yield* cidsOf([{ path: "empty", content: Stream.make(new Uint8Array()) }], { cidVersion: 0 })
      assert.strictEqual(entry?.cid.toString(), "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH")
    })
  )

  it.effect("1 MiB of zeros in chunks of 7 KiB to 1 MiB", () =>
    Effect.gen(function* () {
      for (const size of [7 * 1024 + 3, 64 * 1024, MiB]) {
        assert.strictEqual(
          yield* rootOf(new Uint8Array(MiB), { cidVersion: 0 }, size),
          "QmVkbauSDEaMP4Tkq6Epm9uW75mWm136n81YH8fGtfwdHU"
        )
      }
    })
  )

  it.effect("a pseudo-random megabyte with CID v1 (raw leaves)", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* rootOf(lcgMegabyte(), { cidVersion: 1 }),
        "bafybeiczwqoyribvfkrxcuhcjnwva43kuvcrl2h57ergkeszwguynobh5a"
      )
    })
  )

  it.effect("the empty directory", () =>
    Effect.gen(function* () {
      const entries = yield* Effect.scoped(
        Effect.gen(function* () {
          const cids = yield* calculator({ cidVersion: 0 })
          yield* cids.directory("dir")
          return yield* cids.entries
        })
      )
      assert.deepStrictEqual(
        entries.map((entry) => [entry.path, entry.cid.toString()]),
        [["dir", "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn"]]
      )
    })
  )
})

describe("the upload node's CIDs", () => {
  it.effect("a folder: every file, every directory and the root, wrapped or not", () =>
    Effect.gen(function* () {
      const files = [
        { path: "site/index.html", bytes: hello },
        { path: "site/img/a.bin", bytes: lcgMegabyte() },
        { path: "site/img/b.bin", bytes: new Uint8Array(300 * 1024).fill(7) },
        { path: "site/empty.txt", bytes: new Uint8Array() }
      ]
      for (const settings of [
        { cidVersion: 0 },
        { cidVersion: 1 },
        { cidVersion: 1, rawLeaves: false },
        { cidVersion: 1, wrapWithDirectory: true }
      ] satisfies Array<AddSettings>) {
        const computed = yield* cidsOf(
          files.map(({ path, bytes }) => ({ path, content: chunks(bytes, 10_000) })),
          settings
        )
        const expected = yield* Effect.promise(() => nodeEntries(files, settings))
        assert.deepStrictEqual(
          computed.map((entry) => ({ path: entry.path, cid: entry.cid.toString(), size: entry.size })),
          expected
        )
      }
    })
  )

  it.effect("the file stream passes through unchanged", () =>
    Effect.gen(function* () {
      const bytes = lcgMegabyte()
      const [passed, entries] = yield* Effect.scoped(
        Effect.gen(function* () {
          const cids = yield* calculator({ cidVersion: 1 })
          const passed = yield* Stream.mkUint8Array(cids.file("f", chunks(bytes, 33_333)))
          return [passed, yield* cids.entries] as const
        })
      )
      assert.deepStrictEqual(passed, bytes)
      assert.strictEqual(entries.at(-1)?.cid.toString(), "bafybeiczwqoyribvfkrxcuhcjnwva43kuvcrl2h57ergkeszwguynobh5a")
    })
  )

  it.effect("random files and chunkings give the node's CID", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 400 * 1024, size: "max" }),
          fc.integer({ min: 500, max: 200_000 }),
          fc.constantFrom<AddSettings>({ cidVersion: 0 }, { cidVersion: 1 }, { cidVersion: 1, rawLeaves: false }),
          async (bytes, chunkSize, settings) => {
            const computed = await Effect.runPromise(rootOf(bytes, settings, chunkSize))
            const [expected] = await nodeEntries([{ path: "file", bytes }], settings)
            return computed === expected?.cid
          }
        ),
        { numRuns: 12 }
      )
    )
  )

  it.effect("a failing file stream fails the upload and stops the importer", () =>
    Effect.gen(function* () {
      const failed = yield* cidsOf(
        [{ path: "f", content: Stream.concat(chunks(hello), Stream.fail("disk error" as const)) }],
        { cidVersion: 1 }
      ).pipe(Effect.flip)
      assert.strictEqual(failed, "disk error")
    })
  )
})
