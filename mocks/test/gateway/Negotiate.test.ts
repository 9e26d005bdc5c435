/** Reading a gateway request: format negotiation, `Range` and `entity-bytes`. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { entityRange, negotiateFormat, parseAccept, parseEntityBytes, parseRange } from "../../src/gateway/Negotiate.ts"

const url = (query: string) => new URL(`http://gateway.test/ipfs/bafkqaaa${query}`)

describe("format", () => {
  it("?format= wins over Accept; Accept is read by preference", () => {
    expect(negotiateFormat(url("?format=raw"), "application/vnd.ipld.car")).toEqual({ kind: "raw" })
    expect(
      negotiateFormat(url(""), "text/html, application/vnd.ipld.raw;q=0.5, application/vnd.ipld.car;q=0.9")
    ).toEqual({
      kind: "car",
      options: { duplicates: false, scope: "all", entityBytes: undefined }
    })
    expect(negotiateFormat(url(""), "text/html,*/*")).toEqual({ kind: "deserialized" })
    expect(negotiateFormat(url(""), null)).toEqual({ kind: "deserialized" })
    expect(negotiateFormat(url("?format=ipns-record"), null)).toEqual({ kind: "ipns-record" })
    expect(negotiateFormat(url("?format=tar"), null)).toEqual({
      kind: "refused",
      status: 400,
      message: "unsupported format: tar"
    })
  })

  it("reads CAR parameters from the query first, then from Accept; entity-bytes implies entity scope", () => {
    expect(negotiateFormat(url("?format=car&car-dups=y"), "application/vnd.ipld.car; dups=n")).toMatchObject({
      options: { duplicates: true }
    })
    expect(negotiateFormat(url(""), "application/vnd.ipld.car; order=dfs; dups=y")).toMatchObject({
      options: { duplicates: true }
    })
    expect(negotiateFormat(url("?format=car&entity-bytes=0:*"), null)).toMatchObject({
      options: { scope: "entity", entityBytes: { from: 0, to: "*" } }
    })
    expect(negotiateFormat(url(""), "application/vnd.ipld.car; order=random")).toMatchObject({ status: 400 })
  })

  it("drops media ranges with q=0", () => {
    expect(parseAccept("application/vnd.ipld.raw;q=0, text/plain").map((range) => range.type)).toEqual(["text/plain"])
  })
})

describe("Range", () => {
  it("reads a single bytes range as [start, end)", () => {
    expect(parseRange(null, 100)).toEqual({ kind: "whole" })
    expect(parseRange("bytes=0-9", 100)).toEqual({ kind: "part", start: 0, end: 10 })
    expect(parseRange("bytes=90-", 100)).toEqual({ kind: "part", start: 90, end: 100 })
    expect(parseRange("bytes=-30", 100)).toEqual({ kind: "part", start: 70, end: 100 })
    expect(parseRange("bytes=-300", 100)).toEqual({ kind: "part", start: 0, end: 100 })
    expect(parseRange("bytes=50-500", 100)).toEqual({ kind: "part", start: 50, end: 100 })
    expect(parseRange("bytes=100-", 100)).toEqual({ kind: "unsatisfiable" })
    expect(parseRange("bytes=-0", 100)).toEqual({ kind: "unsatisfiable" })
    // Several ranges, other units and malformed headers: the whole entity.
    expect(parseRange("bytes=0-1,5-6", 100)).toEqual({ kind: "whole" })
    expect(parseRange("items=0-1", 100)).toEqual({ kind: "whole" })
    expect(parseRange("bytes=9-3", 100)).toEqual({ kind: "whole" })
  })

  it("always lands inside the entity", () => {
    fc.assert(
      fc.property(fc.nat(1_000), fc.nat(1_000), fc.integer({ min: 1, max: 1_000 }), (a, b, size) => {
        const range = parseRange(`bytes=${a}-${b}`, size)
        if (range.kind === "part") {
          expect(range.start).toBe(a)
          expect(range.end).toBeLessThanOrEqual(size)
          expect(range.end).toBeGreaterThan(range.start)
        } else expect(range.kind === "unsatisfiable" ? a >= size : b < a).toBe(true)
      })
    )
  })
})

describe("entity-bytes", () => {
  it("parses from:to with negatives and *", () => {
    expect(parseEntityBytes("0:*")).toEqual({ from: 0, to: "*" })
    expect(parseEntityBytes("-1024:*")).toEqual({ from: -1024, to: "*" })
    expect(parseEntityBytes("499:-1000")).toEqual({ from: 499, to: -1000 })
    expect(parseEntityBytes("a:b")).toEqual({ kind: "refused", status: 400, message: "invalid entity-bytes: a:b" })
  })

  it("resolves against the entity size, inclusive bounds", () => {
    expect(entityRange({ from: 0, to: "*" }, 10)).toEqual({ start: 0, end: 10 })
    expect(entityRange({ from: 2, to: 4 }, 10)).toEqual({ start: 2, end: 5 })
    expect(entityRange({ from: -3, to: "*" }, 10)).toEqual({ start: 7, end: 10 })
    expect(entityRange({ from: 1, to: -2 }, 10)).toEqual({ start: 1, end: 9 })
    expect(entityRange({ from: 5, to: 100 }, 10)).toEqual({ start: 5, end: 10 })
    expect(entityRange({ from: 10, to: "*" }, 10)).toBeUndefined()
    expect(entityRange({ from: 0, to: "*" }, 0)).toBeUndefined()
  })
})
