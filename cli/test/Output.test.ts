/**
 * `Output.printable`, the one escaping of text meant for a person: whatever a name holds, what is
 * printed holds no control character, reads back to the name, and is the name itself when it held
 * nothing to escape.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { printable } from "../src/Output.ts"

/** What must not reach a terminal raw, by code point (written out here, not taken from the source). */
const isUnsafe = (code: number) =>
  code <= 0x1f ||
  (code >= 0x7f && code <= 0x9f) ||
  (code >= 0xd800 && code <= 0xdfff) ||
  code === 0x061c ||
  code === 0x200e ||
  code === 0x200f ||
  (code >= 0x2028 && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069)

/** Code points of `text`, a lone surrogate as itself. */
const codePoints = (text: string) => Array.from(text, (c) => c.codePointAt(0) ?? 0)

/** Reads escaped text back: `\\`, `\t`, `\n`, `\r`, `\xHH`, `\u{H…}`; anything else is not printable's. */
const unescape = (text: string) =>
  text.replace(/\\(?:(\\)|([tnr])|x([0-9a-f]{2})|u\{([0-9a-f]{4,6})\})/g, (_match, slash, letter, byte, wide) => {
    if (slash !== undefined) return "\\"
    if (letter !== undefined) return { t: "\t", n: "\n", r: "\r" }[letter as "t" | "n" | "r"]
    return String.fromCodePoint(Number.parseInt(byte ?? wide, 16))
  })

/** Names as a server or a disk may hold them: any code point, lone surrogates, and many controls and backslashes. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
      fc.constantFrom("\\", "\\x1b", "\\u{202e}", "\\n", "x", "{", "}", "\u202e", "\u2028", "\u2066", "é", "😀")
    ),
    { maxLength: 40 }
  )
  .map((parts) => parts.join(""))

describe("printable", () => {
  it("escapes an OSC 52 clipboard write, cursor moves and a forged line", () => {
    expect(printable("a\u001b]52;c;aGk=\u0007\u001b[2A\nb  forged")).toBe("a\\x1b]52;c;aGk=\\x07\\x1b[2A\\nb  forged")
    expect(printable("C1 \u009b2J, DEL \u007f, tab\t, cr\r, nul\u0000")).toBe(
      "C1 \\x9b2J, DEL \\x7f, tab\\t, cr\\r, nul\\x00"
    )
    expect(printable("gpj.\u202eexe \u2066x\u2069 \u2028 \ud800")).toBe(
      "gpj.\\u{202e}exe \\u{2066}x\\u{2069} \\u{2028} \\u{d800}"
    )
    expect(printable("C:\\dir\\x1b")).toBe("C:\\\\dir\\\\x1b")
    expect(printable("naïve 😀 名前.txt")).toBe("naïve 😀 名前.txt")
  })

  it("never lets a control character through, and reads back to the text", () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const shown = printable(text)
        expect(codePoints(shown).filter(isUnsafe)).toEqual([])
        expect(unescape(shown)).toBe(text)
      }),
      { numRuns: 2000 }
    )
  })

  it("leaves text with nothing to escape as it is", () => {
    const safe = fc
      .string({ unit: "grapheme", maxLength: 40 })
      .filter((text) => !text.includes("\\") && !codePoints(text).some(isUnsafe))
    fc.assert(fc.property(safe, (text) => printable(text) === text))
  })

  it("is one to one: two names never print the same", () => {
    fc.assert(fc.property(hostileText, hostileText, (a, b) => a === b || printable(a) !== printable(b)))
  })
})
