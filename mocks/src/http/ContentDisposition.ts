/**
 * `Content-Disposition` as gateways write it (RFC 6266): `filename="…"` with an ASCII fallback, and
 * the RFC 8187 `filename*=UTF-8''…` form beside it when the name is not plain ASCII. Each character
 * outside printable ASCII becomes `_` in the fallback, as kubo (boxo/gateway) writes it, so
 * `testтест` is `test____` there; `"` and `\` are escaped.
 */

const textEncoder = new TextEncoder()

/** Characters RFC 8187's `attr-char` allows unescaped. */
const attrChar = /[A-Za-z0-9!#$&+\-.^_`|~]/

const asciiFallback = (name: string): string =>
  Array.from(name, (c) => (/^[\x20-\x7e]$/.test(c) ? c : "_"))
    .join("")
    .replace(/["\\]/g, (c) => `\\${c}`)

const extValue = (name: string): string =>
  Array.from(textEncoder.encode(name), (byte) => {
    const c = String.fromCharCode(byte)
    return byte < 0x80 && attrChar.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }).join("")

/** `attachment` (or `inline`) naming `filename`; the UTF-8 form only when the name needs it. */
export const contentDisposition = (filename: string, disposition: "attachment" | "inline" = "attachment"): string => {
  const plain = /^[\x20-\x7e]*$/.test(filename)
  const base = `${disposition}; filename="${asciiFallback(filename)}"`
  return plain ? base : `${base}; filename*=UTF-8''${extValue(filename)}`
}

/** The name `?filename=` asks for, else `fallback`. */
export const requestedFilename = (url: URL, fallback: string): string => {
  const given = url.searchParams.get("filename")
  return given === null || given === "" ? fallback : given
}
