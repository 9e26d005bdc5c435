/**
 * Flow `folder`: a folder both ways. A small folder is uploaded, listed (verified, like a
 * download), downloaded into a fresh directory and compared byte for byte with the original; then
 * it is kept stored with `sync`: a first snapshot, one file changed, a second snapshot that sends
 * only that file and the folder nodes, and both snapshots restored, each equal to the folder as it
 * was when it was taken.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { Download, Upload } from "lighthouse-effect"
import { Env } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { CheckFailed, check, sameBytes, step } from "./Step.ts"
import { pattern } from "./UploadFlow.ts"

const { Input } = Upload
const encoder = new TextEncoder()

/** A folder as files: `/`-separated path → bytes. */
type Tree = Readonly<Record<string, Uint8Array>>

const original: Tree = {
  "notes.txt": encoder.encode("Backed up by lighthouse-effect.\n"),
  "photos/2024/harbour.bin": pattern(5, 300 * 1024),
  "photos/2024/lighthouse.bin": pattern(9, 64 * 1024),
  "docs/plan.md": encoder.encode("# Plan\n\n1. Upload\n2. Sync\n")
}

/** The file changed between the two snapshots: larger, so its size tells the index it changed. */
const changedPath = "docs/plan.md"
const changed: Tree = { ...original, [changedPath]: encoder.encode("# Plan\n\n1. Upload\n2. Sync\n3. Restore\n") }

const failed = (what: string) => (cause: unknown) => new CheckFailed({ message: `${what}: ${String(cause)}` })

/** Writes `tree` under `dir`. */
const writeTree = (dir: string, tree: Tree) =>
  Effect.tryPromise({
    try: async () => {
      for (const [relative, bytes] of Object.entries(tree)) {
        await fs.mkdir(nodePath.dirname(nodePath.join(dir, relative)), { recursive: true })
        await fs.writeFile(nodePath.join(dir, relative), bytes)
      }
    },
    catch: failed(`could not write ${dir}`)
  })

/** The files under `dir`, read back as a tree. */
const readTree = (dir: string) =>
  Effect.tryPromise({
    try: async () => {
      const tree: Record<string, Uint8Array> = {}
      for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue
        const full = nodePath.join(entry.parentPath, entry.name)
        tree[nodePath.relative(dir, full).split(nodePath.sep).join("/")] = new Uint8Array(await fs.readFile(full))
      }
      return tree as Tree
    },
    catch: failed(`could not read ${dir}`)
  })

/** `dir` holds exactly the files of `expected`, byte for byte; the number of files compared. */
const sameTree = Effect.fnUntraced(function* (dir: string, expected: Tree) {
  const got = yield* readTree(dir)
  const names = Object.keys(expected).sort()
  yield* check(
    JSON.stringify(Object.keys(got).sort()) === JSON.stringify(names),
    `${dir} holds ${Object.keys(got).sort().join(", ")}, not ${names.join(", ")}`
  )
  for (const name of names) yield* check(sameBytes(got[name]!, expected[name]!), `${name} differs from what was sent`)
  return names.length
})

const treeBytes = (tree: Tree) => Object.values(tree).reduce((sum, bytes) => sum + bytes.length, 0)

/** `3 files, 2 folders: notes.txt, photos/, …`. */
const listingLine = (entries: ReadonlyArray<Download.TreeEntry>) => {
  const files = entries.filter((entry) => entry.type === "file").length
  const folders = entries.filter((entry) => entry.type === "folder").length
  const names = entries.map((entry) => (entry.type === "folder" ? `${entry.path}/` : entry.path))
  return `${files} files, ${folders} folders: ${names.join(", ")}`
}

export const folder: Flow = {
  name: "folder",
  title: "a folder uploaded, listed and downloaded back, then kept stored with sync",
  needs: ["account"],
  run: Effect.gen(function* () {
    const { dir } = yield* Env
    const apiKey = yield* need("apiKey")
    const uploads = yield* Upload.Upload
    const download = yield* Download.Download
    const source = nodePath.join(dir, "backup")
    const stateDirectory = nodePath.join(dir, "state")

    yield* step(
      "prepare.folder",
      "write a folder to back up",
      writeTree(source, original),
      () => `backup/ (${Object.keys(original).length} files, ${Format.bytes(treeBytes(original))})`
    )

    const uploaded = yield* step(
      "upload.folder.backup",
      "upload the folder",
      uploads.folder(Input.directory(source), { apiKey }),
      (entry) => `${entry.Hash} ${entry.Name}/`
    )

    yield* step(
      "download.list",
      "list it, recursively",
      Effect.tap(download.list(uploaded.Hash, { recursive: true }), (entries) =>
        check(
          entries.filter((entry) => entry.type === "file").length === Object.keys(original).length,
          `the listing shows ${entries.length} entries, not the ${Object.keys(original).length} files sent`
        )
      ),
      listingLine
    )

    const restored = nodePath.join(dir, "restored")
    yield* step(
      "download.toDirectory",
      "download it into an empty directory",
      Effect.flatMap(download.toDirectory(uploaded.Hash, restored), (report) =>
        Effect.map(sameTree(restored, original), (compared) => ({ report, compared }))
      ),
      ({ report, compared }) =>
        `${report.written.length} files written, ${Format.bytes(report.bytes)}; all ${compared} identical to the folder`
    )

    const first = yield* step(
      "upload.sync",
      "sync the folder: a first snapshot",
      uploads.sync(source, { apiKey, stateDirectory }),
      (result) =>
        `${result.cid} (${result.mode}${result.cid === uploaded.Hash ? ", the upload's CID" : ""}): ` +
        `${result.files} files, ${Format.bytes(result.bytesSent)} sent`
    )

    yield* step(
      "prepare.folder.change",
      "change one file",
      writeTree(source, { [changedPath]: changed[changedPath]! }),
      () => `${changedPath} now ${Format.bytes(changed[changedPath]!.length)}`
    )

    const second = yield* step(
      "upload.sync.changed",
      "sync again: only the change is sent",
      Effect.tap(uploads.sync(source, { apiKey, stateDirectory }), (result) =>
        Effect.andThen(
          check(result.cid !== first.cid, "the second snapshot has the first one's CID"),
          check(
            result.sent.length === 1 && result.sent[0] === changedPath,
            `sent ${result.sent.join(", ") || "nothing"}, not only ${changedPath}`
          )
        )
      ),
      (result) =>
        `${result.cid} (${result.mode}): sent ${result.sent.join(", ")}, ${Format.bytes(result.bytesSent)} ` +
        `of ${Format.bytes(result.bytes)}; ${result.read} of ${result.files} files read again`
    )

    yield* step(
      "download.toDirectory.snapshots",
      "restore both snapshots",
      Effect.gen(function* () {
        yield* Effect.flatMap(download.toDirectory(first.cid, nodePath.join(dir, "snapshot-1")), () =>
          sameTree(nodePath.join(dir, "snapshot-1"), original)
        )
        yield* Effect.flatMap(download.toDirectory(second.cid, nodePath.join(dir, "snapshot-2")), () =>
          sameTree(nodePath.join(dir, "snapshot-2"), changed)
        )
      }),
      () => `the first equals the folder before the change, the second after it`
    )
  })
}
