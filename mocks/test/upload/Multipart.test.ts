/**
 * The streaming multipart reader: any chunking of the body gives the same parts (property test),
 * delimiter look-alikes inside data survive, header forms, and malformed bodies fail loudly.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { concatBytes } from "../../src/storage/Blocks.ts"
import { boundaryOf, indexOf, MultipartError, readMultipart } from "../../src/upload/Multipart.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const streamOf = (bytes: Uint8Array, cuts: ReadonlyArray<number> = []): ReadableStream<Uint8Array> => {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.slice(from, point))
    from = point
  }
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift()
      if (next === undefined) controller.close()
      else controller.enqueue(next)
    }
  })
}

interface Spec {
  readonly name: string
  readonly filename?: string
  readonly type?: string
  readonly data: Uint8Array
}

const body = (boundary: string, parts: ReadonlyArray<Spec>, preamble = "", epilogue = "") =>
  concatBytes([
    encoder.encode(preamble),
    ...parts.flatMap((part) => [
      encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${
          part.filename === undefined ? "" : `; filename="${part.filename}"`
        }\r\n${part.type === undefined ? "" : `Content-Type: ${part.type}\r\n`}\r\n`
      ),
      part.data,
      encoder.encode("\r\n")
    ]),
    encoder.encode(`--${boundary}--\r\n${epilogue}`)
  ])

const collect = async (stream: ReadableStream<Uint8Array>, boundary: string) => {
  const parts: Array<{ name?: string; filename?: string; type?: string; data: Uint8Array }> = []
  for await (const part of readMultipart(stream, boundary)) {
    const chunks: Array<Uint8Array> = []
    for await (const chunk of part.body) chunks.push(chunk)
    parts.push({
      ...(part.name === undefined ? {} : { name: part.name }),
      ...(part.filename === undefined ? {} : { filename: part.filename }),
      ...(part.contentType === undefined ? {} : { type: part.contentType }),
      data: concatBytes(chunks)
    })
  }
  return parts
}

describe("readMultipart", () => {
  it("reads the same parts whatever the chunking, with delimiter look-alikes in the data", async () => {
    const boundary = "----WebKitFormBoundary7d1f"
    // Bytes that start like a delimiter but are not one, and a CR/LF right before the real one.
    const tricky = fc.constantFrom(
      encoder.encode(`\r\n--${boundary.slice(0, 10)}`),
      encoder.encode("\r\n--"),
      encoder.encode(`--${boundary}`),
      encoder.encode("\r\n\r\n"),
      encoder.encode("\r")
    )
    const data = fc
      .array(fc.oneof(fc.uint8Array({ maxLength: 300 }), tricky), { maxLength: 6 })
      .map((pieces) => concatBytes(pieces))
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ filename: fc.stringMatching(/^[a-z0-9_./-]{1,20}$/), data }), {
          minLength: 1,
          maxLength: 4
        }),
        fc.array(fc.nat({ max: 5000 }), { maxLength: 40 }),
        async (files, cuts) => {
          // A sender picks a boundary that does not occur in its data.
          fc.pre(files.every((file) => indexOf(file.data, encoder.encode(`--${boundary}`)) === -1))
          const specs = files.map((file) => ({ name: "file", filename: file.filename, data: file.data }))
          const parsed = await collect(streamOf(body(boundary, specs), cuts), boundary)
          expect(parsed.map((part) => part.filename)).toEqual(specs.map((spec) => spec.filename))
          expect(parsed.map((part) => part.data)).toEqual(specs.map((spec) => spec.data))
        }
      ),
      { numRuns: 150 }
    )
  })

  it("with release, hands back each chunk it took once every byte of it was read and more asked for", async () => {
    const boundary = "rel"
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 400 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 30 }),
        async (datas, cuts) => {
          fc.pre(datas.every((data) => indexOf(data, encoder.encode(`--${boundary}`)) === -1))
          const specs = datas.map((data, i) => ({ name: "file", filename: `f${i}`, data }))
          const taken: Array<Uint8Array> = []
          const source = streamOf(body(boundary, specs), cuts)
          const reader = source.getReader()
          // Pulled only when read: `taken` is what the reader took.
          const stream = new ReadableStream<Uint8Array>(
            {
              pull: async (controller) => {
                const next = await reader.read()
                if (next.done) return controller.close()
                taken.push(next.value)
                controller.enqueue(next.value)
              }
            },
            { highWaterMark: 0 }
          )
          const released: Array<Uint8Array> = []
          // A released chunk is overwritten, as freed memory would be: a part still reading it would show it.
          const release = (chunk: Uint8Array) => {
            released.push(chunk)
            chunk.fill(0xee)
          }
          const read: Array<Uint8Array> = []
          for await (const part of readMultipart(stream, boundary, { release })) {
            const copies: Array<Uint8Array> = []
            for await (const chunk of part.body) copies.push(chunk.slice())
            read.push(concatBytes(copies))
          }
          expect(read).toEqual(datas)
          // Every chunk but the last it took, in order, once.
          expect(released).toEqual(taken.slice(0, -1))
          expect(released.every((chunk, i) => chunk === taken[i])).toBe(true)
        }
      ),
      { numRuns: 150 }
    )
  })

  it("skips preamble and epilogue, keeps content types and empty parts", async () => {
    const parts = await collect(
      streamOf(
        body(
          "xyz",
          [
            { name: "file", filename: "a.txt", type: "text/plain", data: encoder.encode("A") },
            { name: "file", filename: "empty", data: new Uint8Array() },
            { name: "field", data: encoder.encode("value") }
          ],
          "this is a preamble\r\n",
          "and an epilogue"
        ),
        [3, 40, 41, 90]
      ),
      "xyz"
    )
    expect(parts).toEqual([
      { name: "file", filename: "a.txt", type: "text/plain", data: encoder.encode("A") },
      { name: "file", filename: "empty", data: new Uint8Array() },
      { name: "field", data: encoder.encode("value") }
    ])
  })

  it("decodes percent-encoded, quoted and RFC 5987 file names", async () => {
    const raw = encoder.encode(
      [
        "--b",
        'Content-Disposition: form-data; name="file"; filename="dir%2Fa%20b.txt"',
        "",
        "1",
        "--b",
        'Content-Disposition: form-data; name="file"; filename="x.txt"; filename*=UTF-8\'\'caf%C3%A9.txt',
        "",
        "2",
        "--b",
        'Content-Disposition: form-data; name="file"; filename="say \\"hi\\".txt"',
        "",
        "3",
        "--b--"
      ].join("\r\n")
    )
    const parts = await collect(streamOf(raw), "b")
    expect(parts.map((part) => part.filename)).toEqual(["dir/a b.txt", "café.txt", 'say "hi".txt'])
    expect(parts.map((part) => decoder.decode(part.data))).toEqual(["1", "2", "3"])
  })

  it("parts left unread are skipped, and a body is readable once", async () => {
    const stream = streamOf(
      body("q", [
        { name: "file", filename: "one", data: new Uint8Array(10_000).fill(1) },
        { name: "file", filename: "two", data: encoder.encode("second") }
      ]),
      [100, 200, 5000]
    )
    const seen: Array<string> = []
    for await (const part of readMultipart(stream, "q")) {
      seen.push(part.filename!)
      if (part.filename === "one") {
        // Read one chunk, then stop early.
        for await (const _ of part.body) break
        expect(() => part.body[Symbol.asyncIterator]()).toThrow(MultipartError)
      } else {
        const chunks: Array<Uint8Array> = []
        for await (const chunk of part.body) chunks.push(chunk)
        expect(decoder.decode(concatBytes(chunks))).toBe("second")
      }
    }
    expect(seen).toEqual(["one", "two"])
  })

  it("fails on truncated or boundary-less bodies", async () => {
    const whole = body("t", [{ name: "file", filename: "f", data: encoder.encode("data") }])
    await expect(collect(streamOf(whole.slice(0, whole.length - 12)), "t")).rejects.toThrow(
      "multipart body ended inside a part"
    )
    await expect(collect(streamOf(encoder.encode("no boundary at all")), "t")).rejects.toThrow(
      "no multipart boundary found"
    )
    await expect(collect(streamOf(encoder.encode("--t\r\nBroken header\r\n\r\nx\r\n--t--")), "t")).rejects.toThrow(
      "malformed part header"
    )
  })

  it("boundaryOf and indexOf", () => {
    expect(boundaryOf("multipart/form-data; boundary=----WebKitFormBoundaryabc")).toBe("----WebKitFormBoundaryabc")
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="quoted value"')).toBe("quoted value")
    expect(boundaryOf("application/json")).toBeUndefined()
    expect(boundaryOf("multipart/form-data")).toBeUndefined()
    expect(boundaryOf(null)).toBeUndefined()
    expect(indexOf(encoder.encode("aaab"), encoder.encode("ab"))).toBe(2)
    expect(indexOf(encoder.encode("abc"), encoder.encode("abcd"))).toBe(-1)
    expect(indexOf(encoder.encode("xyxyz"), encoder.encode("xyz"), 1)).toBe(2)
  })
})
