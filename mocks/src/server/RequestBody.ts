/**
 * An incoming request's body as a Fetch body stream, with the manners of a real server when a
 * handler answers before it has read the whole body (401, 402 past the quota, 413, 5xx).
 *
 * `Readable.toWeb` destroys the request when its stream is cancelled, and Node then resets the
 * connection under the client while it is still sending: the client sees `EPIPE` or
 * `ECONNRESET` and loses the answer. Worse, Node resumes the request once the answer is written
 * and the adapter enqueues into its closed stream, which throws out of an event handler and
 * ends the process. Here a cancelled body is drained instead: the rest of the request is read
 * and dropped for up to {@link LINGER_MS} (as nginx's lingering close does) before the answer
 * ends (Node closes the connection when an answer ends before its request), and the answer is
 * sized so the client has it whole meanwhile and stops sending; a client still sending after
 * that is cut off.
 *
 * @since 0.1.0
 */
import type { IncomingMessage } from "node:http"
import { markOwnedChunk } from "../storage/Release.ts"

/** How long a request body is drained after its handler stopped reading it. */
export const LINGER_MS = 30_000

/** Bytes buffered in the stream before the request is paused. */
const HIGH_WATER_MARK = 256 * 1024

/**
 * Reads and drops the rest of `incoming`; resolves once it has ended or closed, or after
 * `lingerMs` (the client still sending is then cut off by the caller ending the answer).
 */
export const drained = (incoming: IncomingMessage, lingerMs: number = LINGER_MS): Promise<void> =>
  new Promise((resolve) => {
    if (incoming.complete || incoming.destroyed) return resolve()
    const done = () => {
      clearTimeout(cutOff)
      incoming.off("end", done)
      incoming.off("close", done)
      resolve()
    }
    const cutOff = setTimeout(done, lingerMs)
    incoming.once("end", done)
    incoming.once("close", done)
    // Whoever was reading (a body stream the handler left unread) reads no more.
    incoming.removeAllListeners("data")
    incoming.resume()
  })

/**
 * `response` with its whole body read and sized (`Content-Length`): an
 * answer given before the request body ended (a refusal, small) is then complete for the
 * client as soon as its last byte arrives, while the rest of the request is {@link drained}.
 */
export const sized = async (response: Response): Promise<Response> => {
  const body = new Uint8Array(await response.arrayBuffer())
  const headers = new Headers(response.headers)
  headers.set("content-length", String(body.byteLength))
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

/** `incoming`'s body; cancelling it drops the rest as it comes instead of destroying the request. */
export const requestBody = (incoming: IncomingMessage): ReadableStream<Uint8Array> => {
  let open = true
  return new ReadableStream<Uint8Array>(
    {
      start: (controller) => {
        incoming.on("data", (chunk: Buffer) => {
          if (!open) return
          // Read for this request alone: its reader may free it once done (`storage/Release.ts`).
          controller.enqueue(markOwnedChunk(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)))
          if ((controller.desiredSize ?? 0) <= 0) incoming.pause()
        })
        incoming.once("end", () => {
          if (!open) return
          open = false
          controller.close()
        })
        incoming.once("error", (error) => {
          if (!open) return
          open = false
          controller.error(error)
        })
        incoming.once("close", () => {
          if (!open || incoming.complete) return
          open = false
          controller.error(new Error("the client closed the connection before the request body ended"))
        })
        incoming.pause()
      },
      pull: () => {
        incoming.resume()
      },
      cancel: () => {
        // The handler answers without the rest: drop it as it comes (`drained` bounds how long).
        open = false
        incoming.resume()
      }
    },
    { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength }
  )
}
