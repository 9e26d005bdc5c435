/**
 * The per-file metadata of a quote (as the provider's quote gives it: `{fileSize, mimeType, fileName}` per
 * file, and `totalSize`), from sizes or named files in memory, or from paths on disk.
 *
 * On disk a directory is walked recursively and each regular file counted by its content size.
 * The provider sized a directory with `lstat`, i.e. by its inode (4 096 bytes on most file
 * systems), whatever it held; it also returned `false` for an unknown MIME type, here `null`.
 *
 * @since 0.1.0
 */
import * as Mime from "../upload/Mime.ts"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import { InvalidPaymentInput } from "../Errors.ts"

/** One file of a quote, as the provider reports it. */
export interface FileMetadata {
  /** Size in bytes. */
  readonly fileSize: number
  /** From the file name's extension; `null` when unknown. */
  readonly mimeType: string | null
  /** The last path segment (a path given for a file in memory is kept as is). */
  readonly fileName: string
}

/** A file known by its size, and optionally its name and type. */
export interface SizedFile {
  readonly fileSize: number | bigint
  readonly fileName?: string | undefined
  readonly mimeType?: string | null | undefined
}

/** The MIME type of a file name, from its extension; `null` when unknown. */
export const mimeTypeOf = (fileName: string): string | null => {
  return Mime.lookup(fileName) ?? null
}

/** Checks a size: a whole, non-negative number of bytes. */
export const checkSize = (size: number | bigint, what = "size"): Effect.Effect<bigint, InvalidPaymentInput> => {
  if (typeof size === "bigint")
    return size >= 0n
      ? Effect.succeed(size)
      : Effect.fail(new InvalidPaymentInput({ detail: `${what} must not be negative` }))
  return Number.isSafeInteger(size) && size >= 0
    ? Effect.succeed(BigInt(size))
    : Effect.fail(new InvalidPaymentInput({ detail: `${what} must be a whole number of bytes, got ${size}` }))
}

/** The metadata of files known by size; a bare size is an unnamed file. */
export const fromSizes = (
  files: ReadonlyArray<number | bigint | SizedFile>
): Effect.Effect<ReadonlyArray<FileMetadata>, InvalidPaymentInput> =>
  Effect.forEach(files, (file, index) => {
    const sized: SizedFile = typeof file === "object" ? file : { fileSize: file }
    return checkSize(sized.fileSize, `files[${index}].fileSize`).pipe(
      Effect.flatMap((bytes) =>
        bytes > BigInt(Number.MAX_SAFE_INTEGER)
          ? Effect.fail(new InvalidPaymentInput({ detail: `files[${index}].fileSize is too large` }))
          : Effect.succeed({
              fileSize: Number(bytes),
              mimeType: sized.mimeType ?? (sized.fileName === undefined ? null : mimeTypeOf(sized.fileName)),
              fileName: sized.fileName ?? ""
            })
      )
    )
  })

/**
 * The metadata of every regular file under `paths`: a file gives itself, a directory the files
 * inside it, recursively, in name order. Symbolic links are followed, as the provider's walker did.
 */
export const fromPaths = Effect.fnUntraced(function* (
  paths: ReadonlyArray<string>
): Effect.fn.Return<ReadonlyArray<FileMetadata>, PlatformError.PlatformError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const found: Array<FileMetadata> = []
  const visit = (target: string): Effect.Effect<void, PlatformError.PlatformError> =>
    Effect.gen(function* () {
      const info = yield* fs.stat(target)
      if (info.type === "Directory") {
        const entries = yield* fs.readDirectory(target)
        for (const entry of [...entries].sort()) yield* visit(path.join(target, entry))
      } else if (info.type === "File") {
        const fileName = path.basename(target)
        found.push({ fileSize: Number(info.size), mimeType: mimeTypeOf(fileName), fileName })
      }
    })
  for (const target of paths) yield* visit(target)
  return found
})
