/**
 * A download's bytes reach the file in writes of the gathering size, whatever the pieces they
 * arrive in, and every byte the stream gave is written when it fails.
 */
import { assert, describe, it } from "@effect/vitest"
import { ByteSize, Effect, FileSystem, Option, Stream } from "effect"
import { writeStream } from "../../src/download/FileWrites.ts"
import { markOwned } from "../../src/internal/OwnedBytes.ts"

/** A file system whose one file records its writes: their sizes and the bytes, copied as they were then. */
const recording = () => {
  const writes: Array<Uint8Array> = []
  const file: FileSystem.File = {
    [FileSystem.FileTypeId]: FileSystem.FileTypeId,
    stat: Effect.succeed({ size: ByteSize.bytes(0) } as FileSystem.File.Info),
    seek: () => Effect.succeed(BigInt(0)),
    sync: Effect.void,
    read: () => Effect.succeed(0),
    readAlloc: () => Effect.succeed(Option.none()),
    truncate: () => Effect.void,
    write: (buffer) => Effect.succeed(buffer.length),
    writeAll: (buffer) =>
      Effect.sync(() => {
        writes.push(buffer.slice())
      })
  }
  const opened: Array<{ path: string; flag: string | undefined }> = []
  const fs = FileSystem.makeNoop({
    open: (path, options) =>
      Effect.sync(() => {
        opened.push({ path, flag: options?.flag })
        return file
      })
  })
  const written = () => {
    const all = new Uint8Array(writes.reduce((n, w) => n + w.length, 0))
    let at = 0
    for (const w of writes) {
      all.set(w, at)
      at += w.length
    }
    return all
  }
  return { fs, writes, opened, written }
}

/** `count` pieces of `size` bytes, each filled with its own index. */
const pieces = (count: number, size: number) =>
  Array.from({ length: count }, (_, i) => new Uint8Array(size).fill(i % 256))

const joined = (parts: ReadonlyArray<Uint8Array>) => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    all.set(p, at)
    at += p.length
  }
  return all
}

describe("FileWrites.writeStream", () => {
  it.effect("gathers small pieces into writes of the gathering size, the rest in a last write", () =>
    Effect.gen(function* () {
      const { fs, writes, opened, written } = recording()
      // 10 pieces of 3 bytes into writes of 8: 8, 8, 8, then the 6 left.
      const input = pieces(10, 3)
      yield* writeStream(fs, "/out.bin", "wx", Stream.fromIterable(input), 8)
      assert.deepStrictEqual(opened, [{ path: "/out.bin", flag: "wx" }])
      assert.deepStrictEqual(
        writes.map((w) => w.length),
        [8, 8, 8, 6]
      )
      assert.deepStrictEqual(written(), joined(input))
    })
  )

  it.effect(
    "writes a piece as large as the buffer as it is when nothing is gathered, and splits one that overflows it",
    () =>
      Effect.gen(function* () {
        const { fs, writes, written } = recording()
        const input = [new Uint8Array(20).fill(7), new Uint8Array(5).fill(8), new Uint8Array(10).fill(9)]
        yield* writeStream(fs, "/out.bin", "a", Stream.fromIterable(input), 8)
        // 20 as is; then 5 + 3 of the 10 fill a write; the 7 left are the last.
        assert.deepStrictEqual(
          writes.map((w) => w.length),
          [20, 8, 7]
        )
        assert.deepStrictEqual(written(), joined(input))
      })
  )

  it.effect("a stream that fails leaves every byte it gave written, and fails with its error", () =>
    Effect.gen(function* () {
      const { fs, writes, written } = recording()
      const input = pieces(3, 2)
      const error = yield* Effect.flip(
        writeStream(fs, "/out.bin", "a", Stream.concat(Stream.fromIterable(input), Stream.fail("broken" as const)), 8)
      )
      assert.strictEqual(error, "broken")
      assert.deepStrictEqual(
        writes.map((w) => w.length),
        [6]
      )
      assert.deepStrictEqual(written(), joined(input))
    })
  )

  it.effect.skipIf(!("transfer" in ArrayBuffer.prototype))(
    "frees each piece the response owned once copied or written, and leaves others alone",
    () =>
      Effect.gen(function* () {
        const { fs, written } = recording()
        const owned = markOwned(new Uint8Array(3).fill(1))
        const caller = new Uint8Array(3).fill(2)
        // Written as it is: freed once the write is done.
        const large = markOwned(new Uint8Array(8).fill(3))
        // Split over two writes: freed once both parts are in.
        const split = markOwned(new Uint8Array(7).fill(4))
        const expected = joined([large, owned, caller, split])
        const seen: Array<number> = []
        const pieces = Stream.fromIterable([large, owned, caller, split]).pipe(
          // Each piece still whole when the writer takes it.
          Stream.tap((piece) => Effect.sync(() => seen.push(piece.byteLength)))
        )
        yield* writeStream(fs, "/out.bin", "a", pieces, 8)
        assert.deepStrictEqual(written(), expected)
        assert.deepStrictEqual(seen, [8, 3, 3, 7])
        assert.deepStrictEqual(
          [owned, large, split, caller].map((piece) => piece.byteLength),
          [0, 0, 0, 3]
        )
      })
  )
})
