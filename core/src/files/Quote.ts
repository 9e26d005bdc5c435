/**
 * A quote of files about to be uploaded: each file's size, type and name, read locally (paths
 * are walked, streams need their size), against the account's usage.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import { InvalidUploadInput } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import type { Token } from "../internal/http.ts"
import * as Input from "../upload/Input.ts"
import * as Mime from "../upload/Mime.ts"
import * as Walk from "../upload/Walk.ts"
import type { Quote, QuoteInput, QuoteItem } from "./Models.ts"
import { usage } from "./Records.ts"

const isFolderInput = (input: unknown): input is Input.FolderInput =>
  typeof input === "object" &&
  input !== null &&
  "_tag" in input &&
  (input._tag === "Directory" || input._tag === "Files")

const quoteItems = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  input: QuoteInput
): Effect.fn.Return<ReadonlyArray<QuoteItem>, PlatformError | InvalidUploadInput> {
  if (typeof input === "number") {
    if (!Number.isFinite(input) || input < 0) {
      return yield* new InvalidUploadInput({ reason: `a size must be a non-negative number, not ${input}` })
    }
    return [{ fileSize: input, mimeType: null, fileName: "" }]
  }
  if (isFolderInput(input)) {
    if (input._tag === "Directory") {
      const found = yield* Walk.walk(fs, input.path)
      return found.map((f) => ({
        fileSize: f.size,
        mimeType: Mime.lookup(f.relative) ?? null,
        fileName: Input.baseName(f.relative)
      }))
    }
    const nested = yield* Effect.forEach(input.files, (file) => quoteItems(fs, file))
    return nested.flat()
  }
  const source = Input.toFileSource(input)
  const name = Input.nameOf(source)
  const item = (fileSize: number, type?: string): QuoteItem => ({
    fileSize,
    mimeType: type === undefined || type === "" ? (Mime.lookup(name) ?? null) : type,
    fileName: Input.baseName(name)
  })
  switch (source._tag) {
    case "Path": {
      const info = yield* fs.stat(source.path)
      if (info.type === "Directory") return yield* quoteItems(fs, Input.directory(source.path))
      return [item(Number(info.size))]
    }
    case "Blob":
      return [item(source.blob.size, source.blob.type)]
    case "Bytes":
      return [item(source.bytes.length)]
    case "Text":
      return [item(new TextEncoder().encode(source.text).length, "text/plain")]
    case "Stream":
      if (source.size === undefined) {
        return yield* new InvalidUploadInput({ reason: `the size of ${name} is unknown: give the stream's size` })
      }
      return [item(source.size)]
  }
})

export const quote = Effect.fn("Files.quote")(function* (
  hosts: Hosts,
  fs: FileSystem.FileSystem,
  apiKey: Token,
  input: QuoteInput | ReadonlyArray<QuoteInput>
) {
  const inputs: ReadonlyArray<QuoteInput> = Array.isArray(input) ? input : [input as QuoteInput]
  // Local inputs first: a bad path fails before the network is asked.
  const metaData = (yield* Effect.forEach(inputs, (one) => quoteItems(fs, one))).flat()
  const { dataLimit, dataUsed, walrusDataLimit, walrusDataUsed } = yield* usage(hosts, apiKey)
  return {
    metaData,
    dataLimit,
    dataUsed,
    ...(walrusDataLimit === undefined ? {} : { walrusDataLimit }),
    ...(walrusDataUsed === undefined ? {} : { walrusDataUsed }),
    totalSize: metaData.reduce((total, item) => total + item.fileSize, 0)
  } satisfies Quote
})
