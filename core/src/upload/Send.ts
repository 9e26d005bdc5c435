/**
 * One multipart upload to the upload node: the headers, the body in the configured
 * {@link BodyMode}, progress, the transfer time-out, and the node's refusals as typed errors.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import {
  type FileStreamError,
  InvalidResponse,
  type NetworkError,
  RequestTimedOut,
  UploadConnectionReset
} from "../Errors.ts"
import { type Hosts, resolvedUrl, uploadNodeOf } from "../internal/Hosts.ts"
import { withBearer } from "../internal/http.ts"
import type { Routes } from "../routes/Routes.ts"
import type { Credential } from "../schema/Credential.ts"
import type { StorageType } from "../schema/Walrus.ts"
import * as Multipart from "./Multipart.ts"
import { BodyMode, type DealParameters, type UploadFailure } from "./Options.ts"
import * as Progress from "./Progress.ts"
import * as Response from "./Response.ts"

/** One upload request, as it goes on the wire: built once per upload, from the operation's own request. */
export interface SendRequest {
  readonly path: typeof Routes.uploadNode.add.path | typeof Routes.uploadNode.dagImport.path
  readonly query?: Readonly<Record<string, string>>
  readonly apiKey: Credential
  readonly encryption: boolean
  readonly mimeType: string | undefined
  readonly dealParameters: DealParameters | null | undefined
  readonly onProgress: Progress.OnProgress | undefined
  readonly parts: ReadonlyArray<Multipart.Part<FileStreamError>>
  /** `walrus`: to the Walrus upload node. Sent as `X-Storage-Type` when given. */
  readonly storageType?: StorageType | undefined
}

/** A body ready to send, with the progress report due once the node has answered. */
interface PreparedBody {
  readonly setBody: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest
  readonly done: Effect.Effect<void>
}

const dealHeader = (deal: DealParameters | null | undefined) =>
  deal === undefined || deal === null ? "null" : JSON.stringify(deal)

/** The whole body as one `Blob`: progress at the start and, once answered, at the end. */
const blobBody = Effect.fnUntraced(function* (boundary: string, request: SendRequest) {
  const { blob, contentLength: totalBytes } = yield* Multipart.blobBody(boundary, request.parts)
  const onProgress = request.onProgress
  if (onProgress !== undefined) yield* Progress.report(onProgress, { bytesSent: 0, totalBytes })
  return {
    setBody: HttpClientRequest.setBody(
      HttpBody.raw(blob, { contentType: Multipart.contentType(boundary), contentLength: blob.size })
    ),
    done: onProgress === undefined ? Effect.void : Progress.report(onProgress, { bytesSent: totalBytes, totalBytes })
  } satisfies PreparedBody
})

/** Bytes of body sent between two turns of the event loop (see {@link givingTurns}). */
const BYTES_PER_TURN = 64 * 1024

/**
 * The body, giving the event loop a turn after every {@link BYTES_PER_TURN} bytes. Node's HTTP
 * writer loops without yielding while writes succeed, and a socket in the same process (msw's) takes
 * every write at once: without these turns the whole upload runs in one macrotask, and no timer (an
 * `AbortSignal.timeout`, a deadline racing the upload) can fire before it has ended.
 */
const givingTurns = <E>(body: Stream.Stream<Uint8Array, E>): Stream.Stream<Uint8Array, E> =>
  Stream.suspend(() => {
    let sinceTurn = 0
    return Stream.tap(body, (chunk) => {
      sinceTurn += chunk.length
      if (sinceTurn < BYTES_PER_TURN) return Effect.void
      sinceTurn = 0
      return Effect.yieldNow
    })
  })

/** The body as a stream; a file that breaks while being read is kept in `failure`. */
const streamBody = (
  boundary: string,
  request: SendRequest,
  failure: Ref.Ref<Option.Option<FileStreamError>>
): PreparedBody => {
  const length = Multipart.bodyLength(boundary, request.parts)
  const onProgress = request.onProgress
  const body = (
    onProgress === undefined
      ? Multipart.body(boundary, request.parts)
      : Stream.suspend(() => {
          const progress = Progress.tracker(Multipart.contentLength(request.parts), onProgress)
          const counted = request.parts.map((part) => ({ ...part, content: progress.content(part.content) }))
          return progress.body(Multipart.body(boundary, counted))
        })
  ).pipe(
    Stream.tapError((e) => Ref.set(failure, Option.some(e))),
    givingTurns
  )
  return {
    setBody: HttpClientRequest.bodyStream(body, {
      contentType: Multipart.contentType(boundary),
      ...(length === undefined ? {} : { contentLength: length })
    }),
    done: Effect.void
  }
}

/** Transport codes of a connection the other end reset or closed under a request (Node's, undici's). */
const RESET_CODES: ReadonlySet<string> = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"])

/** The reset code somewhere down `cause`'s chain (the HTTP client wraps the socket's error), if any. */
const resetCode = (cause: unknown): string | undefined => {
  let current = cause
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { readonly code?: unknown }).code
    if (typeof code === "string" && RESET_CODES.has(code)) return code
    current = (current as { readonly cause?: unknown }).cause
  }
  return undefined
}

/** A reset under an upload: whatever the node answered early was lost with the connection, and the error says so. */
const resetUnderUpload = (error: NetworkError): NetworkError | UploadConnectionReset => {
  const code = resetCode(error.cause)
  return code === undefined ? error : new UploadConnectionReset({ url: error.url, code, cause: error.cause })
}

/** Sends one multipart upload; succeeds with the 2xx answer's text. */
export const send = Effect.fnUntraced(function* (
  hosts: Hosts,
  request: SendRequest
): Effect.fn.Return<{ text: string; url: string }, UploadFailure> {
  const node = uploadNodeOf(hosts, request.storageType)
  const boundary = Multipart.makeBoundary()
  // The transport only sees that the body broke; the reason is kept here and wins.
  const bodyFailure = yield* Ref.make(Option.none<FileStreamError>())
  const prepared =
    (yield* BodyMode) === "blob" ? yield* blobBody(boundary, request) : streamBody(boundary, request, bodyFailure)
  const httpRequest = HttpClientRequest.post(request.path, { urlParams: request.query ?? {} }).pipe(
    withBearer(request.apiKey),
    HttpClientRequest.setHeaders({
      Encryption: request.encryption ? "true" : "false",
      "X-Deal-Parameter": dealHeader(request.dealParameters),
      ...(request.mimeType === undefined ? {} : { "Mime-Type": request.mimeType }),
      ...(request.storageType === undefined ? {} : { "X-Storage-Type": request.storageType })
    }),
    prepared.setBody
  )
  const target = yield* resolvedUrl(node, httpRequest)
  // The node's client times out the wait for an answer; this one also covers reading it.
  const timeout = hosts.config.transferTimeout
  const exit = yield* node.execute(httpRequest).pipe(
    Effect.catchTag("RequestFailed", (e) => Effect.fail(Response.rejection(e.status, e.body ?? "") ?? e)),
    Effect.catchTag("NetworkError", (e) => Effect.fail(resetUnderUpload(e))),
    Effect.flatMap((response) => response.text),
    Effect.mapError((e) =>
      e._tag === "HttpClientError" ? new InvalidResponse({ method: "POST", url: target, detail: e.message }) : e
    ),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(new RequestTimedOut({ method: "POST", url: target, timeoutMillis: Duration.toMillis(timeout) }))
    }),
    Effect.exit
  )
  const failed = yield* Ref.get(bodyFailure)
  if (Option.isSome(failed)) return yield* failed.value
  const text = yield* exit
  yield* prepared.done
  return { text, url: target }
})
