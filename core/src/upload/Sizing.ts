/**
 * The files an upload would send, sized without sending them: each file's size, media type and
 * name, as the provider's quotes list them. Paths are read from disk (a folder walked as an upload
 * walks it, `Walk.ts`: name order, symlinks followed, only regular files; an unreadable entry fails
 * the quote as it would fail the upload, or is left out of both with `skipUnreadable`), files in
 * memory are measured, a stream needs its size given. No file is opened.
 *
 * `Files.quote` sets these against the account's usage; `Payment.quotePaths` prices them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import { InvalidUploadInput, type UnreadableEntry } from "../Errors.ts"
import * as Input from "./Input.ts"
import * as Mime from "./Mime.ts"
import * as Walk from "./Walk.ts"

/** One file of a quote, as the provider's quote lists it. */
export interface FileMetadata {
  /** Size in bytes. */
  readonly fileSize: number
  /** From the name's extension; `null` when unknown (the provider gave `false`). */
  readonly mimeType: string | null
  /** The last segment of the file's name. */
  readonly fileName: string
}

/** What can be sized: a size in bytes (an unnamed file), a file input or a folder input. */
export type Sizable = number | Input.FileInput | Input.FolderInput

/** A file of `fileSize` bytes named `name`; its type is `type` when one was given, else from the name. */
const metadata = (fileSize: number, name: string, type?: string): FileMetadata => ({
  fileSize,
  mimeType: type === undefined || type === "" ? Mime.typeOf(name) : type,
  fileName: Input.baseName(name)
})

/** Every file under the folder `dir`, named by its path inside it. */
const ofDirectory = (
  fs: FileSystem.FileSystem,
  dir: string,
  options?: Walk.WalkOptions
): Effect.Effect<Array<FileMetadata>, PlatformError | UnreadableEntry> =>
  Effect.map(Walk.walk(fs, dir, options), (walked) => walked.files.map((file) => metadata(file.size, file.relative)))

/** The file at `path` (named `name`), or every file under it when it is a folder. */
export const ofPath = (
  fs: FileSystem.FileSystem,
  path: string,
  name: string = path
): Effect.Effect<ReadonlyArray<FileMetadata>, PlatformError | UnreadableEntry> =>
  Effect.flatMap(fs.stat(path), (info) =>
    info.type === "Directory" ? ofDirectory(fs, path) : Effect.succeed([metadata(Number(info.size), name)])
  )

/** The files at `paths`, in order: a file gives itself, a folder the files inside it. */
export const ofPaths = (
  fs: FileSystem.FileSystem,
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<FileMetadata>, PlatformError | UnreadableEntry> =>
  Effect.map(
    Effect.forEach(paths, (path) => ofPath(fs, path)),
    (each) => each.flat()
  )

/** The files of a file input. */
const ofFile = (
  fs: FileSystem.FileSystem,
  input: Input.FileInput
): Effect.Effect<ReadonlyArray<FileMetadata>, PlatformError | InvalidUploadInput | UnreadableEntry> => {
  const source = Input.toFileSource(input)
  const name = Input.nameOf(source)
  switch (source._tag) {
    case "Path":
      return ofPath(fs, source.path, name)
    case "Blob":
      return Effect.succeed([metadata(source.blob.size, name, source.blob.type)])
    case "Bytes":
      return Effect.succeed([metadata(source.bytes.length, name)])
    case "Text":
      return Effect.succeed([metadata(new TextEncoder().encode(source.text).length, name, "text/plain")])
    case "Stream":
      return source.size === undefined
        ? Effect.fail(new InvalidUploadInput({ reason: `the size of ${name} is unknown: give the stream's size` }))
        : Effect.succeed([metadata(source.size, name)])
  }
}

/** The files `input` stands for, each with its size, type and name. */
export const sizeOf = (
  fs: FileSystem.FileSystem,
  input: Sizable
): Effect.Effect<ReadonlyArray<FileMetadata>, PlatformError | InvalidUploadInput | UnreadableEntry> => {
  if (typeof input === "number") {
    return Number.isFinite(input) && input >= 0
      ? Effect.succeed([{ fileSize: input, mimeType: null, fileName: "" }])
      : Effect.fail(new InvalidUploadInput({ reason: `a size must be a non-negative number, not ${input}` }))
  }
  if (!Input.isFolderInput(input)) return ofFile(fs, input)
  if (input._tag === "Directory") return ofDirectory(fs, input.path, { skipUnreadable: input.skipUnreadable })
  return Effect.map(
    Effect.forEach(input.files, (file) => ofFile(fs, file)),
    (each) => each.flat()
  )
}
