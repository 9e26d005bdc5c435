/**
 * `Upload`: files, folders, text, bytes and CAR files to the upload node, plain or encrypted
 * on the client (spec §4, §7; reference/sdk-behaviour.md §3, §4.2, §4.4).
 *
 * Every upload is one `POST {node}/api/v0/add?wrap-with-directory=…&cid-version=…` (CAR files:
 * `/api/v0/dag/import`) with a streamed multipart body whose parts are all named `file`, and the
 * headers `Authorization: Bearer <apiKey>`, `Encryption` (`true`/`false`), `X-Deal-Parameter`
 * (the deal parameters as JSON, or `null`) and, when the type is known, `Mime-Type`.
 *
 * What differs from the provider, on purpose:
 * - One typed input model ({@link Input}) for Node paths, `File`/`Blob`s, bytes, text and streams,
 *   in every environment; a folder is a path or a list of files named by their relative paths.
 * - Bodies are streamed, files opened one at a time, encrypted uploads included: memory does not
 *   grow with the size of the upload.
 * - Progress is `{ bytesSent, totalBytes }` of the request body for every upload.
 * - A refusal is `UploadRejected` with the node's own text (no `Error: ` prefix), else
 *   `Request failed with status code {n}`; `Network error` and `Request timed out` as the
 *   catalogue says; the time-out is the transfer time-out (7 200 000 ms).
 * - An encrypted upload whose shards cannot all be saved fails with `EncryptedUploadIncomplete`,
 *   which lists what was uploaded, which shards were saved and, for the others, the shards
 *   themselves (redacted) so the save can be retried: nothing is half-done silently.
 *
 * **Gotchas** In Node, give the service `NodeHttpClient.layerNodeHttp` (msw intercepts it too):
 * undici's `fetch` keeps a streamed request body in memory until the request ends (measured: 260
 * MiB more for a 256 MiB upload, against ~60 MiB of collectable garbage over `node:http`). In
 * browsers the body goes as one `Blob` ({@link BodyMode}).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { LighthouseConfig } from "./Config.ts"
import * as Shamir from "./crypto/Shamir.ts"
import {
  AuthTokenMustBeJwt,
  DuplicateFileName,
  EncryptedUploadIncomplete,
  FileStreamError,
  type InvalidPublicKey,
  InvalidResponse,
  InvalidUploadInput,
  type NetworkError,
  type RequestFailed,
  RequestTimedOut,
  type UploadRejected
} from "./Errors.ts"
import { OVERHEAD } from "./crypto/FileCipherWeb.ts"
import { execute, reveal, type Token, url, withBearer } from "./internal/http.ts"
import { KeyShards } from "./KeyShards.ts"
import { parsePublicKey } from "./schema/Address.ts"
import type { KeyShard } from "./schema/KeyShard.ts"
import * as Cipher from "./crypto/FileCipherWeb.ts"
import * as Input from "./upload/Input.ts"
import * as Mime from "./upload/Mime.ts"
import * as Multipart from "./upload/Multipart.ts"
import * as Progress from "./upload/Progress.ts"
import * as Response from "./upload/Response.ts"
import * as Walk from "./upload/Walk.ts"

export { Input, Progress }

// =============================================================================
// Models
// =============================================================================

/** One entry of the node's answer: `{ Name, Hash, Size }` (`Size` is a decimal string). */
export type UploadedEntry = Response.UploadedEntry

/** One root of a CAR import: `{ Root: { Cid: { "/": cid } } }` (and `Name`, `Hash`, `Size` when the node adds them). */
export type CarRoot = Response.CarRoot

/** Deal parameters, sent as the `X-Deal-Parameter` header (reference/sdk-behaviour.md §3.1). */
export interface DealParameters {
  readonly miner?: ReadonlyArray<string> | undefined
  readonly num_copies?: number | undefined
  readonly repair_threshold?: number | undefined
  readonly renew_threshold?: number | undefined
  readonly deal_duration?: number | undefined
  readonly network?: string | undefined
}

/** Options every upload takes. */
export interface Options {
  /** The account's API key, sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: Token
  /** CID version of the result. @default 1 */
  readonly cidVersion?: 0 | 1 | undefined
  /** Sent as `X-Deal-Parameter` (JSON). @default null (the header says `null`) */
  readonly dealParameters?: DealParameters | null | undefined
  /** Progress of the request body. */
  readonly onProgress?: Progress.OnProgress | undefined
}

/** Options of {@link Service.file}. */
export interface FileOptions extends Options {
  /** Wraps the file in a directory; the result is then the directory's entry. @default false */
  readonly wrapWithDirectory?: boolean | undefined
  /** `Mime-Type` header. @default the `Blob`'s type, else from the name's extension */
  readonly mimeType?: string | undefined
}

/** Options of {@link Service.text} and {@link Service.buffer}. */
export interface NamedOptions extends Options {
  /** The file's name. @default `"text"` for text, `"blob"` for bytes (the provider's names) */
  readonly name?: string | undefined
  /** `Mime-Type` header. @default `text/plain` for text, none for bytes */
  readonly mimeType?: string | undefined
}

/** Options of {@link Service.car}. */
export interface CarOptions {
  readonly apiKey: Token
  readonly dealParameters?: DealParameters | null | undefined
  readonly onProgress?: Progress.OnProgress | undefined
}

/** Who the key shards of encrypted files are saved for. */
export interface EncryptionOptions extends Options {
  /** The owner: an EVM address or a 44-character base58 key. */
  readonly address: string
  /**
   * The key nodes' bearer token: a signed auth message, or a JWT. With more than one file it must
   * be a JWT (a signed message is single-use).
   */
  readonly token: Token
  /** Addresses the files are shared with as they are saved. */
  readonly shareTo?: ReadonlyArray<string> | undefined
}

/** Options of {@link Service.encryptedText} and {@link Service.encryptedBuffer}. */
export interface EncryptedNamedOptions extends EncryptionOptions {
  /** @default `"text"` for text, `"blob"` for bytes */
  readonly name?: string | undefined
  /** `Mime-Type` header. @default `text/plain` for text, none for bytes */
  readonly mimeType?: string | undefined
}

/**
 * How request bodies are sent: `stream` (a `ReadableStream`, constant memory, progress as the
 * transport pulls; Node, Deno, Bun, Chromium over HTTP/2) or `blob` (one `Blob`: what every
 * browser's `fetch` can send; `File`s are not read into memory, other content is; progress only
 * at the start and the end). By default `stream` in Node and `blob` elsewhere.
 *
 * @category references
 */
export const BodyMode = Context.Reference<"stream" | "blob">("lighthouse-effect/Upload/BodyMode", {
  defaultValue: () => (Cipher.isNode ? "stream" : "blob")
})

/** Why a plain upload failed. */
export type UploadFailure =
  | UploadRejected
  | RequestFailed
  | NetworkError
  | RequestTimedOut
  | InvalidResponse
  | InvalidUploadInput
  | FileStreamError
  | PlatformError

/** Why an encrypted upload failed. */
export type EncryptedUploadFailure =
  | UploadFailure
  | InvalidPublicKey
  | DuplicateFileName
  | AuthTokenMustBeJwt
  | EncryptedUploadIncomplete

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** Uploads one file; the result is its entry (or the wrapping directory's). */
  readonly file: (input: Input.FileInput, options: FileOptions) => Effect.Effect<UploadedEntry, UploadFailure>
  /**
   * Uploads a folder; the result is the folder's entry. A list of files whose names do not share
   * a first segment is wrapped in a directory, whose entry (named `""`) is the result.
   */
  readonly folder: (input: Input.FolderInput, options: Options) => Effect.Effect<UploadedEntry, UploadFailure>
  /** Uploads text as a UTF-8 file. */
  readonly text: (text: string, options: NamedOptions) => Effect.Effect<UploadedEntry, UploadFailure>
  /** Uploads bytes as a file. */
  readonly buffer: (bytes: Uint8Array, options: NamedOptions) => Effect.Effect<UploadedEntry, UploadFailure>
  /** Imports a CAR file (`.car`) with `POST /api/v0/dag/import`; the result is the node's answer, one item per root. */
  readonly car: (input: Input.FileInput, options: CarOptions) => Effect.Effect<ReadonlyArray<CarRoot>, UploadFailure>
  /** Encrypts and uploads one file, then saves its key shards under the returned CID. */
  readonly encryptedFile: (
    input: Input.FileInput,
    options: EncryptionOptions
  ) => Effect.Effect<UploadedEntry, EncryptedUploadFailure>
  /**
   * Encrypts and uploads several files (a folder, or a list), each with its own key, in one
   * request; each becomes its own CID, named by its path inside the folder with `/` → `-`.
   */
  readonly encryptedFiles: (
    input: Input.FolderInput | ReadonlyArray<Input.FileInput>,
    options: EncryptionOptions
  ) => Effect.Effect<ReadonlyArray<UploadedEntry>, EncryptedUploadFailure>
  /** Encrypts and uploads text. */
  readonly encryptedText: (
    text: string,
    options: EncryptedNamedOptions
  ) => Effect.Effect<UploadedEntry, EncryptedUploadFailure>
  /** Encrypts and uploads bytes. */
  readonly encryptedBuffer: (
    bytes: Uint8Array,
    options: EncryptedNamedOptions
  ) => Effect.Effect<UploadedEntry, EncryptedUploadFailure>
}

/**
 * Uploads to the provider's upload node.
 *
 * @category services
 */
export class Upload extends Context.Service<Upload, Service>()("lighthouse-effect/Upload") {}

// =============================================================================
// Internals
// =============================================================================

/** A file ready to be sent: its name, size and content (opened when its turn comes). */
interface Planned {
  readonly name: string
  readonly size: number | undefined
  readonly mimeType: string | undefined
  readonly content: Stream.Stream<Uint8Array, FileStreamError>
  /** The content as a `Blob` when it is one (or bytes), for the `blob` body mode; made only then. */
  readonly blob?: (() => Blob) | undefined
}

const readFailure = (name: string) => (cause: unknown) =>
  new FileStreamError({
    fileName: name,
    detail: typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause),
    cause
  })

const encoder = new TextEncoder()

/** A JWT (as the key nodes issue it, `jwt:`-prefixed, or bare): three base64url segments, not a `0x` signature. */
const isJwt = (token: string) => !token.startsWith("0x") && /^(jwt:)?[\w-]+\.[\w-]+\.[\w-]*$/.test(token)

const dealHeader = (deal: DealParameters | null | undefined) =>
  deal === undefined || deal === null ? "null" : JSON.stringify(deal)

// =============================================================================
// Constructor
// =============================================================================

/** Builds the service from the HTTP client, the configuration, a file system and the key nodes. */
export const make = Effect.gen(function* () {
  const client = yield* HttpClient.HttpClient
  const config = yield* LighthouseConfig
  const fs = yield* FileSystem.FileSystem
  const keyShards = yield* KeyShards

  // ---------------------------------------------------------------------------
  // Inputs
  // ---------------------------------------------------------------------------

  const planFile = Effect.fnUntraced(function* (
    source: Input.FileSource,
    name: string
  ): Effect.fn.Return<Planned, PlatformError | InvalidUploadInput> {
    yield* Input.checkName(name)
    const fail = readFailure(name)
    switch (source._tag) {
      case "Path": {
        const info = yield* fs.stat(source.path)
        if (info.type === "Directory") {
          return yield* new InvalidUploadInput({ reason: `${source.path} is a directory: upload it as a folder` })
        }
        return {
          name,
          size: Number(info.size),
          mimeType: Mime.lookup(name),
          // Opened only when the transport pulls this part.
          content: fs.stream(source.path, { chunkSize: 256 * 1024 }).pipe(Stream.mapError(fail))
        }
      }
      case "Blob":
        return {
          name,
          size: source.blob.size,
          mimeType: source.blob.type === "" ? Mime.lookup(name) : source.blob.type,
          content: Stream.fromReadableStream({ evaluate: () => source.blob.stream(), onError: fail }),
          blob: () => source.blob
        }
      case "Bytes":
        return {
          name,
          size: source.bytes.length,
          mimeType: Mime.lookup(name),
          content: Multipart.chunked(source.bytes)
        }
      case "Text": {
        const bytes = encoder.encode(source.text)
        return {
          name,
          size: bytes.length,
          mimeType: "text/plain",
          content: Multipart.chunked(bytes),
          blob: () => new Blob([bytes])
        }
      }
      case "Stream": {
        const stream = source.stream
        return {
          name,
          size: source.size,
          mimeType: Mime.lookup(name),
          content: Stream.isStream(stream)
            ? Stream.mapError(stream, fail)
            : Stream.fromReadableStream({ evaluate: () => stream, onError: fail })
        }
      }
    }
  })

  /** A folder's files, each with its path inside the folder (without the folder's own name). */
  const folderFiles = Effect.fnUntraced(function* (input: Input.FolderInput): Effect.fn.Return<
    {
      readonly root: string | undefined
      readonly files: ReadonlyArray<{ source: Input.FileSource; relative: string }>
    },
    PlatformError | InvalidUploadInput
  > {
    if (input._tag === "Directory") {
      const info = yield* fs.stat(input.path)
      if (info.type !== "Directory") {
        return yield* new InvalidUploadInput({ reason: `${input.path} is not a directory` })
      }
      const root = Input.baseName(input.path)
      const found = yield* Walk.walk(fs, input.path)
      return { root, files: found.map((f) => ({ source: Input.path(f.path), relative: f.relative })) }
    }
    const sources = input.files.map(Input.toFileSource)
    const names = sources.map(Input.nameOf)
    // One folder when every name is a path under the same first segment.
    const firsts = new Set(names.map((n) => (n.includes("/") ? n.slice(0, n.indexOf("/")) : undefined)))
    const [first] = firsts
    const root = firsts.size === 1 && first !== undefined ? first : undefined
    return {
      root,
      files: sources.map((source, i) => ({
        source,
        relative: root === undefined ? names[i]! : names[i]!.slice(root.length + 1)
      }))
    }
  })

  // ---------------------------------------------------------------------------
  // Transport
  // ---------------------------------------------------------------------------

  interface Send {
    readonly path: "/api/v0/add" | "/api/v0/dag/import"
    readonly query?: Readonly<Record<string, string>>
    readonly apiKey: Token
    readonly encryption: boolean
    readonly mimeType: string | undefined
    readonly dealParameters: DealParameters | null | undefined
    readonly onProgress: Progress.OnProgress | undefined
    readonly parts: ReadonlyArray<Multipart.Part<FileStreamError>>
  }

  /** Sends one multipart upload; succeeds with the 2xx answer's text. */
  const send = (request: Send): Effect.Effect<{ text: string; url: string }, UploadFailure> =>
    Effect.gen(function* () {
      const target = url(config.hosts.node, request.path, request.query)
      const boundary = Multipart.makeBoundary()
      const headers = HttpClientRequest.setHeaders({
        Encryption: request.encryption ? "true" : "false",
        "X-Deal-Parameter": dealHeader(request.dealParameters),
        ...(request.mimeType === undefined ? {} : { "Mime-Type": request.mimeType })
      })
      // The transport only sees that the body broke; the reason is kept here and wins.
      let bodyFailure: FileStreamError | undefined
      let httpRequest: HttpClientRequest.HttpClientRequest
      let done: Effect.Effect<void> = Effect.void
      if ((yield* BodyMode) === "blob") {
        const blob = yield* Multipart.blobBody(boundary, request.parts)
        const totalBytes = blob.size
        if (request.onProgress !== undefined) {
          const onProgress = request.onProgress
          yield* Progress.report(onProgress, { bytesSent: 0, totalBytes })
          done = Progress.report(onProgress, { bytesSent: totalBytes, totalBytes })
        }
        httpRequest = HttpClientRequest.post(target).pipe(
          withBearer(request.apiKey),
          headers,
          HttpClientRequest.setBody(
            HttpBody.raw(blob, { contentType: Multipart.contentType(boundary), contentLength: totalBytes })
          )
        )
      } else {
        const totalBytes = Multipart.bodyLength(boundary, request.parts)
        const body = Multipart.body(boundary, request.parts).pipe(
          Stream.tapError((e) =>
            Effect.sync(() => {
              bodyFailure = e
            })
          ),
          Progress.track(totalBytes, request.onProgress)
        )
        httpRequest = HttpClientRequest.post(target).pipe(
          withBearer(request.apiKey),
          headers,
          HttpClientRequest.bodyStream(body, {
            contentType: Multipart.contentType(boundary),
            ...(totalBytes === undefined ? {} : { contentLength: totalBytes })
          })
        )
      }
      const timeout = config.transferTimeout
      const exit = yield* execute(client, httpRequest, {
        style: "request-failed",
        timeout,
        onStatus: Response.rejection
      }).pipe(
        Effect.flatMap((response) => response.text),
        Effect.mapError((e) =>
          e._tag === "HttpClientError" ? new InvalidResponse({ url: target, detail: e.message }) : e
        ),
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(new RequestTimedOut({ url: target, timeoutMillis: Duration.toMillis(timeout) }))
        }),
        Effect.exit
      )
      if (bodyFailure !== undefined) return yield* bodyFailure
      const text = yield* exit
      yield* done
      return { text, url: target }
    })

  const addQuery = (options: Options, wrapWithDirectory: boolean) => ({
    "wrap-with-directory": String(wrapWithDirectory),
    "cid-version": String(options.cidVersion ?? 1)
  })

  const toPart = (file: Planned): Multipart.Part<FileStreamError> => ({
    name: file.name,
    size: file.size,
    content: file.content,
    blob: file.blob
  })

  // ---------------------------------------------------------------------------
  // Plain uploads
  // ---------------------------------------------------------------------------

  const uploadOne = Effect.fnUntraced(function* (
    source: Input.FileSource,
    name: string,
    options: Options & { readonly wrapWithDirectory?: boolean | undefined; readonly mimeType?: string | undefined },
    defaultMimeType: string | undefined
  ): Effect.fn.Return<UploadedEntry, UploadFailure> {
    const planned = yield* planFile(source, name)
    const wrap = options.wrapWithDirectory ?? false
    const { text, url: target } = yield* send({
      path: "/api/v0/add",
      query: addQuery(options, wrap),
      apiKey: options.apiKey,
      encryption: false,
      mimeType: options.mimeType ?? defaultMimeType ?? planned.mimeType,
      dealParameters: options.dealParameters,
      onProgress: options.onProgress,
      parts: [toPart(planned)]
    })
    const entries = yield* Response.entries(text, target)
    // Without wrapping the file's own entry; with it, the wrapping directory (last).
    return wrap ? entries.at(-1)! : (entries.find((e) => e.Name === name) ?? entries.at(-1)!)
  })

  const file = Effect.fn("Upload.file")(function* (input: Input.FileInput, options: FileOptions) {
    const source = Input.toFileSource(input)
    return yield* uploadOne(source, Input.nameOf(source), options, undefined)
  })

  const folder = Effect.fn("Upload.folder")(function* (input: Input.FolderInput, options: Options) {
    const { root, files } = yield* folderFiles(input)
    if (files.length === 0) return yield* new InvalidUploadInput({ reason: "the folder has no files" })
    const planned = yield* Effect.forEach(files, (f) =>
      planFile(f.source, root === undefined ? f.relative : `${root}/${f.relative}`)
    )
    const wrap = root === undefined
    const { text, url: target } = yield* send({
      path: "/api/v0/add",
      query: addQuery(options, wrap),
      apiKey: options.apiKey,
      encryption: false,
      mimeType: undefined,
      dealParameters: options.dealParameters,
      onProgress: options.onProgress,
      parts: planned.map(toPart)
    })
    const entries = yield* Response.entries(text, target)
    return root === undefined ? entries.at(-1)! : (entries.find((e) => e.Name === root) ?? entries.at(-1)!)
  })

  const text = Effect.fn("Upload.text")(function* (content: string, options: NamedOptions) {
    const name = options.name ?? "text"
    return yield* uploadOne(Input.text(content, name), name, options, "text/plain")
  })

  const buffer = Effect.fn("Upload.buffer")(function* (bytes: Uint8Array, options: NamedOptions) {
    const name = options.name ?? "blob"
    return yield* uploadOne(Input.bytes(bytes, name), name, options, undefined)
  })

  const car = Effect.fn("Upload.car")(function* (input: Input.FileInput, options: CarOptions) {
    const source = Input.toFileSource(input)
    const name = Input.nameOf(source)
    if (!/\.car$/i.test(name)) return yield* new InvalidUploadInput({ reason: "File must have a .car extension" })
    const planned = yield* planFile(source, name)
    const { text, url: target } = yield* send({
      path: "/api/v0/dag/import",
      apiKey: options.apiKey,
      encryption: false,
      mimeType: undefined,
      dealParameters: options.dealParameters,
      onProgress: options.onProgress,
      parts: [toPart(planned)]
    })
    return yield* Response.carRoots(text, target)
  })

  // ---------------------------------------------------------------------------
  // Encrypted uploads
  // ---------------------------------------------------------------------------

  interface Keyed {
    readonly planned: Planned
    readonly keyShards: ReadonlyArray<KeyShard>
  }

  const uploadEncrypted = Effect.fnUntraced(function* (
    files: ReadonlyArray<{ readonly source: Input.FileSource; readonly name: string }>,
    options: EncryptionOptions & { readonly mimeType?: string | undefined },
    defaultMimeType: string | undefined
  ): Effect.fn.Return<ReadonlyArray<UploadedEntry>, EncryptedUploadFailure> {
    // Everything that can be refused is refused before a byte is sent.
    if (files.length === 0) return yield* new InvalidUploadInput({ reason: "there are no files to upload" })
    const address = yield* parsePublicKey(options.address)
    const seen = new Set<string>()
    for (const f of files) {
      if (seen.has(f.name)) return yield* new DuplicateFileName({ fileName: f.name })
      seen.add(f.name)
    }
    if (files.length > 1 && !isJwt(reveal(options.token))) return yield* new AuthTokenMustBeJwt()

    // A key per file; the plaintext is encrypted as the transport pulls it.
    const keyed: Array<Keyed> = []
    const parts: Array<Multipart.Part<FileStreamError>> = []
    for (const f of files) {
      const planned = yield* planFile(f.source, f.name)
      const { masterKey, keyShards: shards } = yield* Effect.orDie(Shamir.generate(3, 5))
      keyed.push({ planned, keyShards: shards })
      parts.push({
        name: planned.name,
        size: planned.size === undefined ? undefined : planned.size + OVERHEAD,
        content: planned.content.pipe(Cipher.encryptStream(masterKey))
      })
    }

    const { text, url: target } = yield* send({
      path: "/api/v0/add",
      query: addQuery(options, false),
      apiKey: options.apiKey,
      encryption: true,
      mimeType: files.length === 1 ? (options.mimeType ?? defaultMimeType ?? keyed[0]!.planned.mimeType) : undefined,
      dealParameters: options.dealParameters,
      onProgress: options.onProgress,
      parts
    })

    const failedAll = (reason: string, cause?: unknown) =>
      new EncryptedUploadIncomplete({
        uploaded: [],
        saved: [],
        failed: keyed.map((k) => ({
          name: k.planned.name,
          cid: "",
          reason,
          cause,
          keyShards: Redacted.make(k.keyShards, { label: "KeyShards" })
        }))
      })
    // The files are stored now: an unreadable answer must not hide that their keys are unsaved.
    const entries = yield* Response.entries(text, target).pipe(
      Effect.mapError((e) => failedAll(`the node's answer could not be read: ${e.detail}`, e))
    )
    const byName = new Map(entries.map((e) => [e.Name, e]))

    const outcomes = yield* Effect.forEach(
      keyed,
      (k) => {
        const entry = byName.get(k.planned.name)
        if (entry === undefined) {
          return Effect.succeed(Option.some({ keyed: k, cid: "", reason: "the node's answer has no entry for it" }))
        }
        return keyShards
          .save({
            cid: entry.Hash,
            address,
            token: options.token,
            keyShards: k.keyShards,
            ...(options.shareTo === undefined ? {} : { shareTo: options.shareTo })
          })
          .pipe(
            Effect.as(Option.none()),
            Effect.catch((error) =>
              Effect.succeed(Option.some({ keyed: k, cid: entry.Hash as string, reason: error.message, cause: error }))
            )
          )
      },
      { concurrency: 4 }
    )
    const failed = outcomes.flatMap((o) => (Option.isSome(o) ? [o.value] : []))
    if (failed.length > 0) {
      const failedNames = new Set(failed.map((f) => f.keyed.planned.name))
      return yield* new EncryptedUploadIncomplete({
        uploaded: entries.map((e) => ({ Name: e.Name, Hash: e.Hash, Size: e.Size })),
        saved: keyed.flatMap((k) => {
          const entry = byName.get(k.planned.name)
          return entry === undefined || failedNames.has(k.planned.name) ? [] : [entry.Hash]
        }),
        failed: failed.map((f) => ({
          name: f.keyed.planned.name,
          cid: f.cid,
          reason: f.reason,
          cause: "cause" in f ? f.cause : undefined,
          keyShards: Redacted.make(f.keyed.keyShards, { label: "KeyShards" })
        }))
      })
    }
    return keyed.map((k) => byName.get(k.planned.name)!)
  })

  const encryptedFile = Effect.fn("Upload.encryptedFile")(function* (
    input: Input.FileInput,
    options: EncryptionOptions
  ) {
    const source = Input.toFileSource(input)
    const [entry] = yield* uploadEncrypted([{ source, name: Input.nameOf(source) }], options, undefined)
    return entry!
  })

  const encryptedFiles = Effect.fn("Upload.encryptedFiles")(function* (
    input: Input.FolderInput | ReadonlyArray<Input.FileInput>,
    options: EncryptionOptions
  ) {
    const folderInput: Input.FolderInput = Array.isArray(input)
      ? Input.files(input as ReadonlyArray<Input.FileInput>)
      : (input as Input.FolderInput)
    const { files } = yield* folderFiles(folderInput)
    // Encrypted files are stored one by one, not as a folder: the path is flattened into the name.
    return yield* uploadEncrypted(
      files.map((f) => ({ source: f.source, name: f.relative.replaceAll("/", "-") })),
      options,
      undefined
    )
  })

  const encryptedText = Effect.fn("Upload.encryptedText")(function* (content: string, options: EncryptedNamedOptions) {
    const name = options.name ?? "text"
    const [entry] = yield* uploadEncrypted([{ source: Input.text(content, name), name }], options, "text/plain")
    return entry!
  })

  const encryptedBuffer = Effect.fn("Upload.encryptedBuffer")(function* (
    bytes: Uint8Array,
    options: EncryptedNamedOptions
  ) {
    const name = options.name ?? "blob"
    const [entry] = yield* uploadEncrypted([{ source: Input.bytes(bytes, name), name }], options, undefined)
    return entry!
  })

  return Upload.of({
    file,
    folder,
    text,
    buffer,
    car,
    encryptedFile,
    encryptedFiles,
    encryptedText,
    encryptedBuffer
  })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient`, `LighthouseConfig`, a `FileSystem` (Node's for paths; in a
 * browser, `FileSystem.layerNoop({})`) and `KeyShards` (for encrypted uploads).
 *
 * @category layers
 */
export const layer: Layer.Layer<
  Upload,
  never,
  HttpClient.HttpClient | LighthouseConfig | FileSystem.FileSystem | KeyShards
> = Layer.effect(Upload, make)
