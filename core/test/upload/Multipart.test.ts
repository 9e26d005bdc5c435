/**
 * The streamed multipart body: exact bytes, escaping, length, random boundaries, and parts
 * opened one at a time, only when the transport reaches them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Multipart from "../../src/upload/Multipart.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const collect = <E>(stream: Stream.Stream<Uint8Array, E>) =>
  Effect.map(Stream.mkUint8Array(stream), (bytes) => decoder.decode(bytes))

describe("Multipart", () => {
  it.effect("the body: a head, the content and CRLF per part, then the close delimiter", () =>
    Effect.gen(function* () {
      const parts: Array<Multipart.Part<never>> = [
        { name: "a.txt", size: 3, content: Stream.make(encoder.encode("abc")) },
        { name: "dir/b.txt", size: 0, content: Stream.empty }
      ]
      const body = yield* collect(Multipart.body("XYZ", parts))
      assert.strictEqual(
        body,
        '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n' +
          "Content-Type: application/octet-stream\r\n\r\nabc\r\n" +
          '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="dir/b.txt"\r\n' +
          "Content-Type: application/octet-stream\r\n\r\n\r\n" +
          "--XYZ--\r\n"
      )
      assert.strictEqual(Multipart.bodyLength("XYZ", parts), encoder.encode(body).length)
      assert.strictEqual(Multipart.contentType("XYZ"), "multipart/form-data; boundary=XYZ")
    })
  )

  it.effect("the length counts names in UTF-8 and is unknown when a size is", () =>
    Effect.gen(function* () {
      const parts: Array<Multipart.Part<never>> = [
        { name: "é€.txt", size: 2, content: Stream.make(encoder.encode("hi")) }
      ]
      const body = yield* Stream.mkUint8Array(Multipart.body("b", parts))
      assert.strictEqual(Multipart.bodyLength("b", parts), body.length)
      assert.isUndefined(Multipart.bodyLength("b", [...parts, { name: "s", size: undefined, content: Stream.empty }]))
    })
  )

  it('names: `%`, `"`, `\\`, CR and LF percent-escaped, the rest as is', () => {
    assert.strictEqual(Multipart.escapeName('a"b%c\\d\r\ne/f é.txt'), "a%22b%25c%5Cd%0D%0Ae/f é.txt")
    assert.strictEqual(Multipart.escapeName("plain-name_1.txt"), "plain-name_1.txt")
  })

  it("boundaries are random, 32 hex digits behind a fixed prefix", () => {
    const a = Multipart.makeBoundary()
    const b = Multipart.makeBoundary()
    assert.match(a, /^----LighthouseEffect[0-9a-f]{32}$/)
    assert.notStrictEqual(a, b)
  })

  it.effect("each part is opened when the previous one is done, never before", () =>
    Effect.gen(function* () {
      const events: Array<string> = []
      const part = (name: string): Multipart.Part<never> => ({
        name,
        size: 1,
        content: Stream.suspend(() => {
          events.push(`open ${name}`)
          return Stream.make(encoder.encode("x")).pipe(
            Stream.ensuring(Effect.sync(() => void events.push(`close ${name}`)))
          )
        })
      })
      const body = Multipart.body("b", [part("1"), part("2"), part("3")])
      // Nothing opened before the body is pulled.
      assert.deepStrictEqual(events, [])
      yield* Stream.runDrain(body)
      assert.deepStrictEqual(events, ["open 1", "close 1", "open 2", "close 2", "open 3", "close 3"])
    })
  )

  it.effect("bytes are cut into views of 64 KiB without copying", () =>
    Effect.gen(function* () {
      const bytes = new Uint8Array(150 * 1024)
      const chunks = yield* Stream.runCollect(Multipart.chunked(bytes))
      assert.deepStrictEqual(
        chunks.map((c) => c.length),
        [65536, 65536, 22528]
      )
      assert.strictEqual(chunks[1]!.buffer, bytes.buffer)
      assert.deepStrictEqual(yield* Stream.runCollect(Multipart.chunked(new Uint8Array(0))), [])
    })
  )

  it.effect("as one Blob: the same bytes, Blobs used as they are, streams read; the content's length", () =>
    Effect.gen(function* () {
      const file = new File(["from a file"], "f.txt")
      const parts: Array<Multipart.Part<never>> = [
        { name: "f.txt", size: file.size, content: Stream.empty, blob: () => file },
        { name: "s.txt", size: 6, content: Stream.make(encoder.encode("stream")) }
      ]
      const { blob, contentLength } = yield* Multipart.blobBody("B", parts)
      assert.strictEqual(contentLength, 17)
      assert.strictEqual(Multipart.contentLength(parts), 17)
      assert.isUndefined(Multipart.contentLength([...parts, { name: "u", size: undefined, content: Stream.empty }]))
      assert.strictEqual(blob.type, "")
      const streamed = yield* collect(
        Multipart.body("B", [{ ...parts[0]!, content: Stream.make(encoder.encode("from a file")) }, parts[1]!])
      )
      assert.strictEqual(yield* Effect.promise(() => blob.text()), streamed)
      assert.strictEqual(blob.size, Multipart.bodyLength("B", parts))
    })
  )
})
