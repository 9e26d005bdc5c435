/**
 * Sizing files for a quote: one walk for both quotes (a path, a folder, paths given as a list),
 * sizes of files in memory, and the media type rule (given type, else from the name, else `null`).
 */

import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Path, Stream } from "effect"
import * as Input from "../../src/upload/Input.ts"
import * as Mime from "../../src/upload/Mime.ts"
import * as Sizing from "../../src/upload/Sizing.ts"

describe("Sizing", () => {
  it.effect("a folder is the same files whether given as an input, a path input or a path", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.makeTempDirectoryScoped()
      yield* fs.makeDirectory(path.join(root, "b"), { recursive: true })
      yield* fs.writeFileString(path.join(root, "b", "z.json"), "{}")
      yield* fs.writeFileString(path.join(root, "a.txt"), "hello")
      yield* fs.writeFileString(path.join(root, "noext"), "xyz")
      const expected = [
        { fileSize: 5, mimeType: "text/plain", fileName: "a.txt" },
        { fileSize: 2, mimeType: "application/json", fileName: "z.json" },
        { fileSize: 3, mimeType: null, fileName: "noext" }
      ]
      assert.deepStrictEqual(yield* Sizing.sizeOf(fs, Input.directory(root)), expected)
      assert.deepStrictEqual(yield* Sizing.sizeOf(fs, Input.path(root)), expected)
      assert.deepStrictEqual(yield* Sizing.ofPaths(fs, [root]), expected)
      assert.deepStrictEqual(yield* Sizing.sizeOf(fs, Input.path(path.join(root, "a.txt"), { name: "x.md" })), [
        { fileSize: 5, mimeType: "text/markdown", fileName: "x.md" }
      ])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.effect("files in memory: sizes in bytes, the given type first, streams only with a size", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const sized = yield* Sizing.sizeOf(
        fs,
        Input.files([
          Input.text("é", "notes"),
          new File(["abc"], "pic.png", { type: "image/custom" }),
          Input.bytes(new Uint8Array(7), "dir/data.csv"),
          Input.stream(Stream.empty, { name: "s.bin", size: 9 })
        ])
      )
      assert.deepStrictEqual(sized, [
        { fileSize: 2, mimeType: "text/plain", fileName: "notes" },
        { fileSize: 3, mimeType: "image/custom", fileName: "pic.png" },
        { fileSize: 7, mimeType: "text/csv", fileName: "data.csv" },
        { fileSize: 9, mimeType: null, fileName: "s.bin" }
      ])
      const unsized = yield* Effect.flip(Sizing.sizeOf(fs, Input.stream(Stream.empty, { name: "s.bin" })))
      assert.strictEqual(unsized.message, "the size of s.bin is unknown: give the stream's size")
      const negative = yield* Effect.flip(Sizing.sizeOf(fs, -1))
      assert.strictEqual(negative.message, "a size must be a non-negative number, not -1")
      assert.deepStrictEqual(yield* Sizing.sizeOf(fs, 12), [{ fileSize: 12, mimeType: null, fileName: "" }])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it("Mime.typeOf: the extension's type, or null", () => {
    assert.strictEqual(Mime.typeOf("a/b/Photo.JPG"), "image/jpeg")
    assert.strictEqual(Mime.typeOf("archive.unknownext"), null)
    assert.strictEqual(Mime.typeOf(".hidden"), null)
  })
})
