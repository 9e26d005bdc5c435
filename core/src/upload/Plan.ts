/**
 * Inputs made ready to send: a file's name, size, type and content (opened only when the
 * transport pulls it), and a folder's files with their paths inside the folder.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import * as Stream from "effect/Stream"
import { FileStreamError, InvalidUploadInput, type UnreadableEntry } from "../Errors.ts"
import * as Input from "./Input.ts"
import * as Mime from "./Mime.ts"
import * as Multipart from "./Multipart.ts"
import { BodyMode, type FileReads } from "./Options.ts"
import * as Walk from "./Walk.ts"

/** What planning needs: a file system for path inputs, and how to read them. */
export interface PlanDeps {
  readonly fs: FileSystem.FileSystem
  /** The layer's `FileReads`. */
  readonly fileReads: FileReads
}

/**
 * How this upload reads files: reused reads only where the body streams (the `blob` mode gathers
 * the chunks). `reused` also says that the transport is done with a chunk once it has pulled the
 * one after next.
 */
export const readsFor = (deps: PlanDeps): Effect.Effect<FileReads> =>
  Effect.gen(function* () {
    return (yield* BodyMode) === "stream" ? deps.fileReads : "fresh"
  })

/** A file ready to be sent: its name, size and content (opened when its turn comes). */
export interface Planned {
  readonly name: string
  readonly size: number | undefined
  readonly mimeType: string | undefined
  readonly content: Stream.Stream<Uint8Array, FileStreamError>
  /** The content as a `Blob` when it is one (or bytes), for the `blob` body mode; made only then. */
  readonly blob?: (() => Blob) | undefined
  /** The content read from its source again; not for a one-shot stream, which is never buffered. */
  readonly readAgain?: (() => Stream.Stream<Uint8Array, FileStreamError>) | undefined
}

/**
 * A folder's files, each with its path inside the folder, the folder's name when it has one, and
 * the entries left out because they cannot be read (only a folder on disk with `skipUnreadable`).
 */
export interface FolderFiles {
  readonly root: string | undefined
  readonly files: ReadonlyArray<{ readonly source: Input.FileSource; readonly relative: string }>
  readonly skipped: ReadonlyArray<Walk.Skipped>
}

const readFailure = (name: string) => (cause: unknown) =>
  new FileStreamError({
    fileName: name,
    detail: typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause),
    cause
  })

const encoder = new TextEncoder()

/** Bytes of one reused read. */
const REUSED_READ_SIZE = 1024 * 1024

/**
 * The file's bytes read into two buffers in turn: the buffer of one chunk is read into again only
 * when the chunk after next is pulled, so a consumer done with a chunk once it has pulled the next
 * one never sees it change. Each run of the stream opens the file and takes buffers of its own.
 */
export const reusedReads = (fs: FileSystem.FileSystem, path: string): Stream.Stream<Uint8Array, PlatformError> =>
  Stream.unwrap(
    Effect.map(fs.open(path), (file) => {
      const buffers = [new Uint8Array(REUSED_READ_SIZE), new Uint8Array(REUSED_READ_SIZE)] as const
      let turn = 0
      const pull = Effect.flatMap(
        Effect.suspend(() => {
          const buffer = buffers[turn++ % 2]!
          return Effect.map(file.read(buffer), (read) => buffer.subarray(0, read))
        }),
        (chunk) => (chunk.length === 0 ? Cause.done() : Effect.succeed([chunk] as const))
      )
      return Stream.fromPull(Effect.succeed(pull))
    })
  )

/** A path on disk: its size from `stat`, its bytes streamed when the transport pulls its part. */
const planPath = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  path: string,
  name: string,
  reads: FileReads
): Effect.fn.Return<Planned, PlatformError | InvalidUploadInput> {
  const info = yield* fs.stat(path)
  if (info.type === "Directory") {
    return yield* new InvalidUploadInput({ reason: `${path} is a directory: upload it as a folder` })
  }
  const fresh = () => fs.stream(path, { chunkSize: 256 * 1024 }).pipe(Stream.mapError(readFailure(name)))
  return {
    name,
    size: Number(info.size),
    mimeType: Mime.lookup(name),
    content: reads === "reused" ? reusedReads(fs, path).pipe(Stream.mapError(readFailure(name))) : fresh(),
    readAgain: fresh
  }
})

/** Any other source: its size and content are at hand. */
const planInMemory = (source: Exclude<Input.FileSource, { readonly _tag: "Path" }>, name: string): Planned => {
  const fail = readFailure(name)
  switch (source._tag) {
    case "Blob": {
      const content = () => Stream.fromReadableStream({ evaluate: () => source.blob.stream(), onError: fail })
      return {
        name,
        size: source.blob.size,
        mimeType: source.blob.type === "" ? Mime.lookup(name) : source.blob.type,
        content: content(),
        blob: () => source.blob,
        readAgain: content
      }
    }
    case "Bytes":
      return {
        name,
        size: source.bytes.length,
        mimeType: Mime.lookup(name),
        content: Multipart.chunked(source.bytes),
        readAgain: () => Multipart.chunked(source.bytes)
      }
    case "Text": {
      const bytes = encoder.encode(source.text)
      return {
        name,
        size: bytes.length,
        mimeType: "text/plain",
        content: Multipart.chunked(bytes),
        blob: () => new Blob([bytes]),
        readAgain: () => Multipart.chunked(bytes)
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
}

/** Makes one source ready to send under `name`; a path is read as `reads` says. */
export const planFile = (
  fs: FileSystem.FileSystem,
  source: Input.FileSource,
  name: string,
  reads: FileReads = "fresh"
): Effect.Effect<Planned, PlatformError | InvalidUploadInput> =>
  Effect.andThen(Input.checkName(name), () =>
    source._tag === "Path" ? planPath(fs, source.path, name, reads) : Effect.sync(() => planInMemory(source, name))
  )

/** A folder's files, each with its path inside the folder (without the folder's own name). */
export const folderFiles = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  input: Input.FolderInput
): Effect.fn.Return<FolderFiles, PlatformError | InvalidUploadInput | UnreadableEntry> {
  if (input._tag === "Directory") {
    const info = yield* fs.stat(input.path)
    if (info.type !== "Directory") {
      return yield* new InvalidUploadInput({ reason: `${input.path} is not a directory` })
    }
    const root = Input.baseName(input.path)
    const walked = yield* Walk.walk(fs, input.path, { skipUnreadable: input.skipUnreadable })
    return {
      root,
      files: walked.files.map((f) => ({ source: Input.path(f.path), relative: f.relative })),
      skipped: walked.skipped
    }
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
    })),
    skipped: []
  }
})

/** A planned file as a multipart part. */
export const toPart = (file: Planned): Multipart.Part<FileStreamError> => ({
  name: file.name,
  size: file.size,
  content: file.content,
  blob: file.blob,
  readAgain: file.readAgain
})
