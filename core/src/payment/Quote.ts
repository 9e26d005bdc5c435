/**
 * The per-file metadata of a quote from files known by their sizes (as the provider's quote gives
 * it: `{fileSize, mimeType, fileName}` per file), each size checked as a payment takes it. Files
 * on disk are sized by `upload/Sizing.ts`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvalidPaymentInput } from "../Errors.ts"
import * as Mime from "../upload/Mime.ts"
import type { FileMetadata } from "../upload/Sizing.ts"
import type { SizedFile } from "./Models.ts"

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
              mimeType: sized.mimeType ?? (sized.fileName === undefined ? null : Mime.typeOf(sized.fileName)),
              fileName: sized.fileName ?? ""
            })
      )
    )
  })
