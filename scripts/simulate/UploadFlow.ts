/**
 * Flow `upload`: every plain upload, from what a user has at hand. A file on disk (by path), a
 * folder on disk, a string, bytes in memory, and a CAR file built on the spot; then the file, a
 * file inside the folder and a file inside the CAR come back through the gateway byte for byte.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { Download, Upload } from "lighthouse-effect"
import { writeCar } from "./Car.ts"
import { Env } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { keep, need } from "./Session.ts"
import { CheckFailed, check, sameBytes, step } from "./Step.ts"

const { Input } = Upload
const encoder = new TextEncoder()

/** Deterministic bytes that are not all alike. */
export const pattern = (seed: number, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * seed + (i >> 8)) & 0xff
  return out
}

const folderFiles: Readonly<Record<string, Uint8Array>> = {
  "index.html": encoder.encode("<!doctype html><h1>lighthouse-effect</h1>\n"),
  "css/site.css": encoder.encode("h1 { color: teal }\n"),
  "img/logo.bin": pattern(7, 20 * 1024)
}

const carFiles: Readonly<Record<string, Uint8Array>> = {
  "readme.md": encoder.encode("# A CAR built with @ipld/car\n"),
  "data.bin": pattern(11, 40 * 1024)
}

/** hello.txt, a site/ folder and a CAR of `carFiles`, written under `dir`. */
const writeSamples = async (dir: string, fileBytes: Uint8Array) => {
  const file = nodePath.join(dir, "hello.txt")
  await fs.writeFile(file, fileBytes)
  const site = nodePath.join(dir, "site")
  for (const [relative, content] of Object.entries(folderFiles)) {
    await fs.mkdir(nodePath.dirname(nodePath.join(site, relative)), { recursive: true })
    await fs.writeFile(nodePath.join(site, relative), content)
  }
  const car = await writeCar(nodePath.join(dir, "bundle.car"), carFiles)
  return { file, site, car }
}

/** Downloads each case (a CID, maybe a path in it) and checks the bytes are the ones sent; returns their names. */
const readBack = Effect.fnUntraced(function* (
  download: Download.Download["Service"],
  cases: ReadonlyArray<{
    readonly what: string
    readonly cid: string
    readonly path: string | undefined
    readonly expected: Uint8Array
  }>
) {
  for (const c of cases) {
    const got = yield* download.bytes(c.cid, c.path === undefined ? {} : { path: c.path })
    yield* check(sameBytes(got, c.expected), `${c.what}: ${got.length} B back, not the ${c.expected.length} B sent`)
  }
  return cases.map((c) => c.what)
})

export const upload: Flow = {
  name: "upload",
  title: "file, folder, text, buffer and CAR uploads, read back through the gateway",
  needs: ["account"],
  run: Effect.gen(function* () {
    const { dir } = yield* Env
    const uploads = yield* Upload.Upload
    const download = yield* Download.Download
    const apiKey = yield* need("apiKey")

    const fileBytes = encoder.encode("Hello from the lighthouse-effect simulation.\n")
    const prepared = yield* step(
      "prepare.files",
      "write sample files and a CAR",
      Effect.tryPromise({
        try: () => writeSamples(dir, fileBytes),
        catch: (e) => new CheckFailed({ message: `could not write the sample files: ${e}` })
      }),
      (p) => `hello.txt, site/ (${Object.keys(folderFiles).length} files), bundle.car (${Format.bytes(p.car.size)})`
    )

    const file = yield* step(
      "upload.file",
      "upload a file (path)",
      uploads.file(Input.path(prepared.file), { apiKey }),
      (entry) => `${entry.Hash} ${entry.Name} (${Format.bytes(Number(entry.Size))})`
    )
    yield* keep("file", { cid: file.Hash, name: file.Name, bytes: fileBytes })

    const folder = yield* step(
      "upload.folder",
      "upload a folder (directory)",
      uploads.folder(Input.directory(prepared.site), { apiKey }),
      (entry) => `${entry.Hash} ${entry.Name}/ (${Object.keys(folderFiles).length} files)`
    )

    const noteText = "A note uploaded as text, later published under an IPNS name.\n"
    const text = yield* step(
      "upload.text",
      "upload text",
      uploads.text(noteText, { apiKey, name: "note.txt" }),
      (entry) => `${entry.Hash} ${entry.Name} (${Format.bytes(Number(entry.Size))})`
    )
    yield* keep("text", { cid: text.Hash, name: text.Name, bytes: encoder.encode(noteText) })

    const bufferBytes = pattern(3, 300 * 1024)
    const buffer = yield* step(
      "upload.buffer",
      "upload a buffer",
      uploads.buffer(bufferBytes, { apiKey, name: "samples.bin" }),
      (entry) => `${entry.Hash} ${entry.Name} (${Format.bytes(bufferBytes.length)}, 2 chunks)`
    )

    const roots = yield* step(
      "upload.car",
      "upload a CAR file",
      Effect.tap(uploads.car(Input.path(prepared.car.path), { apiKey }), (answer) =>
        check(
          answer.length === 1 && answer[0]!.Root.Cid["/"] === prepared.car.root,
          `expected the CAR's root ${prepared.car.root}, got ${JSON.stringify(answer)}`
        )
      ),
      (answer) => `root ${answer[0]!.Root.Cid["/"]} (the CAR's own root)`
    )

    yield* step(
      "download.bytes",
      "download them back",
      readBack(download, [
        { what: "hello.txt", cid: file.Hash, path: undefined, expected: fileBytes },
        { what: "site/img/logo.bin", cid: folder.Hash, path: "img/logo.bin", expected: folderFiles["img/logo.bin"]! },
        { what: "samples.bin", cid: buffer.Hash, path: undefined, expected: bufferBytes },
        {
          what: "bundle.car/data.bin",
          cid: roots[0]!.Root.Cid["/"],
          path: "data.bin",
          expected: carFiles["data.bin"]!
        }
      ]),
      (names) => `all ${names.length} identical to what was sent: ${names.join(", ")}`
    )
  })
}
