/**
 * Folders on disk with entries that cannot be read, through the public API against the served
 * network (real sockets, real temporary folders): a symlink loop, a broken link, a chain of links
 * without end and an entry without permission fail as `UnreadableEntry` naming the entry's path
 * inside the folder, before anything is sent; `Input.directory(path, { skipUnreadable: true })`
 * uploads the rest and lists what it left out. Links to files and folders inside the tree, and
 * outside it, are followed: the CID is that of the same files given in memory.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Errors, Files, Signer, Upload } from "lighthouse-effect"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import * as LighthouseNode from "lighthouse-effect/node"
import { createLighthouseNode } from "lighthouse-effect/node"
import { afterAll, beforeAll, beforeEach, expect, it as vitestIt } from "vitest"

const { Input } = Upload
/** Hardhat's second test wallet. */
const PRIVATE_KEY = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
/** Root reads every file whatever its mode: no EACCES to provoke. */
const isRoot = process.getuid?.() === 0

let served: ServedMockNetwork
let scratch: string
const locked: Array<string> = []
beforeAll(async () => {
  served = await serveMockNetwork()
  scratch = await fs.mkdtemp(nodePath.join(os.tmpdir(), "unreadable-entries-"))
})
afterAll(async () => {
  await served.close()
  // Locked folders must be opened again before they can be removed.
  for (const folder of locked) await fs.chmod(folder, 0o755)
  await fs.rm(scratch, { recursive: true, force: true })
})
beforeEach(() => served.network.reset())

const layer = () => LighthouseNode.layer({ hosts: served.urls, nodes: { pause: 0, retryDelay: 0, mode: "concurrent" } })

/** A fresh account's API key on the served network. */
const account = () => served.network.seedAccount(`0x${"1".repeat(40)}`).apiKey

/**
 * A folder `site` under a fresh folder named after `name`: `files` (path → content), `links` (path
 * → target, as `ln -s` takes it), each made in order.
 */
const makeSite = async (
  name: string,
  files: Readonly<Record<string, string>>,
  links: Readonly<Record<string, string>> = {}
) => {
  const site = nodePath.join(await fs.mkdtemp(nodePath.join(scratch, `${name}-`)), "site")
  await fs.mkdir(site)
  for (const [path, content] of Object.entries(files)) {
    await fs.mkdir(nodePath.dirname(nodePath.join(site, path)), { recursive: true })
    await fs.writeFile(nodePath.join(site, path), content)
  }
  for (const [path, target] of Object.entries(links)) {
    await fs.mkdir(nodePath.dirname(nodePath.join(site, path)), { recursive: true })
    await fs.symlink(target, nodePath.join(site, path))
  }
  return site
}

/** The same folder as files in memory, named by their path under `site/`. */
const inMemory = (files: Readonly<Record<string, string>>) =>
  Input.files(Object.entries(files).map(([path, content]) => Input.text(content, `site/${path}`)))

/** A tree with every kind of entry: good files, links inside the tree, a loop and a broken link. */
const mixed = () =>
  makeSite(
    "mixed",
    { "a.txt": "alpha\n", "docs/b.txt": "bravo\n", "loop/c.txt": "charlie\n" },
    {
      broken: "missing.txt",
      "docs-link": "docs",
      "link-to-file": "a.txt",
      "loop/self": "."
    }
  )

/** What the upload of `mixed` with skipping holds: each link followed once, under its own name. */
const mixedReadable = {
  "a.txt": "alpha\n",
  "docs/b.txt": "bravo\n",
  "docs-link/b.txt": "bravo\n",
  "link-to-file": "alpha\n",
  "loop/c.txt": "charlie\n"
}

const dataUsed = (apiKey: string) => Files.Files.use((files) => files.usage(apiKey)).pipe(Effect.map((u) => u.dataUsed))

describe("a folder with unreadable entries, by default", () => {
  it.effect("a symlink loop: UnreadableEntry naming loop/self, nothing stored", () =>
    Effect.gen(function* () {
      const site = yield* Effect.promise(() =>
        makeSite("loop", { "a.txt": "alpha\n", "loop/c.txt": "charlie\n" }, { "loop/self": "." })
      )
      const apiKey = account()
      const upload = yield* Upload.Upload
      const error = yield* Effect.flip(upload.folder(Input.directory(site), { apiKey }))
      assert.instanceOf(error, Errors.UnreadableEntry)
      assert.strictEqual(error.message, "Unreadable entry in folder: loop/self (symlink loop)")
      assert.deepStrictEqual([error._tag, error.path, error.reason], ["UnreadableEntry", "loop/self", "symlink loop"])
      assert.strictEqual(yield* dataUsed(apiKey), 0)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a broken link, a chain of links without end, a loop through a folder outside the tree", () =>
    Effect.gen(function* () {
      const apiKey = account()
      const upload = yield* Upload.Upload
      const failureOf = (site: string) =>
        Effect.flip(upload.folder(Input.directory(site), { apiKey })).pipe(Effect.map((e) => e.message))

      const broken = yield* Effect.promise(() => makeSite("broken", { "a.txt": "alpha\n" }, { "z/gone": "../nothing" }))
      assert.strictEqual(yield* failureOf(broken), "Unreadable entry in folder: z/gone (broken link)")
      // a → b → a: `stat` gives up (ELOOP) before any folder is reached.
      const chain = yield* Effect.promise(() => makeSite("chain", { "a.txt": "alpha\n" }, { x: "y", y: "x" }))
      assert.strictEqual(yield* failureOf(chain), "Unreadable entry in folder: x (symlink loop)")
      // site/out → a folder outside, whose link `back` leads to site again.
      const outside = yield* Effect.promise(() => fs.mkdtemp(nodePath.join(scratch, "outside-")))
      const roundabout = yield* Effect.promise(() => makeSite("roundabout", { "a.txt": "alpha\n" }, { out: outside }))
      yield* Effect.promise(() => fs.symlink(roundabout, nodePath.join(outside, "back")))
      assert.strictEqual(yield* failureOf(roundabout), "Unreadable entry in folder: out/back (symlink loop)")

      // The first bad entry in name order is the one named.
      assert.strictEqual(
        yield* failureOf(yield* Effect.promise(mixed)),
        "Unreadable entry in folder: broken (broken link)"
      )
      assert.strictEqual(yield* dataUsed(apiKey), 0)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a quote of the folder fails the same way; with skipUnreadable it lists the same files", () =>
    Effect.gen(function* () {
      const site = yield* Effect.promise(mixed)
      const files = yield* Files.Files
      const apiKey = account()
      const refused = yield* Effect.flip(files.quote(apiKey, Input.directory(site)))
      assert.strictEqual(refused.message, "Unreadable entry in folder: broken (broken link)")
      const quote = yield* files.quote(apiKey, Input.directory(site, { skipUnreadable: true }))
      assert.deepStrictEqual(
        quote.metaData.map((m) => [m.fileName, m.fileSize]),
        Object.entries(mixedReadable).map(([path, content]) => [nodePath.posix.basename(path), content.length])
      )
    }).pipe(Effect.provide(layer()))
  )
})

describe("a folder with unreadable entries, skipping them", () => {
  it.effect("uploads the rest, links followed once each, and lists what it skipped with the reason", () =>
    Effect.gen(function* () {
      const site = yield* Effect.promise(mixed)
      const apiKey = account()
      const upload = yield* Upload.Upload
      const entry = yield* upload.folder(Input.directory(site, { skipUnreadable: true }), { apiKey })
      assert.deepStrictEqual(entry.skipped, [
        { path: "broken", reason: "broken link" },
        { path: "loop/self", reason: "symlink loop" }
      ])
      // The same files given in memory are the same folder: the links' targets under their names.
      const same = yield* upload.folder(inMemory(mixedReadable), { apiKey })
      assert.deepStrictEqual([entry.Name, entry.Hash, entry.Size], [same.Name, same.Hash, same.Size])
      assert.isFalse("skipped" in same)
      // Without bad entries the list is there and empty; without the option it is not there.
      const clean = yield* Effect.promise(() => makeSite("clean", mixedReadable))
      assert.deepStrictEqual(
        (yield* upload.folder(Input.directory(clean, { skipUnreadable: true }), { apiKey })).skipped,
        []
      )
      const plain = yield* upload.folder(Input.directory(clean), { apiKey })
      assert.deepStrictEqual(Object.keys(plain).sort(), ["Hash", "Name", "Size"])
      assert.strictEqual(plain.Hash, same.Hash)

      // The folder read into a list of files first: the same files, the same entries skipped.
      const read = yield* Input.readDirectory(site, { skipUnreadable: true })
      assert.deepStrictEqual(read.skipped, entry.skipped)
      assert.deepStrictEqual(
        read.files.files.map((file) => Input.nameOf(Input.toFileSource(file))),
        Object.keys(mixedReadable).map((path) => `site/${path}`)
      )
      assert.strictEqual((yield* upload.folder(read.files, { apiKey })).Hash, same.Hash)
      const refused = yield* Effect.flip(Input.readDirectory(site))
      assert.strictEqual(refused.message, "Unreadable entry in folder: broken (broken link)")
    }).pipe(Effect.provide([layer(), NodeFileSystem.layer]))
  )

  it.effect("links to a file and a folder outside the tree are followed: their content under the links' names", () =>
    Effect.gen(function* () {
      const elsewhere = yield* Effect.promise(() => fs.mkdtemp(nodePath.join(scratch, "elsewhere-")))
      yield* Effect.promise(async () => {
        await fs.mkdir(nodePath.join(elsewhere, "shared"))
        await fs.writeFile(nodePath.join(elsewhere, "notes.md"), "# notes\n")
        await fs.writeFile(nodePath.join(elsewhere, "shared", "logo.svg"), "<svg/>")
      })
      const site = yield* Effect.promise(() =>
        makeSite(
          "outward",
          { "index.html": "<html/>" },
          { "notes.md": nodePath.join(elsewhere, "notes.md"), assets: nodePath.join(elsewhere, "shared") }
        )
      )
      const apiKey = account()
      const upload = yield* Upload.Upload
      const entry = yield* upload.folder(Input.directory(site), { apiKey })
      const same = yield* upload.folder(
        inMemory({ "assets/logo.svg": "<svg/>", "index.html": "<html/>", "notes.md": "# notes\n" }),
        { apiKey }
      )
      assert.strictEqual(entry.Hash, same.Hash)
    }).pipe(Effect.provide(layer()))
  )

  it.effect(
    "encrypted: refused before anything is sent by default; with skipUnreadable each readable file is its own CID",
    () =>
      Effect.gen(function* () {
        const site = yield* Effect.promise(mixed)
        const signer = yield* Signer.makeFromPrivateKey(Redacted.make(PRIVATE_KEY))
        const { apiKey } = served.network.seedAccount(signer.address)
        const upload = yield* Upload.Upload
        const refused = yield* Effect.flip(upload.encryptedFiles(Input.directory(site), { apiKey, signer }))
        assert.strictEqual(refused.message, "Unreadable entry in folder: broken (broken link)")
        assert.strictEqual(yield* dataUsed(apiKey), 0)
        const entries = yield* upload.encryptedFiles(Input.directory(site, { skipUnreadable: true }), {
          apiKey,
          signer
        })
        assert.deepStrictEqual(
          entries.map((e) => e.Name),
          ["a.txt", "docs-b.txt", "docs-link-b.txt", "link-to-file", "loop-c.txt"]
        )
      }).pipe(Effect.provide(layer()))
  )

  it.effect.skipIf(isRoot)("an entry without permission: refused, or skipped and listed (not as root)", () =>
    Effect.gen(function* () {
      const site = yield* Effect.promise(async () => {
        const made = await makeSite("locked", { "a.txt": "alpha\n", "b.txt": "bravo\n", "secret/c.txt": "charlie\n" })
        await fs.chmod(nodePath.join(made, "b.txt"), 0o000)
        await fs.chmod(nodePath.join(made, "secret"), 0o000)
        locked.push(nodePath.join(made, "secret"))
        return made
      })
      const apiKey = account()
      const upload = yield* Upload.Upload
      const refused = yield* Effect.flip(upload.folder(Input.directory(site), { apiKey }))
      assert.strictEqual(refused.message, "Unreadable entry in folder: b.txt (permission denied)")
      const entry = yield* upload.folder(Input.directory(site, { skipUnreadable: true }), { apiKey })
      assert.deepStrictEqual(entry.skipped, [
        { path: "b.txt", reason: "permission denied" },
        { path: "secret", reason: "permission denied" }
      ])
      assert.strictEqual(entry.Hash, (yield* upload.folder(inMemory({ "a.txt": "alpha\n" }), { apiKey })).Hash)
    }).pipe(Effect.provide(layer()))
  )
})

describe("through the Promise facade", () => {
  vitestIt("rejects with UnreadableEntry; with skipUnreadable resolves with the skipped entries", async () => {
    const site = await makeSite("facade", { "a.txt": "alpha\n" }, { "loop/self": ".." })
    const lighthouse = createLighthouseNode({ hosts: served.urls })
    try {
      const apiKey = account()
      await expect(lighthouse.upload.folder(Input.directory(site), { apiKey })).rejects.toMatchObject({
        _tag: "UnreadableEntry",
        message: "Unreadable entry in folder: loop/self (symlink loop)"
      })
      const entry = await lighthouse.upload.folder(Input.directory(site, { skipUnreadable: true }), { apiKey })
      expect(entry.skipped).toEqual([{ path: "loop/self", reason: "symlink loop" }])
      expect(entry.Name).toBe("site")
    } finally {
      await lighthouse.dispose()
    }
  })
})
