/**
 * `Download.toDirectory` against the mock gateway: a folder's whole DAG from one CAR, every block
 * checked. The DAGs are built here block by block (dag-pb and UnixFS) and put in the network's
 * block store, so hostile ones can be served: names that would escape the target, a symlink, a
 * name given twice, an escape through a HAMT bucket. Nothing lands outside the target; a tampered
 * block fails typed and leaves no unverified file; an interrupted download resumes.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as dagPb from "@ipld/dag-pb"
import { Effect, Fiber, Latch } from "effect"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import * as Download from "../../src/Download.ts"
import type { ContentVerificationFailed, HttpStatusError, NotAFolder } from "../../src/Errors.ts"
import { encodeData } from "../../src/unixfs/Data.ts"
import { makeHarness } from "../upload/harness.ts"

const { network, layer } = makeHarness({ captureBodies: false })

/** A block put in the network's store, and its CID. */
const put = async (code: number, bytes: Uint8Array) => {
  const cid = CID.create(1, code, await sha256.digest(bytes))
  await network.state.content.put(cid, bytes)
  return cid
}

const bytesOf = (text: string) => new TextEncoder().encode(text)

/** A file of one raw leaf. */
const leaf = (text: string) => put(raw.code, bytesOf(text))

/** A file of several raw leaves under one dag-pb node. */
const chunked = async (chunks: ReadonlyArray<string>) => {
  const leaves = await Promise.all(chunks.map(leaf))
  const sizes = chunks.map((chunk) => bytesOf(chunk).length)
  const node = dagPb.encode(
    dagPb.prepare({
      Data: encodeData({ type: "file", blockSizes: sizes }),
      Links: leaves.map((cid, i) => ({ Hash: cid, Name: "", Tsize: sizes[i]! }))
    })
  )
  return put(dagPb.code, node)
}

type Entry = readonly [name: string, cid: CID]

const pbNode = (type: "directory" | "hamt-sharded-directory", links: ReadonlyArray<Entry>, fanout?: number) =>
  dagPb.encode(
    dagPb.prepare({
      Data: encodeData(type === "directory" ? { type } : { type, fanout, hashType: 0x22 }),
      Links: links.map(([Name, Hash]) => ({ Hash, Name, Tsize: 1 }))
    })
  )

const folder = (links: ReadonlyArray<Entry>) => put(dagPb.code, pbNode("directory", links))
const shard = (links: ReadonlyArray<Entry>) => put(dagPb.code, pbNode("hamt-sharded-directory", links, 256))
const symlink = (target: string) =>
  put(dagPb.code, dagPb.encode({ Data: encodeData({ type: "symlink", data: bytesOf(target) }), Links: [] }))

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "tree-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** Every file and folder under `dir`, relative, with a file's text. */
const listing = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = nodePath.relative(dir, nodePath.join(entry.parentPath, entry.name))
    out[path] = entry.isFile()
      ? await fs.readFile(nodePath.join(dir, path), "utf8")
      : `<${entry.isDirectory() ? "dir" : "other"}>`
  }
  return out
}

const plainTree = async () => {
  const sub = await folder([
    ["deep.txt", await leaf("deep\n")],
    ["big.bin", await chunked(["one-", "two-", "three"])]
  ])
  return folder([
    ["a.txt", await leaf("alpha\n")],
    ["sub", sub],
    ["z.txt", await leaf("zulu\n")]
  ])
}

describe("Download.toDirectory", () => {
  it.effect("writes a folder's tree, reports it, and a second run keeps every file", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(plainTree)
      const out = nodePath.join(yield* tempDir, "out")
      const download = yield* Download.Download
      const seen: Array<{ bytes: number; files: number }> = []
      const report = yield* download.toDirectory(root.toString(), out, { onProgress: (p) => seen.push(p) })
      assert.deepStrictEqual(yield* Effect.promise(() => listing(out)), {
        "a.txt": "alpha\n",
        sub: "<dir>",
        "sub/deep.txt": "deep\n",
        "sub/big.bin": "one-two-three",
        "z.txt": "zulu\n"
      })
      assert.deepStrictEqual(report, {
        cid: root.toString(),
        bytes: 29,
        files: 4,
        written: ["a.txt", "sub/big.bin", "sub/deep.txt", "z.txt"],
        kept: [],
        skipped: []
      })
      assert.deepStrictEqual(seen.at(-1), { bytes: 29, files: 4 })
      const again = yield* download.toDirectory(root.toString(), out)
      assert.deepStrictEqual([again.written, again.kept], [[], ["a.txt", "sub/big.bin", "sub/deep.txt", "z.txt"]])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a file of many writes arrives whole beside an empty one, into a new directory or an existing one", () =>
    Effect.gen(function* () {
      // 5 leaves of 100 KiB: the file spans several of the writer's 256 KiB buffers, split mid-leaf.
      const chunks = Array.from({ length: 5 }, (_, i) => String.fromCharCode(97 + i).repeat(100 * 1024))
      const root = yield* Effect.promise(async () =>
        folder([
          ["big.bin", await chunked(chunks)],
          ["empty", await leaf("")],
          ["sub", await folder([["x.txt", await leaf("x")]])]
        ])
      )
      const expected = { "big.bin": chunks.join(""), empty: "", sub: "<dir>", "sub/x.txt": "x" }
      const base = yield* tempDir
      const download = yield* Download.Download
      const fresh = nodePath.join(base, "new")
      const report = yield* download.toDirectory(root.toString(), fresh)
      assert.deepStrictEqual(yield* Effect.promise(() => listing(fresh)), expected)
      assert.deepStrictEqual([report.bytes, report.written], [500 * 1024 + 1, ["big.bin", "empty", "sub/x.txt"]])
      const existing = nodePath.join(base, "existing")
      yield* Effect.promise(() => fs.mkdir(existing))
      yield* download.toDirectory(root.toString(), existing)
      assert.deepStrictEqual(yield* Effect.promise(() => listing(existing)), expected)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("an existing file that differs is skipped and reported, replaced only with force", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(plainTree)
      const out = yield* tempDir
      yield* Effect.promise(() => fs.writeFile(nodePath.join(out, "a.txt"), "mine!\n"))
      const download = yield* Download.Download
      const report = yield* download.toDirectory(root.toString(), out)
      assert.deepStrictEqual(report.skipped, [{ path: "a.txt", reason: "exists" }])
      assert.strictEqual(yield* Effect.promise(() => fs.readFile(nodePath.join(out, "a.txt"), "utf8")), "mine!\n")
      const forced = yield* download.toDirectory(root.toString(), out, { force: true })
      assert.deepStrictEqual([forced.written, forced.skipped], [["a.txt"], []])
      assert.strictEqual(yield* Effect.promise(() => fs.readFile(nodePath.join(out, "a.txt"), "utf8")), "alpha\n")
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a hostile folder writes nothing outside the target and reports every refused entry", () =>
    Effect.gen(function* () {
      const evil = yield* Effect.promise(() => leaf("evil\n"))
      const inner = yield* Effect.promise(async () => folder([["x.txt", await leaf("x\n")]]))
      // Two levels of `..` inside a HAMT bucket: a sub-shard whose entry is named `..` (after its
      // prefix), holding a folder whose entry is `..` again, then the file.
      const escape = yield* Effect.promise(async () => folder([["..", await folder([["pwned.txt", evil]])]]))
      const bucket = yield* Effect.promise(() =>
        shard([
          ["1F..", escape],
          ["2Aok.txt", evil]
        ])
      )
      const sharded = yield* Effect.promise(() =>
        shard([
          ["05", bucket],
          ["07fine.txt", evil]
        ])
      )
      const root = yield* Effect.promise(async () =>
        folder([
          ["../up.txt", evil],
          ["..", inner],
          [".", inner],
          ["/etc/passwd", evil],
          ["back\\slash", evil],
          ["nul\u0000name", evil],
          ["bell\u0007", evil],
          ["C:drive", evil],
          ["", evil],
          ["x".repeat(256), evil],
          ["link", await symlink("/etc")],
          ["dup.txt", await leaf("first\n")],
          ["dup.txt", await leaf("second\n")],
          ["hamt", sharded],
          ["ok", inner]
        ])
      )
      const base = yield* tempDir
      const out = nodePath.join(base, "a", "b", "out")
      const report = yield* (yield* Download.Download).toDirectory(root.toString(), out)
      // Nothing beside the target (`out.lock` is gone with the call), and inside only what is safe.
      assert.deepStrictEqual(yield* Effect.promise(() => listing(base)), {
        a: "<dir>",
        "a/b": "<dir>",
        "a/b/out": "<dir>",
        "a/b/out/dup.txt": "first\n",
        "a/b/out/hamt": "<dir>",
        "a/b/out/hamt/fine.txt": "evil\n",
        "a/b/out/hamt/ok.txt": "evil\n",
        "a/b/out/ok": "<dir>",
        "a/b/out/ok/x.txt": "x\n"
      })
      // In the DAG's order (links sorted by their names' bytes).
      assert.deepStrictEqual(report.skipped, [
        { path: "", reason: "empty-name" },
        { path: ".", reason: "dot-name" },
        { path: "..", reason: "dot-name" },
        { path: "../up.txt", reason: "separator" },
        { path: "/etc/passwd", reason: "separator" },
        { path: "C:drive", reason: "absolute" },
        { path: "back\\slash", reason: "separator" },
        { path: "bell\u0007", reason: "control-character" },
        { path: "dup.txt", reason: "duplicate" },
        { path: "nul\u0000name", reason: "control-character" },
        { path: "x".repeat(256), reason: "name-too-long" },
        { path: "hamt/..", reason: "dot-name" },
        { path: "link", reason: "symlink" }
      ])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a tampered block anywhere fails typed and leaves only whole, verified files", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(plainTree)
      // The second leaf of sub/big.bin answers other bytes.
      const two = yield* Effect.promise(() => leaf("two-"))
      yield* Effect.promise(() => network.state.content.put(two, bytesOf("TWO-")))
      const out = yield* tempDir
      const failed = (yield* Effect.flip(
        (yield* Download.Download).toDirectory(root.toString(), out)
      )) as ContentVerificationFailed
      assert.strictEqual(failed._tag, "ContentVerificationFailed")
      assert.strictEqual(failed.problem, "block-hash-mismatch")
      assert.strictEqual(failed.block, two.toString())
      // a.txt was whole and verified before; nothing of sub/big.bin, nothing partial, nothing after it.
      assert.deepStrictEqual(yield* Effect.promise(() => listing(out)), { "a.txt": "alpha\n", sub: "<dir>" })
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a download interrupted after its first file resumes: the file is kept, the rest written", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(plainTree)
      const out = yield* tempDir
      const download = yield* Download.Download
      const first = yield* Latch.make()
      const fiber = yield* Effect.forkChild(
        download.toDirectory(root.toString(), out, {
          onProgress: ({ files }) => {
            if (files === 1) first.openUnsafe()
          }
        })
      )
      yield* first.await
      yield* Fiber.interrupt(fiber)
      const resumed = yield* download.toDirectory(root.toString(), out)
      assert.includeMembers([...resumed.kept], ["a.txt"])
      assert.deepStrictEqual([...resumed.kept, ...resumed.written].sort(), [
        "a.txt",
        "sub/big.bin",
        "sub/deep.txt",
        "z.txt"
      ])
      assert.deepStrictEqual(yield* Effect.promise(() => listing(out)), {
        "a.txt": "alpha\n",
        sub: "<dir>",
        "sub/deep.txt": "deep\n",
        "sub/big.bin": "one-two-three",
        "z.txt": "zulu\n"
      })
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("list gives a folder's own entries, or with recursive its whole tree, refused ones with why", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(plainTree)
      const withLink = yield* Effect.promise(async () =>
        folder([
          ["link", await symlink("/")],
          ["tree", root]
        ])
      )
      const download = yield* Download.Download
      const own = yield* download.list(root.toString())
      assert.deepStrictEqual(
        own.map((entry) => [entry.path, entry.type, "size" in entry ? entry.size : undefined]),
        [
          ["a.txt", "file", 6],
          ["sub", "folder", undefined],
          ["z.txt", "file", 5]
        ]
      )
      const all = yield* download.list(withLink.toString(), { recursive: true })
      assert.deepStrictEqual(
        all.map((entry) => [entry.path, entry.type]),
        [
          ["link", "refused"],
          ["tree", "folder"],
          ["tree/a.txt", "file"],
          ["tree/sub", "folder"],
          ["tree/sub/big.bin", "file"],
          ["tree/sub/deep.txt", "file"],
          ["tree/z.txt", "file"]
        ]
      )
      assert.deepStrictEqual(all[0], { path: "link", type: "refused", reason: "symlink" })
      assert.deepStrictEqual(all[1], { path: "tree", type: "folder", cid: root.toString() })
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a folder inside the CID (path) is downloaded on its own; a missing one is the gateway's 404", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(plainTree)
      const out = yield* tempDir
      const download = yield* Download.Download
      const report = yield* download.toDirectory(root.toString(), out, { path: "sub" })
      assert.deepStrictEqual(report.written, ["big.bin", "deep.txt"])
      assert.deepStrictEqual(yield* Effect.promise(() => listing(out)), {
        "big.bin": "one-two-three",
        "deep.txt": "deep\n"
      })
      // The gateway resolves the path first, and answers 404 when it is not there.
      const missing = (yield* Effect.flip(
        download.toDirectory(root.toString(), out, { path: "nope" })
      )) as HttpStatusError
      assert.deepStrictEqual([missing._tag, missing.status], ["HttpStatusError", 404])
    }).pipe(Effect.scoped, Effect.provide(layer))
  )

  it.effect("a file's CID is refused as a folder: NotAFolder", () =>
    Effect.gen(function* () {
      const file = yield* Effect.promise(() => chunked(["a", "b"]))
      const out = yield* tempDir
      const failed = (yield* Effect.flip((yield* Download.Download).toDirectory(file.toString(), out))) as NotAFolder
      assert.strictEqual(failed._tag, "NotAFolder")
      assert.strictEqual(failed.message, `${file} is a file, not a folder: download it as a file`)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
})
