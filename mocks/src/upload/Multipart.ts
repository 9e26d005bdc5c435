/**
 * A streaming `multipart/form-data` reader (RFC 7578 / RFC 2046 §5.1).
 *
 * The body is read incrementally from a `ReadableStream`: each part's bytes are handed on as they
 * arrive, and only a delimiter's worth of bytes is held back between chunks, so memory does not
 * grow with the size of the upload. Parts must be consumed in order; asking for the next part
 * skips whatever the caller left unread in the current one.
 */

/** One part of the form. `body` may be iterated once. */
export interface Part {
  /** Header names lower-cased. */
  readonly headers: ReadonlyMap<string, string>
  /** `name` of `Content-Disposition`. */
  readonly name: string | undefined
  /** `filename` (or RFC 5987 `filename*`) of `Content-Disposition`, percent-decoded. */
  readonly filename: string | undefined
  readonly contentType: string | undefined
  readonly body: AsyncIterable<Uint8Array>
}

export class MultipartError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "MultipartError"
  }
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const CRLF = encoder.encode("\r\n")
const HEADER_END = encoder.encode("\r\n\r\n")
const MAX_HEADER_BYTES = 16 * 1024

/** The boundary of a `multipart/form-data` content type, or `undefined`. */
export const boundaryOf = (contentType: string | null): string | undefined => {
  if (contentType === null || !/^multipart\/form-data\s*(;|$)/i.test(contentType.trim())) return undefined
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  const boundary = match?.[1] ?? match?.[2]
  return boundary !== undefined && boundary.length > 0 && boundary.length <= 200 ? boundary : undefined
}

/** Index of `needle` in `haystack` from `from`, or -1. */
export const indexOf = (haystack: Uint8Array, needle: Uint8Array, from = 0): number => {
  const first = needle[0]!
  const last = haystack.length - needle.length
  let at = haystack.indexOf(first, from)
  while (at !== -1 && at <= last) {
    let i = 1
    while (i < needle.length && haystack[at + i] === needle[i]) i++
    if (i === needle.length) return at
    at = haystack.indexOf(first, at + 1)
  }
  return -1
}

const decodeName = (value: string): string => {
  // Browsers and kubo's Go client percent-encode some characters; the provider's SDK sends raw names.
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** Parses `Content-Disposition` parameters (quoted or token values, RFC 5987 `*` forms). */
const dispositionParams = (value: string): Map<string, string> => {
  const params = new Map<string, string>()
  const pattern = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g
  for (let match = pattern.exec(value); match !== null; match = pattern.exec(value)) {
    const name = match[1]!.toLowerCase()
    const quoted = match[2]
    const raw = quoted === undefined ? (match[3] ?? "").trim() : quoted.replace(/\\(.)/g, "$1")
    if (name.endsWith("*")) {
      // charset'language'percent-encoded
      const star = /^([^']*)'[^']*'(.*)$/.exec(raw)
      params.set(name.slice(0, -1), decodeName(star?.[2] ?? raw))
      params.set(name, "")
    } else if (!params.has(name)) {
      params.set(name, name === "filename" ? decodeName(raw) : raw)
    }
  }
  return params
}

const parseHeaders = (block: Uint8Array): Map<string, string> => {
  const headers = new Map<string, string>()
  for (const line of decoder.decode(block).split("\r\n")) {
    if (line === "") continue
    const colon = line.indexOf(":")
    if (colon <= 0) throw new MultipartError(`malformed part header: ${JSON.stringify(line.slice(0, 80))}`)
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  return headers
}

/**
 * Reads the parts of a multipart body as they arrive. Throws `MultipartError` on a malformed body
 * (including a body that ends before its closing delimiter).
 */
export async function* readMultipart(body: ReadableStream<Uint8Array>, boundary: string): AsyncGenerator<Part> {
  const reader = body.getReader()
  // Every delimiter, the first included, is matched as CRLF "--" boundary: seeding the buffer with
  // a CRLF lets a body that starts directly with "--boundary" match too.
  const delimiter = encoder.encode(`\r\n--${boundary}`)
  let buffer: Uint8Array = CRLF.slice()
  let done = false

  const pull = async (): Promise<boolean> => {
    if (done) return false
    const next = await reader.read()
    if (next.done) {
      done = true
      return false
    }
    if (next.value.byteLength === 0) return true
    if (buffer.byteLength === 0) {
      buffer = next.value
      return true
    }
    const joined = new Uint8Array(buffer.byteLength + next.value.byteLength)
    joined.set(buffer)
    joined.set(next.value, buffer.byteLength)
    buffer = joined
    return true
  }

  // Ensures at least `n` bytes are buffered (or the stream ended).
  const fill = async (n: number) => {
    while (buffer.byteLength < n && (await pull())) {}
  }

  try {
    // Skip the preamble, up to and including the first delimiter.
    for (;;) {
      const at = indexOf(buffer, delimiter)
      if (at !== -1) {
        buffer = buffer.subarray(at + delimiter.byteLength)
        break
      }
      // Keep a possible partial delimiter at the end.
      buffer = buffer.subarray(Math.max(0, buffer.byteLength - delimiter.byteLength + 1))
      if (!(await pull())) throw new MultipartError("no multipart boundary found in the body")
    }

    for (;;) {
      await fill(2)
      if (buffer[0] === 0x2d && buffer[1] === 0x2d) return // "--": close delimiter
      // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
      for (;;) {
        const eol = indexOf(buffer, CRLF)
        if (eol !== -1) {
          if (!/^[ \t]*$/.test(decoder.decode(buffer.subarray(0, eol)))) {
            throw new MultipartError("unexpected bytes after a multipart boundary")
          }
          buffer = buffer.subarray(eol + CRLF.byteLength)
          break
        }
        if (buffer.byteLength > 1024 || !(await pull())) throw new MultipartError("truncated multipart boundary line")
      }

      // Part headers end at an empty line; a part with no headers starts with that CRLF directly.
      let headerBlock: Uint8Array
      for (;;) {
        await fill(2)
        if (buffer[0] === 0x0d && buffer[1] === 0x0a) {
          headerBlock = new Uint8Array()
          buffer = buffer.subarray(2)
          break
        }
        const end = indexOf(buffer, HEADER_END)
        if (end !== -1) {
          headerBlock = buffer.slice(0, end)
          buffer = buffer.subarray(end + HEADER_END.byteLength)
          break
        }
        if (buffer.byteLength > MAX_HEADER_BYTES) throw new MultipartError("multipart part headers too large")
        if (!(await pull())) throw new MultipartError("multipart body ended inside part headers")
      }
      const headers = parseHeaders(headerBlock)
      const disposition = dispositionParams(headers.get("content-disposition") ?? "")

      let finished = false
      let handedOut = false
      async function* partBody(): AsyncGenerator<Uint8Array> {
        for (;;) {
          const at = indexOf(buffer, delimiter)
          if (at !== -1) {
            // A view, not a copy: a buffer is never written once made (`pull` builds a new one).
            const chunk = buffer.subarray(0, at)
            buffer = buffer.subarray(at + delimiter.byteLength)
            finished = true
            if (chunk.byteLength > 0) yield chunk
            return
          }
          // Everything except a possible delimiter prefix at the end is part data.
          const safe = buffer.byteLength - delimiter.byteLength + 1
          if (safe > 0) {
            const chunk = buffer.subarray(0, safe)
            buffer = buffer.subarray(safe)
            yield chunk
          }
          if (!(await pull())) throw new MultipartError("multipart body ended inside a part")
        }
      }
      yield {
        headers,
        name: disposition.get("name"),
        filename: disposition.get("filename"),
        contentType: headers.get("content-type"),
        body: {
          [Symbol.asyncIterator]: () => {
            if (handedOut) throw new MultipartError("a part body can be read only once")
            handedOut = true
            return partBody()
          }
        }
      }
      // Skip what the consumer left unread (it may have stopped early or never started).
      while (!finished) {
        const at = indexOf(buffer, delimiter)
        if (at !== -1) {
          buffer = buffer.subarray(at + delimiter.byteLength)
          finished = true
        } else {
          buffer = buffer.subarray(Math.max(0, buffer.byteLength - delimiter.byteLength + 1))
          if (!(await pull())) throw new MultipartError("multipart body ended inside a part")
        }
      }
    }
  } finally {
    // Whatever follows the close delimiter (an epilogue) or an abandoned body is not read.
    reader.cancel().catch(() => {})
  }
}
