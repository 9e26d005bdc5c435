/**
 * One typed input model for uploads in every environment: the provider's `upload(pathOrFiles)` took a path in Node and a `FileList` in browsers
 * under one `any`, so a path given in a browser was spread into characters. Here each kind of
 * input is named by its constructor and the upload methods take exactly these.
 *
 * - {@link path}: a file on disk (Node); {@link directory}: a folder on disk, walked recursively
 *   (symbolic links followed; unreadable entries fail it, or are skipped and listed).
 * - {@link blob}: a `File` or `Blob` (browser or Node); a `File` from a folder picker keeps its
 *   `webkitRelativePath`, so {@link files} of a picked folder upload as that folder.
 * - {@link bytes}, {@link text}: in-memory content with a name.
 * - {@link stream}: a `ReadableStream` or an Effect `Stream` with a name (and its size, when
 *   known, for progress).
 *
 * A `File`/`Blob` may also be passed as is wherever a {@link FileInput} is expected.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InvalidUploadInput, type UnreadableEntry } from "../Errors.ts"
import type { SkippedEntry } from "./Options.ts"
import * as Walk from "./Walk.ts"

// =============================================================================
// Models
// =============================================================================

/** A file on disk (Node). Read lazily, when its turn in the upload comes. */
export interface PathSource {
  readonly _tag: "Path"
  readonly path: string
  /** Name sent for the file. @default the path's last segment */
  readonly name?: string | undefined
}

/** A `File` or `Blob`. */
export interface BlobSource {
  readonly _tag: "Blob"
  readonly blob: Blob
  /** Name sent for the file. @default `webkitRelativePath`, else `File.name`, else `"blob"` */
  readonly name?: string | undefined
}

/** Bytes in memory. */
export interface BytesSource {
  readonly _tag: "Bytes"
  readonly bytes: Uint8Array
  readonly name: string
}

/** Text, sent as its UTF-8 bytes. */
export interface TextSource {
  readonly _tag: "Text"
  readonly text: string
  readonly name: string
}

/** A byte stream with a name. A `ReadableStream` can be read once only. */
export interface StreamSource {
  readonly _tag: "Stream"
  readonly stream: ReadableStream<Uint8Array> | Stream.Stream<Uint8Array, unknown>
  readonly name: string
  /** Its length in bytes, when known: gives progress a total. */
  readonly size?: number | undefined
}

/** One file to upload. */
export type FileSource = PathSource | BlobSource | BytesSource | TextSource | StreamSource

/** One file to upload: a source, or a `File`/`Blob` as is. */
export type FileInput = FileSource | Blob

/**
 * A folder on disk (Node), walked recursively; its files are read one at a time. Symbolic links
 * are followed, wherever they point, each once per path (a link to a folder above it is a loop);
 * an entry that cannot be read (a symlink loop, a broken link, no permission) fails the upload
 * with `UnreadableEntry`, unless `skipUnreadable` is set.
 *
 * **Gotchas** A link pointing out of the folder uploads its target under the link's name, as the
 * provider's SDK does: content outside the folder named becomes part of the (public) upload.
 */
export interface DirectorySource {
  readonly _tag: "Directory"
  readonly path: string
  /**
   * Leaves out the entries that cannot be read, and lists each with its reason: in the result of
   * `Upload.folder` (`skipped`). A quote of the folder leaves out the same entries. @default false
   */
  readonly skipUnreadable?: boolean | undefined
}

/**
 * A folder given as its files. Each file's name is its path inside the folder's parent, so all
 * of them start with the folder's name (`photos/a.jpg`, `photos/2024/b.jpg`), as the node builds
 * the folder from those paths. Browser files picked with `webkitdirectory` have such names in
 * their `webkitRelativePath` already.
 */
export interface FilesSource {
  readonly _tag: "Files"
  readonly files: ReadonlyArray<FileInput>
}

/** A folder to upload. */
export type FolderInput = DirectorySource | FilesSource

// =============================================================================
// Constructors
// =============================================================================

/** A file on disk (Node). */
export const path = (path: string, options?: { readonly name?: string | undefined }): PathSource => ({
  _tag: "Path",
  path,
  name: options?.name
})

/** A `File` or `Blob`, optionally under another name. */
export const blob = (blob: Blob, options?: { readonly name?: string | undefined }): BlobSource => ({
  _tag: "Blob",
  blob,
  name: options?.name
})

/** Bytes in memory, under `name`. */
export const bytes = (bytes: Uint8Array, name: string): BytesSource => ({ _tag: "Bytes", bytes, name })

/** Text (sent as UTF-8), under `name`. */
export const text = (text: string, name: string): TextSource => ({ _tag: "Text", text, name })

/** A `ReadableStream` or Effect `Stream` of bytes, under `name`. */
export const stream = (
  stream: ReadableStream<Uint8Array> | Stream.Stream<Uint8Array, unknown>,
  options: { readonly name: string; readonly size?: number | undefined }
): StreamSource => ({ _tag: "Stream", stream, name: options.name, size: options.size })

/** A folder on disk (Node); `skipUnreadable` leaves out the entries that cannot be read. */
export const directory = (
  path: string,
  options?: { readonly skipUnreadable?: boolean | undefined }
): DirectorySource =>
  options?.skipUnreadable === undefined
    ? { _tag: "Directory", path }
    : { _tag: "Directory", path, skipUnreadable: options.skipUnreadable }

/**
 * A folder as its files: a browser `FileList` (from `<input webkitdirectory>`), an array of
 * `File`s, or of any file sources named by their path inside the folder's parent.
 */
export const files = (files: Iterable<FileInput> | ArrayLike<FileInput>): FilesSource => ({
  _tag: "Files",
  files: Array.from(files as ArrayLike<FileInput>)
})

/** A folder on disk read into a {@link files} input, and the entries left out of it. */
export interface ReadDirectory {
  readonly files: FilesSource
  /** The entries that cannot be read, each with its reason (only with `skipUnreadable`). */
  readonly skipped: ReadonlyArray<SkippedEntry>
}

/**
 * The files of a folder on disk (Node), walked as an upload of {@link directory} walks it, as a
 * {@link files} input: each file named by its path under the folder's own name, read when its turn
 * comes. For a caller who wants the list, and what was skipped, before uploading; and for
 * `encryptedFiles`, whose result (one entry per file) has no room for what was skipped.
 */
export const readDirectory = (
  path: string,
  options?: { readonly skipUnreadable?: boolean | undefined }
): Effect.Effect<ReadDirectory, PlatformError | UnreadableEntry, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const walked = yield* Walk.walk(yield* FileSystem.FileSystem, path, options)
    const root = baseName(path)
    return {
      files: files(walked.files.map((file) => ({ _tag: "Path", path: file.path, name: `${root}/${file.relative}` }))),
      skipped: walked.skipped
    }
  })

// =============================================================================
// Guards and names
// =============================================================================

const fileTags: ReadonlySet<string> = new Set(["Path", "Blob", "Bytes", "Text", "Stream"])

/** Whether `input` is one of the file sources (rather than a bare `Blob`). */
export const isFileSource = (input: unknown): input is FileSource =>
  typeof input === "object" &&
  input !== null &&
  !(typeof Blob !== "undefined" && input instanceof Blob) &&
  "_tag" in input &&
  typeof input._tag === "string" &&
  fileTags.has(input._tag)

const isBlob = (u: unknown): u is Blob => typeof Blob !== "undefined" && u instanceof Blob
const optionalString = (u: unknown) => u === undefined || typeof u === "string"

/** Whether `input` is a file input with the fields its kind needs (for callers without types). */
export const isFileInput = (input: unknown): input is FileInput => {
  if (isBlob(input)) return true
  if (!isFileSource(input)) return false
  const source = input as unknown as Record<string, unknown>
  switch (input._tag) {
    case "Path":
      return typeof source.path === "string" && optionalString(source.name)
    case "Blob":
      return isBlob(source.blob) && optionalString(source.name)
    case "Bytes":
      return source.bytes instanceof Uint8Array && typeof source.name === "string"
    case "Text":
      return typeof source.text === "string" && typeof source.name === "string"
    case "Stream":
      return (
        typeof source.name === "string" &&
        (source.size === undefined || typeof source.size === "number") &&
        (Stream.isStream(source.stream) ||
          (typeof ReadableStream !== "undefined" && source.stream instanceof ReadableStream))
      )
  }
}

/** Whether `input` is a folder input with the fields its kind needs. */
export const isFolderInput = (input: unknown): input is FolderInput => {
  if (typeof input !== "object" || input === null || !("_tag" in input)) return false
  const folder = input as Record<string, unknown>
  if (folder._tag === "Directory") {
    return (
      typeof folder.path === "string" &&
      (folder.skipUnreadable === undefined || typeof folder.skipUnreadable === "boolean")
    )
  }
  return folder._tag === "Files" && Array.isArray(folder.files) && folder.files.every(isFileInput)
}

/**
 * A file input as an input schema: a `File`, a `Blob`, or a source of `path`, `blob`, `bytes`,
 * `text` or `stream` with the fields its kind needs.
 *
 * @category schemas
 */
export const FileInput = Schema.declare(isFileInput, { expected: "a file input" })

/**
 * A folder input as an input schema: `directory(path)` or `files([...])`.
 *
 * @category schemas
 */
export const FolderInput = Schema.declare(isFolderInput, { expected: "a folder input" })

/** Normalises a `File`/`Blob` to a source. */
export const toFileSource = (input: FileInput): FileSource => (isFileSource(input) ? input : blob(input))

/** The last segment of a path, either separator. */
export const baseName = (p: string): string => {
  const trimmed = p.replace(/[\\/]+$/, "")
  const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"))
  return at === -1 ? trimmed : trimmed.slice(at + 1)
}

/** The name a `File`/`Blob` goes under by default: its folder-relative path, its name, or `blob`. */
export const blobName = (value: Blob): string => {
  const file = value as Partial<File>
  if (typeof file.webkitRelativePath === "string" && file.webkitRelativePath !== "") return file.webkitRelativePath
  if (typeof file.name === "string" && file.name !== "") return file.name
  return "blob"
}

/**
 * Refuses a name the node would resolve outside the upload: one with a `..` segment (either
 * separator), such as `..` or `../../etc/passwd`. The node refuses them too; failing here costs no
 * request.
 */
export const checkName = (name: string): Effect.Effect<string, InvalidUploadInput> =>
  typeof name !== "string"
    ? Effect.fail(new InvalidUploadInput({ reason: "a file name must be a string" }))
    : name.split(/[\\/]/).includes("..")
      ? Effect.fail(
          new InvalidUploadInput({ reason: `Invalid file name ${JSON.stringify(name)}: a path segment is ".."` })
        )
      : Effect.succeed(name)

/** The name a source goes under. */
export const nameOf = (source: FileSource): string => {
  switch (source._tag) {
    case "Path":
      return source.name ?? baseName(source.path)
    case "Blob":
      return source.name ?? blobName(source.blob)
    default:
      return source.name
  }
}
