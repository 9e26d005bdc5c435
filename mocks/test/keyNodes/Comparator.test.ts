/** `returnValueTest` comparisons: integers beyond 2^53, decimals, addresses, booleans, arrays, refusals. */
import { describe, expect, it } from "vitest"
import { compare } from "../../src/keyNodes/Comparator.ts"

describe("compare", () => {
  it("compares integers exactly, whatever their form", () => {
    const wei = 10n ** 18n
    expect(compare(wei, ">=", "1000000000000000000")).toBe(true)
    expect(compare(wei - 1n, ">=", "1000000000000000000")).toBe(false)
    // 2^53 + 1 vs 2^53: equal as numbers, different as integers.
    expect(compare(9007199254740993n, ">", "9007199254740992")).toBe(true)
    expect(compare(5n, "==", 5)).toBe(true)
    expect(compare("7", "<", 8)).toBe(true)
    expect(compare(3n, "!=", "3")).toBe(false)
    expect(compare(-2n, "<=", "-2")).toBe(true)
  })

  it("falls back to decimals when a side is not an integer", () => {
    expect(compare(1n, ">", "0.5")).toBe(true)
    expect(compare(2n, "<", 2.5)).toBe(true)
    expect(compare("1e3", "==", 1000)).toBe(true)
  })

  it("compares addresses and other strings case-insensitively, for == and != only", () => {
    const checksummed = "0xF0Bc72fA04aea04d04b1fA80B359Adb566E1c8B1"
    expect(compare(checksummed, "==", checksummed.toLowerCase())).toBe(true)
    expect(compare(checksummed, "!=", "0x0000000000000000000000000000000000000000")).toBe(true)
    expect(compare("abc", ">", "abb")).toBe(false)
  })

  it("compares booleans with booleans or their text", () => {
    expect(compare(true, "==", "true")).toBe(true)
    expect(compare(false, "!=", true)).toBe(true)
    expect(compare(true, ">", false)).toBe(false)
    expect(compare(true, "==", 1)).toBe(false)
  })

  it("compares arrays element by element, or every element with one value", () => {
    expect(compare([1n, 2n], "==", ["1", "2"])).toBe(true)
    expect(compare([1n, 2n], "==", ["1"])).toBe(false)
    expect(compare([1n, 2n], "!=", ["1", "3"])).toBe(true)
    expect(compare([1n, 2n], "!=", ["1", "2"])).toBe(false)
    expect(compare([3n, 4n], ">=", ["3", "5"])).toBe(false)
    expect(compare([3n, 4n], ">", 2)).toBe(true)
    expect(compare([], ">", 2)).toBe(false)
    expect(compare(3n, "==", [3])).toBe(false)
  })

  it("refuses what it cannot compare, and unknown comparators", () => {
    expect(compare(undefined, "==", "0")).toBe(false)
    expect(compare({ a: 1 }, "==", "1")).toBe(false)
    expect(compare(1n, "=" as never, "1")).toBe(false)
    expect(compare("abc", ">=", 1)).toBe(false)
  })
})
