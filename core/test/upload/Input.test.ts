/**
 * The input model: constructors, guards and the name each input goes under.
 */
import { assert, describe, it } from "@effect/vitest"
import { Stream } from "effect"
import * as Input from "../../src/upload/Input.ts"

describe("Input", () => {
  it("names: path basename, File name or relative path, `blob`, given names", () => {
    assert.strictEqual(Input.nameOf(Input.path("/a/b/c.txt")), "c.txt")
    assert.strictEqual(Input.nameOf(Input.path("C:\\x\\y.png")), "y.png")
    assert.strictEqual(Input.nameOf(Input.path("/a/b/", { name: "renamed" })), "renamed")
    assert.strictEqual(Input.nameOf(Input.blob(new File(["x"], "f.txt"))), "f.txt")
    const picked = new File(["x"], "f.txt")
    Object.defineProperty(picked, "webkitRelativePath", { value: "folder/sub/f.txt" })
    assert.strictEqual(Input.nameOf(Input.toFileSource(picked)), "folder/sub/f.txt")
    assert.strictEqual(Input.nameOf(Input.toFileSource(new Blob(["x"]))), "blob")
    assert.strictEqual(Input.nameOf(Input.bytes(new Uint8Array(), "b")), "b")
    assert.strictEqual(Input.nameOf(Input.text("t", "t.md")), "t.md")
    assert.strictEqual(Input.nameOf(Input.stream(Stream.empty, { name: "s", size: 0 })), "s")
  })

  it("guards: sources are told apart from Blobs and folders", () => {
    assert.isTrue(Input.isFileSource(Input.text("t", "t")))
    assert.isFalse(Input.isFileSource(new Blob(["x"])))
    assert.isFalse(Input.isFileSource(Input.directory("/tmp")))
    assert.isFalse(Input.isFileSource({ _tag: "Other" }))
    const blob = new Blob(["x"])
    assert.deepStrictEqual(Input.toFileSource(blob), { _tag: "Blob", blob, name: undefined })
  })

  it("files: a FileList-like or an iterable becomes a folder of its files", () => {
    const a = new File(["a"], "a")
    const b = new File(["b"], "b")
    const listLike = { 0: a, 1: b, length: 2 }
    assert.deepStrictEqual(Input.files(listLike).files, [a, b])
    assert.deepStrictEqual(Input.files(new Set([a])).files, [a])
  })

  it("baseName: trailing separators ignored", () => {
    assert.strictEqual(Input.baseName("photos/"), "photos")
    assert.strictEqual(Input.baseName("/x/photos//"), "photos")
    assert.strictEqual(Input.baseName("plain"), "plain")
  })
})
