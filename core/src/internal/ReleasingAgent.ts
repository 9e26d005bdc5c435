/**
 * `node:http` and `node:https` agents whose connections free what Node allocated for a response
 * as soon as it is dead ({@link OwnedBytes}), instead of leaving it to V8's full collections.
 *
 * Node gives every socket read a new buffer, and its HTTP parser copies a response's body out of
 * the read into another buffer for the response alone. So:
 *
 * - a plain (`http`) connection reads into one buffer of {@link READ_BYTES}, reused for every
 *   read (Node's `onread`): no memory per read, and reads (so body pieces) up to 4× larger;
 * - on `https` (whose sockets take no `onread`), a read is dead once the socket's `data` listeners
 *   have run (the parser has copied it), unless
 *   the parser let go of the socket during them: an upgrade hands the rest of the read on, an error
 *   or the response's last read may leave it with others. Only reads the socket's own handle made
 *   are freed, never bytes an interceptor pushed into it (msw's mocked sockets push a mock's);
 * - a body piece is marked as the response's own (`markOwned`), for the last reader of the
 *   response's stream to free once done with it (`releaseOwned`: the download's file writer).
 *
 * Measured on a GiB download into a file (`BENCHMARKS.md`, "Against the wire"): about half of the
 * process's CPU was those collections.
 *
 * @internal
 */
import * as Http from "node:http"
import * as Https from "node:https"
import type * as Net from "node:net"
import type * as Stream from "node:stream"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { freeBytes, markOwned } from "./OwnedBytes.ts"

/** A stream handle as Node's sockets have it: `onread` receives each read's memory. */
interface ReadingHandle {
  onread: (this: unknown, buffer: unknown, ...rest: ReadonlyArray<unknown>) => unknown
}

/** What the HTTP client sets on a socket it parses (`null` once it let go of it). */
type ParsedSocket = Net.Socket & { readonly _handle?: unknown; readonly parser?: unknown }

const watchedHandles = new WeakSet<object>()

/** Records each read's memory as the handle makes it, in `reads`. */
const watchReads = (handle: unknown, reads: WeakSet<ArrayBuffer>) => {
  if (typeof handle !== "object" || handle === null || watchedHandles.has(handle)) return
  const reading = handle as ReadingHandle
  if (typeof reading.onread !== "function") return
  watchedHandles.add(handle)
  const onread = reading.onread
  reading.onread = function (buffer, ...rest) {
    if (buffer instanceof ArrayBuffer) reads.add(buffer)
    return onread.call(this, buffer, ...rest)
  }
}

/** Frees each read of `socket` its handle made, once its `data` listeners ran with the parser still on. */
const releaseReads = <S extends Stream.Duplex | null | undefined>(duplex: S): S => {
  const socket = duplex as ParsedSocket | null | undefined
  if (socket === null || socket === undefined) return duplex
  const reads = new WeakSet<ArrayBuffer>()
  // The handle is final once connected (trying several addresses makes one per attempt).
  watchReads(socket._handle, reads)
  socket.once("connect", () => watchReads(socket._handle, reads))
  const emit = socket.emit as (this: ParsedSocket, event: string | symbol, ...args: Array<unknown>) => boolean
  socket.emit = function (this: ParsedSocket, event: string | symbol, ...args: Array<unknown>) {
    const handled = emit.call(this, event, ...args)
    const chunk = args[0]
    if (event === "data" && chunk instanceof Uint8Array && reads.has(chunk.buffer as ArrayBuffer)) {
      if (this.parser !== null && this.parser !== undefined) freeBytes(chunk)
    }
    return handled
  } as typeof socket.emit
  return duplex
}

/** Marks every body piece of the response to `request` as its own, for its last reader to free. */
const markBody = (request: Http.ClientRequest) =>
  request.once("response", (response: Http.IncomingMessage) => {
    const push = response.push
    response.push = function (this: Http.IncomingMessage, chunk: unknown, encoding?: BufferEncoding) {
      return push.call(this, chunk instanceof Uint8Array ? markOwned(chunk) : chunk, encoding)
    }
  })

type AddRequest = (request: Http.ClientRequest, ...rest: ReadonlyArray<unknown>) => void

/** Bytes a plain connection reads at a time, into one buffer reused for every read. */
export const READ_BYTES = 256 * 1024

/**
 * Node's `onread` for a socket (`net.Socket`'s option; `tls` has none): every read lands in one
 * buffer, handed to the socket's `data` listeners as Node would hand its own read, and reused for
 * the next read when the HTTP parser was on the socket throughout (it has copied the body out).
 * Otherwise (an idle socket, an upgrade handing the rest of a read on) the next read gets a fresh
 * buffer, as without `onread`. Larger reads than Node's 64 KiB mean fewer, larger body pieces.
 */
const reusedReads = (socketOf: () => ParsedSocket | undefined) => {
  let buffer = Buffer.allocUnsafeSlow(READ_BYTES)
  return {
    buffer: () => buffer,
    callback: (read: number, into: Uint8Array) => {
      const socket = socketOf()
      if (socket === undefined) return true
      const parsed = socket.parser !== null && socket.parser !== undefined
      socket.emit("data", Buffer.from(into.buffer, into.byteOffset, read))
      if (!parsed || socket.parser === null || socket.parser === undefined) buffer = Buffer.allocUnsafeSlow(READ_BYTES)
      return true
    }
  }
}

class ReleasingHttpAgent extends Http.Agent {
  override createConnection(...[options, ...rest]: Parameters<Http.Agent["createConnection"]>) {
    let socket: ParsedSocket | undefined
    const onread = reusedReads(() => socket)
    const created = super.createConnection({ ...options, onread } as Http.ClientRequestArgs, ...rest)
    socket = (created ?? undefined) as ParsedSocket | undefined
    return created
  }
}

class ReleasingHttpsAgent extends Https.Agent {
  override createConnection(...args: Parameters<Https.Agent["createConnection"]>) {
    return releaseReads(super.createConnection(...args))
  }
}

// `addRequest` is Node's, public in behaviour though not in its types: every request an agent serves passes it.
for (const Agent of [ReleasingHttpAgent, ReleasingHttpsAgent]) {
  const prototype = Agent.prototype as unknown as { addRequest: AddRequest }
  const addRequest = prototype.addRequest
  prototype.addRequest = function (request, ...rest) {
    markBody(request)
    return addRequest.call(this, request, ...rest)
  }
}

const acquired = <A extends Http.Agent>(make: () => A) =>
  Effect.acquireRelease(Effect.sync(make), (agent) => Effect.sync(() => agent.destroy()))

/** `NodeHttpClient.HttpAgent` with the releasing agents, destroyed with the layer. */
export const layerReleasingAgent: Layer.Layer<NodeHttpClient.HttpAgent> = Layer.effect(
  NodeHttpClient.HttpAgent,
  Effect.zipWith(
    acquired(() => new ReleasingHttpAgent()),
    acquired(() => new ReleasingHttpsAgent()),
    (http, https) => ({ http, https })
  )
)
