/**
 * The streaming UnixFS builder against ipfs-unixfs-importer, the implementation kubo's layout is
 * taken from: for random files around the leaf (256 KiB) and fan-out (174 links) boundaries, in
 * random chunkings, with every setting an upload uses; for deep trees with small leaves and
 * fan-outs; and for folders, flat and HAMT-sharded, wrapped or not. Every entry must match: path,
 * CID and cumulative size.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import { type ImportCandidate, type ImporterOptions, importer } from "ipfs-unixfs-importer"
import { fixedSize } from "ipfs-unixfs-importer/chunker"
import { balanced } from "ipfs-unixfs-importer/layout"
import { pseudoRandomBytes } from "lighthouse-effect/mocks/testing"
import { sha256 } from "multiformats/hashes/sha2"
import { kuboLayout, type Layout, profileLayout, type ShardStrategy } from "../../src/unixfs/Layout.ts"
import { type AddSettings, calculatorWith, cidsOf } from "../../src/verify/UnixfsCids.ts"

/**
 * SHA-256 now (as on Node) or as a promise (as with Web Crypto in browsers): the builder must
 * give the same CIDs either way.
 */
const hashings = fc.constantFrom<Layout["sha256"]>(
  (block) => sha256.digest(block),
  async (block) => sha256.digest(block)
)

const KiB = 1024
const LEAF = 256 * KiB

/** A file or an empty folder to import. */
type Candidate = { readonly path: string; readonly bytes?: Uint8Array | undefined }

interface Entry {
  readonly path: string
  readonly cid: string
  readonly size: bigint
}

/** `bytes` as a stream of chunks of `size` bytes. */
const chunked = (bytes: Uint8Array, size: number) =>
  Stream.fromIterable(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
  )

/** The importer's entries for `candidates` with `options`. */
const imported = async (candidates: ReadonlyArray<Candidate>, options: ImporterOptions): Promise<Array<Entry>> => {
  const source: Array<ImportCandidate> = candidates.map(({ path, bytes }) =>
    bytes === undefined ? { path } : { path, content: [bytes] }
  )
  const entries: Array<Entry> = []
  for await (const entry of importer(source, { put: (cid) => cid }, options)) {
    entries.push({ path: entry.path ?? "", cid: entry.cid.toString(), size: entry.size })
  }
  return entries
}

/** The builder's entries for `candidates` laid out with `layout`, files fed in `chunkSize` chunks. */
const built = (candidates: ReadonlyArray<Candidate>, layout: Layout, chunkSize: number) =>
  Effect.gen(function* () {
    const cids = calculatorWith(layout)
    for (const { path, bytes } of candidates) {
      if (bytes === undefined) yield* cids.directory(path)
      else yield* Stream.runDrain(cids.file(path, chunked(bytes, chunkSize)))
    }
    const entries = yield* cids.entries
    return entries.map(({ path, cid, size }): Entry => ({ path, cid: cid.toString(), size }))
  })

/** The importer options that lay out as `layout` does. */
const importerLayout = (layout: Layout): ImporterOptions => ({
  cidVersion: layout.cidVersion,
  rawLeaves: layout.rawLeaves,
  wrapWithDirectory: layout.wrapWithDirectory,
  chunker: fixedSize({ chunkSize: layout.chunkSize }),
  layout: balanced({ maxChildrenPerNode: layout.maxChildren }),
  shardSplitThresholdBytes: layout.shardThreshold,
  shardSplitStrategy: layout.shardStrategy ?? "links-bytes",
  fieldOrder: "links-first",
  fileImportConcurrency: 1
})

/** Every setting an upload sends the node. */
const settings = fc.constantFrom<AddSettings>(
  { cidVersion: 0 },
  { cidVersion: 1 },
  { cidVersion: 1, rawLeaves: false },
  { cidVersion: 0, rawLeaves: true }
)

/** The importer's own options for kubo's `ipfs add` with `setting` (its `unixfs-v0-2015` profile). */
const kuboProfile = (setting: AddSettings): ImporterOptions => ({
  profile: "unixfs-v0-2015",
  cidVersion: setting.cidVersion,
  rawLeaves: setting.rawLeaves ?? setting.cidVersion === 1,
  wrapWithDirectory: setting.wrapWithDirectory ?? false,
  fileImportConcurrency: 1
})

/** Asserts the builder laying out with `layout` and the importer with `options` agree on `candidates`. */
const agree = async (
  candidates: ReadonlyArray<Candidate>,
  layout: Layout,
  chunkSize: number,
  options: ImporterOptions = importerLayout(layout)
) => {
  const expected = await imported(candidates, options)
  assert.deepStrictEqual(await Effect.runPromise(built(candidates, layout, chunkSize)), expected)
}

describe("files with kubo's layout", () => {
  it.effect("sizes around the leaf and the 174-link boundaries, in any chunking", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(0, 1, 2, 173, 174, 175),
          fc.integer({ min: -2, max: 2 }),
          fc.constantFrom(1000, 64 * KiB, LEAF, LEAF + 1, 3 * LEAF - 7),
          settings,
          hashings,
          fc.integer(),
          async (leaves, offset, chunkSize, setting, hashing, seed) => {
            const bytes = pseudoRandomBytes(Math.max(0, leaves * LEAF + offset), seed)
            const layout = { ...kuboLayout(setting), sha256: hashing }
            await agree([{ path: "file", bytes }], layout, chunkSize, kuboProfile(setting))
          }
        ),
        { numRuns: 14 }
      )
    )
  )

  it.effect("the settings an upload sends give the importer's CIDs through cidsOf", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 3 * LEAF }), settings, async (length, setting) => {
          const bytes = pseudoRandomBytes(length, length)
          const [entry] = await Effect.runPromise(cidsOf([{ path: "f", content: chunked(bytes, 50_000) }], setting))
          const [expected] = await imported([{ path: "f", bytes }], kuboProfile(setting))
          assert.strictEqual(entry?.cid.toString(), expected?.cid)
          assert.strictEqual(entry?.size, expected?.size)
        }),
        { numRuns: 10 }
      )
    )
  )
})

/** A layout with small leaves and fan-outs, so small files make deep trees. */
const smallLayout: fc.Arbitrary<Layout> = fc.record({
  sha256: hashings,
  cidVersion: fc.constantFrom<0 | 1>(0, 1),
  rawLeaves: fc.boolean(),
  chunkSize: fc.integer({ min: 1, max: 64 }),
  maxChildren: fc.integer({ min: 2, max: 6 }),
  shardThreshold: fc.integer({ min: 0, max: 4000 }),
  shardStrategy: fc.constantFrom<ShardStrategy>("links-bytes", "block-bytes"),
  wrapWithDirectory: fc.boolean()
})

describe("deep files", () => {
  it.effect("every size up to four levels of small nodes", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(smallLayout, fc.nat(), fc.integer({ min: 1, max: 100 }), async (layout, seed, chunkSize) => {
          const length = seed % (layout.chunkSize * layout.maxChildren ** 4 + 2)
          await agree([{ path: "deep", bytes: pseudoRandomBytes(length, seed) }], layout, chunkSize)
        }),
        { numRuns: 60 }
      )
    )
  )
})

/** A path of one to three components from a few names, so entries share folders and collide. */
const path = fc
  .tuple(
    fc.array(fc.constantFrom("a", "b", "c", "ü", "index.html", "."), { minLength: 1, maxLength: 3 }),
    fc.constantFrom("", "./")
  )
  .map(([components, prefix]) => prefix + components.join("/"))
  .filter((path) => path.split("/").some((component) => component !== "." && component !== ""))

/** Files (small, some empty) and empty folders. */
const candidate: fc.Arbitrary<Candidate> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ path, bytes: fc.uint8Array({ maxLength: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ path }) }
)

/** `count` files in `folder` (some in a sub-folder each), enough names for a HAMT's sub-shards. */
const crowdedFolder = (folder: string, count: number, seed: number): Array<Candidate> =>
  Array.from({ length: count }, (_, i) => ({
    path: i % 7 === 0 ? `${folder}/sub${i}/inner` : `${folder}/entry-${seed}-${i}`,
    bytes: pseudoRandomBytes(i % 5, seed + i)
  }))

describe("folders", () => {
  it.effect("random trees of files and empty folders, flat or sharded, wrapped or not", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          smallLayout,
          fc.array(candidate, { minLength: 1, maxLength: 12 }),
          fc.integer({ min: 1, max: 64 }),
          async (layout, candidates, chunkSize) => agree(candidates, layout, chunkSize)
        ),
        { numRuns: 150 }
      )
    )
  )

  it.effect("the importer's quirks: a folder in a file's place keeps its mode; a HAMT's stale flat copy", () =>
    Effect.promise(async () => {
      const layout: Layout = { ...kuboLayout({ cidVersion: 0 }), chunkSize: 1, maxChildren: 2, shardThreshold: 0 }
      const empty = new Uint8Array()
      // `c` is a file, then a folder: the folder is written with the file's mode (0644).
      await agree(
        [
          { path: "c", bytes: empty },
          { path: "c/a", bytes: empty }
        ],
        layout,
        1
      )
      // The root becomes a HAMT after `b` was made in it; an entry under `b` converts the flat
      // root `b` still names, and `c`, added in between, leaves the tree.
      await agree(
        [
          { path: "b/a" },
          { path: "a", bytes: empty },
          { path: "c", bytes: empty },
          { path: "b/a", bytes: empty },
          { path: "c/a", bytes: empty }
        ],
        layout,
        1
      )
    })
  )

  it.effect("crowded folders: HAMTs with sub-shards and folders inside them", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          smallLayout,
          fc.integer({ min: 20, max: 700 }),
          fc.nat(),
          fc.constantFrom("", "top/"),
          async (layout, count, seed, prefix) =>
            agree(
              [
                ...crowdedFolder(`${prefix}crowd`, count, seed),
                { path: `${prefix}other.txt`, bytes: new Uint8Array(3) }
              ],
              layout,
              7
            )
        ),
        { numRuns: 20 }
      )
    )
  )

  it.effect("a folder is sharded exactly past kubo's 256 KiB links estimate", () =>
    Effect.gen(function* () {
      // Names of 200 bytes and CIDs of 34 (v0) or 36 (v1, raw leaves): 1120 and 1110 entries
      // stay at most 262 144 bytes, one more passes.
      for (const [setting, fitting] of [
        [{ cidVersion: 0 }, 1120],
        [{ cidVersion: 1, wrapWithDirectory: true }, 1110]
      ] satisfies Array<[AddSettings, number]>) {
        for (const count of [fitting, fitting + 1]) {
          const candidates = Array.from({ length: count }, (_, i) => ({
            path: `site/${String(i).padStart(200, "n")}`,
            bytes: pseudoRandomBytes(1 + (i % 3), i)
          }))
          const expected = yield* Effect.promise(() => imported(candidates, kuboProfile(setting)))
          assert.deepStrictEqual(yield* built(candidates, kuboLayout(setting), 1), expected)
        }
      }
    })
  )

  it.effect("unixfs-v1-2025: a folder is sharded exactly past 256 KiB of serialized block", () =>
    Effect.gen(function* () {
      // A link of a 200-byte name, a 36-byte CID and a one-byte Tsize serializes to 246 bytes;
      // with the folder's 4-byte Data field, 1065 entries make 261 994 bytes, at most the
      // threshold (262 144), and 1066 make 262 240, past it.
      const layout = profileLayout({ cidVersion: 1, profile: "unixfs-v1-2025" })
      const roots: Array<string> = []
      for (const count of [1065, 1066]) {
        const candidates = Array.from({ length: count }, (_, i) => ({
          path: `site/${String(i).padStart(200, "n")}`,
          bytes: pseudoRandomBytes(1 + (i % 3), i)
        }))
        const options: ImporterOptions = { profile: "unixfs-v1-2025", fileImportConcurrency: 1 }
        const expected = yield* Effect.promise(() => imported(candidates, options))
        const entries = yield* built(candidates, layout, 1)
        assert.deepStrictEqual(entries, expected)
        roots.push(entries.at(-1)!.cid)
      }
      // Under the links-bytes estimate both would be flat (1066 × 236 < 262 144): the kinds differ.
      const legacy = { ...layout, shardStrategy: "links-bytes" as const }
      const flat = Array.from({ length: 1066 }, (_, i) => ({
        path: `site/${String(i).padStart(200, "n")}`,
        bytes: pseudoRandomBytes(1 + (i % 3), i)
      }))
      assert.notStrictEqual((yield* built(flat, legacy, 1)).at(-1)!.cid, roots[1])
    })
  )
})
