/**
 * A streamed `multipart/form-data` body (RFC 7578): what the provider's upload node takes.
 *
 * The body is an Effect `Stream` built part by part, each part's content opened only when the
 * transport has pulled the previous one through, so memory does not grow with the upload and a
 * folder of many files keeps one file open at a time (the provider opened them all up-front).
 * The boundary is crypto-random (the provider's came from `Math.random`). Names are
 * percent-escaped where they would break the header (`%`, `"`, `\`, CR, LF), as kubo's own
 * client does and its server undoes. When every part's size is known the body's length is too.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** One `file` part. */
export interface Part<E> {
  /** The part's `filename`: a name, or a path inside a folder. */
  readonly name: string
  /** Content length in bytes, when known. */
  readonly size: number | undefined
  /** The content, opened when the part's turn comes. */
  readonly content: Stream.Stream<Uint8Array, E>
  /** The content as a `Blob`, when it is one already (a `File`, bytes): sent as is by {@link blobBody}. */
  readonly blob?: (() => Blob) | undefined
  /**
   * The content read once more from its source (a file on disk, a `Blob`, bytes), when it can be
   * without keeping it: what a `CidMismatch` hashes again to tell the node's layout.
   */
  readonly readAgain?: (() => Stream.Stream<Uint8Array, E>) | undefined
}

const encoder = new TextEncoder()
const CRLF = encoder.encode("\r\n")

/** A fresh boundary: 16 random bytes in hex, behind a fixed prefix. */
export const makeBoundary = (): string => {
  const random = crypto.getRandomValues(new Uint8Array(16))
  return `----LighthouseEffect${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`
}

/** The request's `Content-Type` for `boundary`. */
export const contentType = (boundary: string): string => `multipart/form-data; boundary=${boundary}`

/** A name made safe for a quoted `filename` parameter; the node percent-decodes it. */
export const escapeName = (name: string): string =>
  name.replace(/[%"\\\r\n]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)

/** The delimiter and headers in front of a part's content. */
export const partHead = (boundary: string, name: string): Uint8Array =>
  encoder.encode(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="file"; filename="${escapeName(name)}"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n"
  )

/** The close delimiter. */
export const closing = (boundary: string): Uint8Array => encoder.encode(`--${boundary}--\r\n`)

/** The parts' content in bytes (the framing around it not counted), when every part's size is known. */
export const contentLength = (parts: ReadonlyArray<Part<unknown>>): number | undefined => {
  let total = 0
  for (const part of parts) {
    if (part.size === undefined) return undefined
    total += part.size
  }
  return total
}

/** The body's length in bytes, when every part's size is known. */
export const bodyLength = (boundary: string, parts: ReadonlyArray<Part<unknown>>): number | undefined => {
  const content = contentLength(parts)
  if (content === undefined) return undefined
  let framing = closing(boundary).length
  for (const part of parts) framing += partHead(boundary, part.name).length + CRLF.length
  return framing + content
}

/** The body: each part's head, content and CRLF in turn, then the close delimiter. */
export const body = <E>(boundary: string, parts: ReadonlyArray<Part<E>>): Stream.Stream<Uint8Array, E> =>
  Stream.fromIterable(parts).pipe(
    Stream.flatMap((part) =>
      Stream.make(partHead(boundary, part.name)).pipe(Stream.concat(part.content), Stream.concat(Stream.make(CRLF)))
    ),
    Stream.concat(Stream.suspend(() => Stream.make(closing(boundary))))
  )

/** Bytes in memory as a stream of `chunkSize` views (no copies), so progress moves as they go. */
export const chunked = (bytes: Uint8Array, chunkSize = 64 * 1024): Stream.Stream<Uint8Array> =>
  Stream.suspend(() => {
    const views: Array<Uint8Array> = []
    for (let offset = 0; offset < bytes.length; offset += chunkSize) {
      views.push(bytes.subarray(offset, Math.min(bytes.length, offset + chunkSize)))
    }
    return Stream.fromIterable(views)
  })

/**
 * The body as one `Blob`, for runtimes whose `fetch` cannot send a stream (Firefox, Safari, and
 * Chromium over HTTP/1.1): `File`s and bytes go in as they are (a browser sends a `File` from
 * disk without reading it into memory); other content is read into memory first. With it, the
 * parts' content in bytes.
 */
export const blobBody = <E>(
  boundary: string,
  parts: ReadonlyArray<Part<E>>
): Effect.Effect<{ readonly blob: Blob; readonly contentLength: number }, E> =>
  Effect.gen(function* () {
    const pieces: Array<BlobPart> = []
    let contentLength = 0
    for (const part of parts) {
      const content = part.blob?.() ?? ((yield* Stream.mkUint8Array(part.content)) as Uint8Array<ArrayBuffer>)
      contentLength += content instanceof Blob ? content.size : content.length
      pieces.push(partHead(boundary, part.name) as Uint8Array<ArrayBuffer>, content, CRLF as Uint8Array<ArrayBuffer>)
    }
    pieces.push(closing(boundary) as Uint8Array<ArrayBuffer>)
    // No `type`: Blob types are lower-cased, the boundary is not; the request's Content-Type says it.
    return { blob: new Blob(pieces), contentLength }
  })
