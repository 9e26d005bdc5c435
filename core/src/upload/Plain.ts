/**
 * Plain uploads: a file, a folder, text, bytes and CAR files, each one request to the upload node.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvalidUploadInput } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { Routes } from "../routes/Routes.ts"
import { trackCar } from "../verify/UploadedCar.ts"
import { addChecked } from "./Checked.ts"
import * as Input from "./Input.ts"
import {
  BodyMode,
  type CarOptions,
  type FileOptions,
  type FolderEntry,
  type NamedOptions,
  type Options,
  type UploadFailure
} from "./Options.ts"
import { folderFiles, type PlanDeps, planFile, readsFor, toPart } from "./Plan.ts"
import * as Response from "./Response.ts"
import { send } from "./Send.ts"

/** What a plain upload needs: the hosts, a file system for path inputs, and how to read them. */
export interface PlainDeps extends PlanDeps {
  readonly hosts: Hosts
}

/** One file to upload: its source, the name it is sent under, the caller's options and the type it has by default. */
interface OneFile {
  readonly source: Input.FileSource
  readonly name: string
  readonly options: Options & {
    readonly wrapWithDirectory?: boolean | undefined
    readonly mimeType?: string | undefined
  }
  readonly defaultMimeType: string | undefined
}

const uploadOne = Effect.fnUntraced(function* (
  deps: PlainDeps,
  one: OneFile
): Effect.fn.Return<Response.UploadedEntry, UploadFailure> {
  const { name, options } = one
  const planned = yield* planFile(deps.fs, one.source, name, yield* readsFor(deps))
  const wrap = options.wrapWithDirectory ?? false
  return yield* addChecked(deps.hosts, {
    options,
    storageType: options.storageType,
    wrapWithDirectory: wrap,
    encryption: false,
    mimeType: options.mimeType ?? one.defaultMimeType ?? planned.mimeType,
    parts: [toPart(planned)],
    // Without wrapping the file's own entry; with it, the wrapping directory (last).
    pick: (entries) => (wrap ? entries.at(-1)! : (entries.find((e) => e.Name === name) ?? entries.at(-1)!))
  })
})

export const file = Effect.fn("Upload.file")(function* (deps: PlainDeps, input: Input.FileInput, options: FileOptions) {
  const source = Input.toFileSource(input)
  return yield* uploadOne(deps, { source, name: Input.nameOf(source), options, defaultMimeType: undefined })
})

export const folder = Effect.fn("Upload.folder")(function* (
  deps: PlainDeps,
  input: Input.FolderInput,
  options: Options
): Effect.fn.Return<FolderEntry, UploadFailure> {
  const { root, files, skipped } = yield* folderFiles(deps.fs, input)
  if (files.length === 0) return yield* new InvalidUploadInput({ reason: "the folder has no files" })
  const reads = yield* readsFor(deps)
  const planned = yield* Effect.forEach(files, (f) =>
    planFile(deps.fs, f.source, root === undefined ? f.relative : `${root}/${f.relative}`, reads)
  )
  const wrap = root === undefined
  const entry = yield* addChecked(deps.hosts, {
    options,
    storageType: options.storageType,
    wrapWithDirectory: wrap,
    encryption: false,
    mimeType: undefined,
    parts: planned.map(toPart),
    pick: (entries) => (wrap ? entries.at(-1)! : (entries.find((e) => e.Name === root) ?? entries.at(-1)!))
  })
  // Only a caller who asked to skip gets the list: other callers' results keep their shape.
  return input._tag === "Directory" && input.skipUnreadable === true ? { ...entry, skipped } : entry
})

export const text = Effect.fn("Upload.text")(function* (deps: PlainDeps, content: string, options: NamedOptions) {
  const name = options.name ?? "text"
  return yield* uploadOne(deps, { source: Input.text(content, name), name, options, defaultMimeType: "text/plain" })
})

export const buffer = Effect.fn("Upload.buffer")(function* (deps: PlainDeps, bytes: Uint8Array, options: NamedOptions) {
  const name = options.name ?? "blob"
  return yield* uploadOne(deps, { source: Input.bytes(bytes, name), name, options, defaultMimeType: undefined })
})

export const car = Effect.fn("Upload.car")(function* (deps: PlainDeps, input: Input.FileInput, options: CarOptions) {
  const source = Input.toFileSource(input)
  const name = Input.nameOf(source)
  if (!/\.car$/i.test(name)) return yield* new InvalidUploadInput({ reason: "File must have a .car extension" })
  const part = toPart(yield* planFile(deps.fs, source, name))
  const tracked = options.verify === false ? undefined : trackCar(part, yield* BodyMode)
  const { text, url: target } = yield* send(deps.hosts, {
    path: Routes.uploadNode.dagImport.path,
    apiKey: options.apiKey,
    encryption: false,
    mimeType: undefined,
    dealParameters: options.dealParameters,
    onProgress: options.onProgress,
    storageType: options.storageType,
    parts: [tracked?.part ?? part]
  })
  const roots = yield* Response.carRoots(text, target)
  if (tracked !== undefined) yield* tracked.check(roots.map((root) => root.Root.Cid["/"]))
  return roots
})
