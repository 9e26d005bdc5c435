/**
 * A streaming `multipart/form-data` reader (RFC 7578 / RFC 2046 §5.1).
 *
 * The body is read incrementally from a `ReadableStream`: each part's bytes are handed on as they
 * arrive, as views of the body's own chunks (no copies), and only a delimiter's worth of bytes is
 * held back between chunks, so memory does not grow with the size of the upload. Parts must be
 * consumed in order; asking for the next part skips whatever the caller left unread in the
 * current one.
 */

/**
 * One part of the form. `body` may be iterated once; given a `release` ({@link readMultipart}),
 * each of its chunks is good only until the next one is asked for (or the part is left).
 */
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

export interface MultipartOptions {
  /** The request's signal: reading throws its reason once it aborts. */
  readonly signal?: AbortSignal | undefined
  /**
   * Called with each chunk of the body once every byte of it was handed on and the part's reader
   * asked for more, so the chunk may be freed. Only for readers that keep no chunk of a part
   * beyond asking for the next one (they copy what they keep).
   */
  readonly release?: ((chunk: Uint8Array) => void) | undefined
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const CRLF = encoder.encode("\r\n")
const HEADER_END = encoder.encode("\r\n\r\n")
const MAX_HEADER_BYTES = 16 * 1024
/** The most bytes read between two turns of the event loop (see {@link DelimitedReader.pull}). */
const BYTES_PER_TURN = 64 * 1024

/** The event loop's next turn (a macrotask): timers and I/O callbacks run before it resolves. */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => (typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0)))

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
 * The body's bytes as they arrive, with the multipart delimiter to look for. Holds back at most a
 * delimiter's worth of bytes (or one part's headers) between chunks.
 */
class DelimitedReader {
  // Every delimiter, the first included, is matched as CRLF "--" boundary: seeding the buffer with
  // a CRLF lets a body that starts directly with "--boundary" match too.
  private buffer: Uint8Array = CRLF.slice()
  private ended = false
  /** What the stream gave and `pull` has not taken yet. */
  private pending: Uint8Array = new Uint8Array()
  /** The stream's chunk `pending` is part of. */
  private chunk: Uint8Array | undefined
  private sinceTurn = 0
  readonly delimiter: Uint8Array

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    boundary: string,
    private readonly options: MultipartOptions
  ) {
    this.delimiter = encoder.encode(`\r\n--${boundary}`)
  }

  /**
   * Appends the next piece of the body, at most {@link BYTES_PER_TURN} bytes; false once the
   * stream has ended. Throws the signal's reason once the client has gone away.
   *
   * A server reads a socket in I/O callbacks, a few KiB per turn of the event loop. A body sent in
   * the same process (msw) may be in memory whole, even as one chunk: read in one chain of
   * promises, it would hold the loop until the upload is imported, and the client's timers
   * (`AbortSignal.timeout`) could not fire before the answer. So the body is taken in pieces, and
   * the loop gets a turn between them.
   */
  async pull(): Promise<boolean> {
    const { signal } = this.options
    signal?.throwIfAborted()
    if (this.sinceTurn >= BYTES_PER_TURN) {
      this.sinceTurn = 0
      await nextTurn()
      signal?.throwIfAborted()
    }
    let finished: Uint8Array | undefined
    if (this.pending.byteLength === 0) {
      if (this.ended) return false
      const next = await this.reader.read()
      if (next.done) {
        this.ended = true
        return false
      }
      finished = this.chunk
      this.chunk = next.value
      this.pending = next.value
    }
    const piece = this.pending.subarray(0, BYTES_PER_TURN)
    this.pending = this.pending.subarray(piece.byteLength)
    this.sinceTurn += piece.byteLength
    this.append(piece)
    // The buffer no longer views the previous chunk (it was empty, or is a copy now), and the
    // part's reader asked for more: nobody holds that chunk any longer.
    if (finished !== undefined) this.options.release?.(finished)
    return true
  }

  private append(piece: Uint8Array): void {
    // A part's bytes leave the buffer whole unless they may end in the start of a delimiter, so
    // the buffer is mostly empty here and the piece is taken as it came, not copied.
    if (this.buffer.byteLength === 0) {
      this.buffer = piece
      return
    }
    const joined = new Uint8Array(this.buffer.byteLength + piece.byteLength)
    joined.set(this.buffer)
    joined.set(piece, this.buffer.byteLength)
    this.buffer = joined
  }

  /** Where the buffer's longest end that could be the start of a delimiter begins; its length if none. */
  private partialDelimiterAt(): number {
    const { buffer, delimiter } = this
    let at = buffer.indexOf(delimiter[0]!, Math.max(0, buffer.byteLength - delimiter.byteLength + 1))
    while (at !== -1) {
      let i = 1
      while (at + i < buffer.byteLength && buffer[at + i] === delimiter[i]) i++
      if (at + i === buffer.byteLength) return at
      at = buffer.indexOf(delimiter[0]!, at + 1)
    }
    return buffer.byteLength
  }

  /** Ensures at least `n` bytes are buffered (or the stream ended). */
  async fill(n: number): Promise<void> {
    while (this.buffer.byteLength < n && (await this.pull())) {}
  }

  startsWith(a: number, b: number): boolean {
    return this.buffer[0] === a && this.buffer[1] === b
  }

  /** Drops everything up to and including the next delimiter; `ended` is thrown if there is none. */
  async skipPastDelimiter(ended: string): Promise<void> {
    for (;;) {
      const at = indexOf(this.buffer, this.delimiter)
      if (at !== -1) {
        this.buffer = this.buffer.subarray(at + this.delimiter.byteLength)
        return
      }
      // Keep a possible partial delimiter at the end.
      this.buffer = this.buffer.subarray(Math.max(0, this.buffer.byteLength - this.delimiter.byteLength + 1))
      if (!(await this.pull())) throw new MultipartError(ended)
    }
  }

  /** The rest of a boundary line: transport padding (spaces, tabs) may come before its CRLF. */
  async skipBoundaryLine(): Promise<void> {
    for (;;) {
      const eol = indexOf(this.buffer, CRLF)
      if (eol !== -1) {
        if (!/^[ \t]*$/.test(decoder.decode(this.buffer.subarray(0, eol)))) {
          throw new MultipartError("unexpected bytes after a multipart boundary")
        }
        this.buffer = this.buffer.subarray(eol + CRLF.byteLength)
        return
      }
      if (this.buffer.byteLength > 1024 || !(await this.pull())) {
        throw new MultipartError("truncated multipart boundary line")
      }
    }
  }

  /** A part's header block, up to the empty line; a part with no headers starts with that CRLF. */
  async readHeaderBlock(): Promise<Uint8Array> {
    for (;;) {
      await this.fill(2)
      if (this.startsWith(0x0d, 0x0a)) {
        this.buffer = this.buffer.subarray(2)
        return new Uint8Array()
      }
      const end = indexOf(this.buffer, HEADER_END)
      if (end !== -1) {
        const block = this.buffer.slice(0, end)
        this.buffer = this.buffer.subarray(end + HEADER_END.byteLength)
        return block
      }
      if (this.buffer.byteLength > MAX_HEADER_BYTES) throw new MultipartError("multipart part headers too large")
      if (!(await this.pull())) throw new MultipartError("multipart body ended inside part headers")
    }
  }

  /**
   * A part's bytes up to the next delimiter, as they arrive; `onEnd` once the delimiter is passed.
   * They are views of the body's own chunks, not copies: a copy of every byte would be garbage as
   * fast as the upload comes in, and the collector lets tens of MiB of it pile up between runs.
   */
  async *partBody(onEnd: () => void): AsyncGenerator<Uint8Array> {
    for (;;) {
      const at = indexOf(this.buffer, this.delimiter)
      if (at !== -1) {
        const chunk = this.buffer.subarray(0, at)
        this.buffer = this.buffer.subarray(at + this.delimiter.byteLength)
        onEnd()
        if (chunk.byteLength > 0) yield chunk
        return
      }
      // Everything before a possible start of the delimiter at the end is part data.
      const safe = this.partialDelimiterAt()
      if (safe > 0) {
        const chunk = this.buffer.subarray(0, safe)
        this.buffer = this.buffer.subarray(safe)
        yield chunk
      }
      if (!(await this.pull())) throw new MultipartError("multipart body ended inside a part")
    }
  }
}

/** One part whose body reads from `source` once; `finished` tells whether its delimiter was passed. */
const partOf = (source: DelimitedReader, headerBlock: Uint8Array) => {
  const headers = parseHeaders(headerBlock)
  const disposition = dispositionParams(headers.get("content-disposition") ?? "")
  const state = { finished: false, handedOut: false }
  const part: Part = {
    headers,
    name: disposition.get("name"),
    filename: disposition.get("filename"),
    contentType: headers.get("content-type"),
    body: {
      [Symbol.asyncIterator]: () => {
        if (state.handedOut) throw new MultipartError("a part body can be read only once")
        state.handedOut = true
        return source.partBody(() => {
          state.finished = true
        })
      }
    }
  }
  return { part, state }
}

/**
 * Reads the parts of a multipart body as they arrive. Throws `MultipartError` on a malformed body
 * (including a body that ends before its closing delimiter), and the reason of `options.signal`
 * (the request's) once it aborts.
 */
export async function* readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  options: MultipartOptions = {}
): AsyncGenerator<Part> {
  const reader = body.getReader()
  const source = new DelimitedReader(reader, boundary, options)
  try {
    // The preamble, up to and including the first delimiter.
    await source.skipPastDelimiter("no multipart boundary found in the body")
    for (;;) {
      await source.fill(2)
      if (source.startsWith(0x2d, 0x2d)) return // "--": the close delimiter
      await source.skipBoundaryLine()
      const { part, state } = partOf(source, await source.readHeaderBlock())
      yield part
      // Skip what the consumer left unread (it may have stopped early or never started).
      if (!state.finished) await source.skipPastDelimiter("multipart body ended inside a part")
    }
  } finally {
    // Whatever follows the close delimiter (an epilogue) or an abandoned body is not read.
    reader.cancel().catch(() => {})
  }
}
