/**
 * `Content-Disposition` for `?filename=`: a plain ASCII name as it is, any other name with a
 * printable-ASCII fallback and its exact UTF-8 bytes in RFC 8187's `filename*=` form.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { contentDisposition, requestedFilename } from "../../src/http/ContentDisposition.ts"

const parts = (header: string) => {
  const match = /^attachment; filename="((?:[^"\\]|\\.)*)"(?:; filename\*=UTF-8''(.*))?$/.exec(header)
  expect(match, header).not.toBeNull()
  return { fallback: match![1]!.replace(/\\(.)/g, "$1"), extended: match![2] }
}

describe("contentDisposition", () => {
  it("writes the conformance suite's example and a plain name as kubo does", () => {
    expect(contentDisposition("testтест.ipns-record")).toBe(
      `attachment; filename="test____.ipns-record"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.ipns-record`
    )
    expect(contentDisposition("foobar.bin")).toBe('attachment; filename="foobar.bin"')
    expect(contentDisposition('a "b"\\c.txt')).toBe('attachment; filename="a \\"b\\"\\\\c.txt"')
  })

  it("keeps every name: the fallback is printable ASCII, the extended form decodes to the name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1 }), (name) => {
        const { fallback, extended } = parts(contentDisposition(name))
        expect(fallback).toMatch(/^[\x20-\x7e]*$/)
        expect(Array.from(fallback).length).toBe(Array.from(name).length)
        if (/^[\x20-\x7e]*$/.test(name)) {
          expect(extended).toBeUndefined()
          expect(fallback).toBe(name)
        } else {
          expect(extended).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]*$/)
          expect(decodeURIComponent(extended!)).toBe(name)
        }
      })
    )
  })

  it("takes ?filename= when given, else the default", () => {
    expect(requestedFilename(new URL("http://g/ipfs/x?filename=a%20b.bin"), "x.bin")).toBe("a b.bin")
    expect(requestedFilename(new URL("http://g/ipfs/x?filename="), "x.bin")).toBe("x.bin")
    expect(requestedFilename(new URL("http://g/ipfs/x"), "x.bin")).toBe("x.bin")
  })
})
