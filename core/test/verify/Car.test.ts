/**
 * The streaming CAR verifier: what a trustless gateway answers (`order=dfs`, with or without
 * duplicates, whole files, files inside folders and HAMT-sharded folders, byte ranges) comes out
 * as the file's bytes; any flipped byte, dropped, added or foreign block, cut answer or other root
 * fails with the matching `ContentVerificationFailed`, and never gives out other bytes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as dagPb from "@ipld/dag-pb"
import { Effect, Exit, Stream } from "effect"
import * as fc from "fast-check"
import { varint } from "multiformats"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { identity } from "multiformats/hashes/identity"
import { sha256 } from "multiformats/hashes/sha2"
import type { ContentVerificationFailed, VerificationProblem } from "../../src/errors/Verification.ts"
import { verifyCar } from "../../src/verify/Car.ts"
import type { Target } from "../../src/verify/Walk.ts"
import { type Block, encodeCar, type ImportShape, importDag, trustlessBlocks } from "./fixtures.ts"

/** `bytes` as a stream cut every `size` bytes. */
const chunked = (bytes: Uint8Array, size: number) =>
  Stream.fromIterable(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
  )

type Outcome = { readonly ok: Uint8Array } | { readonly failed: ContentVerificationFailed }

const verify = (car: Uint8Array, target: Target, chunkSize = 1000): Promise<Outcome> =>
  Effect.runPromise(
    Stream.mkUint8Array(verifyCar(chunked(car, chunkSize), target)).pipe(
      Effect.map((ok): Outcome => ({ ok })),
      Effect.catchTag("ContentVerificationFailed", (failed) => Effect.succeed<Outcome>({ failed }))
    )
  )

const problemOf = (outcome: Outcome): VerificationProblem | "none" =>
  "failed" in outcome ? outcome.failed.problem : "none"

const shapes = fc.record<ImportShape>({
  cidVersion: fc.constantFrom(0, 1),
  rawLeaves: fc.boolean(),
  chunkSize: fc.integer({ min: 1, max: 600 }),
  maxChildren: fc.integer({ min: 2, max: 6 })
})

const content = fc.uint8Array({ minLength: 0, maxLength: 6000 })

/** Random content in a random DAG shape, its trustless answer, and a chunking of the CAR. */
const answers = fc
  .tuple(content, shapes, fc.integer({ min: 1, max: 5000 }))
  .map(([bytes, shape, cut]) => ({ bytes, shape, cut }))

const build = async (bytes: Uint8Array, shape: ImportShape) => {
  const dag = await importDag(bytes, shape)
  return { dag, blocks: trustlessBlocks(dag) }
}

const property = (arbitrary: fc.Arbitrary<unknown>, check: (value: never) => Promise<boolean>, numRuns = 60) =>
  Effect.promise(() =>
    fc.assert(fc.asyncProperty(arbitrary, check as (value: unknown) => Promise<boolean>), { numRuns })
  )

const blockOf = async (bytes: Uint8Array): Promise<Block> => ({
  cid: CID.createV1(raw.code, await sha256.digest(bytes)),
  bytes
})

const sameBytes = (outcome: Outcome, expected: Uint8Array) =>
  "ok" in outcome && Buffer.from(outcome.ok).equals(Buffer.from(expected))

describe("a faithful answer", () => {
  it.effect("gives the file's bytes, whatever the DAG's shape and the stream's chunking", () =>
    property(answers, async ({ bytes, shape, cut }: { bytes: Uint8Array; shape: ImportShape; cut: number }) => {
      const { dag, blocks } = await build(bytes, shape)
      return sameBytes(await verify(await encodeCar([dag.root], blocks), { root: dag.root }, cut), bytes)
    })
  )

  it.effect("gives any byte range from only the blocks that hold it", () =>
    property(
      fc.tuple(answers, fc.nat(), fc.nat()),
      async ([{ bytes, shape }, a, b]: [{ bytes: Uint8Array; shape: ImportShape }, number, number]) => {
        const dag = await importDag(bytes, shape)
        const offset = bytes.length === 0 ? 0 : a % (bytes.length + 1)
        const length = 1 + (b % Math.max(1, bytes.length - offset))
        const blocks = trustlessBlocks(dag, { from: offset, to: Math.min(bytes.length, offset + length) })
        const outcome = await verify(await encodeCar([dag.root], blocks), { root: dag.root, range: { offset, length } })
        return sameBytes(outcome, bytes.subarray(offset, offset + length))
      }
    )
  )

  it.effect("reads a file by its path in a folder, plain or HAMT-sharded", () =>
    Effect.gen(function* () {
      const files = Array.from({ length: 40 }, (_, i) => ({
        path: `site/dir${i % 3}/file-${i}.txt`,
        bytes: new TextEncoder().encode(`file ${i} `.repeat(i * 50))
      }))
      // Plain folders; HAMTs of fan-out 256 (one level here); HAMTs of fan-out 4 (sub-shards on the way).
      for (const [shardAt, fanoutBits] of [
        [undefined, undefined],
        [200, 8],
        [100, 2]
      ] as const) {
        const dag = yield* Effect.promise(() =>
          importDag(files, { shardAt, fanoutBits, chunkSize: 300, maxChildren: 4 })
        )
        for (const i of [0, 17, 39]) {
          // The root is the folder "site".
          const path = [`dir${i % 3}`, `file-${i}.txt`]
          const blocks = trustlessBlocks(dag, { path })
          // File 0 is empty (one block): past the folders, fan-out 4 puts sub-shards on its way.
          if (i === 0 && fanoutBits === 2) assert.isAtLeast(blocks.length, 4)
          const car = yield* Effect.promise(() => encodeCar([dag.root], blocks))
          const outcome = yield* Effect.promise(() => verify(car, { root: dag.root, path }))
          assert.isTrue(
            sameBytes(outcome, files[i]!.bytes),
            `file ${i}, shardAt ${shardAt}, fan-out bits ${fanoutBits}`
          )
        }
      }
    })
  )

  it.effect("a block whose CID is longer than 128 bytes (inlined by identity) is read from its section", () =>
    Effect.gen(function* () {
      const bytes = Uint8Array.from({ length: 150 }, (_, i) => i)
      const cid = CID.createV1(raw.code, identity.digest(bytes))
      assert.isAbove(cid.bytes.length, 128)
      const car = yield* Effect.promise(() => encodeCar([cid], [{ cid, bytes }]))
      for (const cut of [7, 64, 1000]) {
        assert.isTrue(sameBytes(yield* Effect.promise(() => verify(car, { root: cid }, cut)), bytes), `cut ${cut}`)
      }
    })
  )

  it.effect("a gateway that sends a repeated block once (dups=n) is served from the recent blocks", () =>
    Effect.gen(function* () {
      const zeros = new Uint8Array(20_000)
      const dag = yield* Effect.promise(() => importDag(zeros, { chunkSize: 1000, maxChildren: 4 }))
      const blocks = trustlessBlocks(dag, { dups: false })
      assert.isBelow(blocks.length, trustlessBlocks(dag).length)
      const car = yield* Effect.promise(() => encodeCar([dag.root], blocks))
      assert.isTrue(sameBytes(yield* Effect.promise(() => verify(car, { root: dag.root })), zeros))
    })
  )
})

describe("an answer that lies", () => {
  it.effect("a flipped byte in any block: block-hash-mismatch, naming the block", () =>
    property(
      fc.tuple(answers, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 })),
      async ([{ bytes, shape }, which, at, flip]: [
        { bytes: Uint8Array; shape: ImportShape },
        number,
        number,
        number
      ]) => {
        const { dag, blocks } = await build(bytes, shape)
        const index = which % blocks.length
        const target = blocks[index]!
        if (target.bytes.length === 0) return true
        const flipped = target.bytes.slice()
        flipped[at % flipped.length]! ^= flip
        const lying = blocks.map((block) => (block.cid.equals(target.cid) ? { cid: block.cid, bytes: flipped } : block))
        const outcome = await verify(await encodeCar([dag.root], lying), { root: dag.root })
        return (
          "failed" in outcome &&
          outcome.failed.problem === "block-hash-mismatch" &&
          outcome.failed.block === target.cid.toString() &&
          outcome.failed.cid === dag.root.toString()
        )
      }
    )
  )

  it.effect("a flipped byte anywhere in the CAR never gives other bytes", () =>
    property(
      fc.tuple(answers, fc.nat(), fc.integer({ min: 1, max: 255 })),
      async ([{ bytes, shape, cut }, at, flip]: [
        { bytes: Uint8Array; shape: ImportShape; cut: number },
        number,
        number
      ]) => {
        const { dag, blocks } = await build(bytes, shape)
        const car = await encodeCar([dag.root], blocks)
        car[at % car.length]! ^= flip
        const outcome = await verify(car, { root: dag.root }, cut)
        return "failed" in outcome || sameBytes(outcome, bytes)
      }
    )
  )

  it.effect("a dropped block: missing-block, or the block after it unexpected when it had children", () =>
    property(
      fc.tuple(answers, fc.nat()),
      async ([{ bytes, shape }, which]: [{ bytes: Uint8Array; shape: ImportShape }, number]) => {
        const { dag, blocks } = await build(bytes, shape)
        const index = which % blocks.length
        const dropped = blocks[index]!
        const outcome = await verify(await encodeCar([dag.root], blocks.toSpliced(index, 1)), { root: dag.root })
        // A copy of it further on stands in for it (identical leaves, one byte each): about a block sent once.
        fc.pre(!blocks.some((block, i) => i > index && block.cid.equals(dropped.cid)))
        // A block seen before is served again from memory: the answer is then still whole.
        if (blocks.some((block, i) => i < index && block.cid.equals(dropped.cid))) return sameBytes(outcome, bytes)
        if (!("failed" in outcome)) return false
        // Without the dropped node its children are strangers: the first of them is named.
        const parent = dropped.cid.code === dagPb.code && dagPb.decode(dropped.bytes).Links.length > 0
        return parent
          ? outcome.failed.problem === "unexpected-block" && outcome.failed.block === blocks[index + 1]!.cid.toString()
          : outcome.failed.problem === "missing-block" && outcome.failed.block === dropped.cid.toString()
      }
    )
  )

  it.effect("an extra block anywhere: unexpected-block, or extra-block after the last block the walk reads", () =>
    property(
      fc.tuple(answers, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 100 })),
      async ([{ bytes, shape }, where, extra]: [{ bytes: Uint8Array; shape: ImportShape }, number, Uint8Array]) => {
        const { dag, blocks } = await build(bytes, shape)
        const index = where % (blocks.length + 1)
        const stranger = await blockOf(extra)
        if (blocks.some((block) => block.cid.equals(stranger.cid))) return true
        const outcome = await verify(await encodeCar([dag.root], blocks.toSpliced(index, 0, stranger)), {
          root: dag.root
        })
        // Blocks after it that all came before (a repeated leaf) are served from the cache: the
        // walk then ends before them, and the stranger is left over.
        const seen = blocks.slice(0, index)
        const rest = blocks.slice(index)
        const expected = rest.every((block) => seen.some((before) => before.cid.equals(block.cid)))
          ? "extra-block"
          : "unexpected-block"
        return (
          problemOf(outcome) === expected && "failed" in outcome && outcome.failed.block === stranger.cid.toString()
        )
      }
    )
  )

  it.effect("a cut answer: truncated inside a block, missing-block at a block's boundary", () =>
    property(
      fc.tuple(answers, fc.nat()),
      async ([{ bytes, shape, cut }, where]: [{ bytes: Uint8Array; shape: ImportShape; cut: number }, number]) => {
        const { dag, blocks } = await build(bytes, shape)
        const car = await encodeCar([dag.root], blocks)
        // Where each section ends: a length prefix, the CID, the block.
        const boundaries = new Set<number>()
        let offset = (await encodeCar([dag.root], [])).length
        boundaries.add(offset)
        for (const block of blocks) {
          const length = block.cid.bytes.length + block.bytes.length
          offset += varint.encodingLength(length) + length
          boundaries.add(offset)
        }
        const at = where % car.length
        const outcome = await verify(car.subarray(0, at), { root: dag.root }, cut)
        return problemOf(outcome) === (boundaries.has(at) ? "missing-block" : "truncated")
      }
    )
  )

  it.effect(
    "another file's CAR, under its own root or ours: unexpected-block (the header's roots are not trusted)",
    () =>
      Effect.gen(function* () {
        const mine = yield* Effect.promise(() =>
          build(new TextEncoder().encode("mine ".repeat(500)), { chunkSize: 100 })
        )
        const theirs = yield* Effect.promise(() =>
          build(new TextEncoder().encode("theirs ".repeat(500)), { chunkSize: 100 })
        )
        const foreign = yield* Effect.promise(() => encodeCar([theirs.dag.root], theirs.blocks))
        const wrongRoot = yield* Effect.promise(() => verify(foreign, { root: mine.dag.root }))
        assert.strictEqual(problemOf(wrongRoot), "unexpected-block")
        assert.include((wrongRoot as { failed: ContentVerificationFailed }).failed.message, theirs.dag.root.toString())
        const swapped = yield* Effect.promise(() => encodeCar([mine.dag.root], theirs.blocks))
        const outcome = yield* Effect.promise(() => verify(swapped, { root: mine.dag.root }))
        assert.strictEqual(problemOf(outcome), "unexpected-block")
        assert.strictEqual(
          (outcome as { failed: ContentVerificationFailed }).failed.message,
          `Content ${mine.dag.root} failed verification (unexpected-block): block ${theirs.dag.root} came where ${mine.dag.root} was needed`
        )
      })
  )

  it.effect("a header that is not a CARv1 header: malformed-block, before any block is read", () =>
    Effect.gen(function* () {
      const block = yield* Effect.promise(() => blockOf(new Uint8Array([1, 2, 3])))
      const car = yield* Effect.promise(() => encodeCar([block.cid], [block]))
      const [length, prefix] = varint.decode(car)
      // The header map with its version 1 turned into 2: still DAG-CBOR, not a CARv1 header.
      const header = car.slice(0, prefix + length)
      const version = header.lastIndexOf(0x01)
      header[version] = 0x02
      const other = new Uint8Array([...header, ...car.subarray(prefix + length)])
      const outcome = yield* Effect.promise(() => verify(other, { root: block.cid }))
      assert.strictEqual(problemOf(outcome), "malformed-block")
      if ("failed" in outcome) assert.include(outcome.failed.message, "not a CARv1 header")
      assert.strictEqual(problemOf(yield* Effect.promise(() => verify(car, { root: block.cid }))), "none")
    })
  )

  it.effect("a section larger than 2 MiB is refused before it is read", () =>
    Effect.gen(function* () {
      const big = new Uint8Array(2 * 1024 * 1024 + 200)
      const block = yield* Effect.promise(() => blockOf(big))
      const car = yield* Effect.promise(() => encodeCar([block.cid], [block]))
      let pulled = 0
      const source = chunked(car, 64 * 1024).pipe(Stream.tap((chunk) => Effect.sync(() => (pulled += chunk.length))))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(Stream.runDrain(verifyCar(source, { root: block.cid })))))
      const failed = yield* Stream.runDrain(verifyCar(chunked(car, 64 * 1024), { root: block.cid })).pipe(Effect.flip)
      assert.strictEqual(failed.problem, "block-too-large")
      assert.isBelow(pulled, 200 * 1024)
    })
  )

  it.effect("a folder where a file was asked, and a path that is not there", () =>
    Effect.gen(function* () {
      const files = [{ path: "dir/a.txt", bytes: new TextEncoder().encode("a") }]
      const dag = yield* Effect.promise(() => importDag(files))
      const onlyRoot = yield* Effect.promise(() => encodeCar([dag.root], [{ cid: dag.root, bytes: dag.get(dag.root) }]))
      const folder = yield* Effect.promise(() => verify(onlyRoot, { root: dag.root }))
      assert.strictEqual(problemOf(folder), "not-a-file")
      const absent = yield* Effect.promise(() => verify(onlyRoot, { root: dag.root, path: ["a.txt"] }))
      assert.strictEqual(problemOf(absent), "missing-block")
      const wrongName = yield* Effect.promise(() => verify(onlyRoot, { root: dag.root, path: ["b.txt"] }))
      assert.strictEqual(problemOf(wrongName), "path-not-found")
      assert.strictEqual(
        (wrongName as { failed: ContentVerificationFailed }).failed.message,
        `Content ${dag.root} failed verification (path-not-found): no "b.txt" in ${dag.root}`
      )
    })
  )
})
