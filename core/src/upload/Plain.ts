/**
 * Plain uploads: a file, a folder, text, bytes and CAR files, each one request to the upload node.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import { InvalidUploadInput } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { trackCar } from "../verify/UploadedCar.ts"
import * as Input from "./Input.ts"
import {
  BodyMode,
  type CarOptions,
  type FolderEntry,
  type FileReads,
  type FileOptions,
  type NamedOptions,
  type Options,
  type UploadFailure
} from "./Options.ts"
import { folderFiles, planFile, toPart } from "./Plan.ts"
import * as Response from "./Response.ts"
import { addChecked } from "./Checked.ts"
import { addQuery, addSettings, type SendRequest, send } from "./Send.ts"

/** What a plain upload needs: the hosts, a file system for path inputs, and how to read them. */
export interface PlainDeps {
  readonly hosts: Hosts
  readonly fs: FileSystem.FileSystem
  /** The layer's `FileReads`. */
  readonly fileReads: FileReads
}

/**
 * How this upload reads files: reused reads only where the body streams (the `blob` mode gathers
 * the chunks). `reused` also says that the transport is done with a chunk once it has pulled the
 * one after next.
 */
export const readsFor = (deps: PlainDeps): Effect.Effect<FileReads> =>
  Effect.gen(function* () {
    return (yield* BodyMode) === "stream" ? deps.fileReads : "fresh"
  })

/** `POST /api/v0/add` of plain parts, checked against the CIDs computed while sending; `pick` the answer. */
const addPlain = (
  deps: PlainDeps,
  options: Options,
  wrap: boolean,
  mimeType: string | undefined,
  parts: SendRequest["parts"],
  pick: (entries: ReadonlyArray<Response.UploadedEntry>) => Response.UploadedEntry
) =>
  addChecked(
    deps.hosts,
    {
      path: "/api/v0/add",
      query: addQuery(options, wrap),
      apiKey: options.apiKey,
      encryption: false,
      mimeType,
      dealParameters: options.dealParameters,
      onProgress: options.onProgress,
      storageType: options.storageType,
      parts
    },
    addSettings(options, wrap),
    options.verify,
    pick
  )

const uploadOne = Effect.fnUntraced(function* (
  deps: PlainDeps,
  source: Input.FileSource,
  name: string,
  options: Options & { readonly wrapWithDirectory?: boolean | undefined; readonly mimeType?: string | undefined },
  defaultMimeType: string | undefined
): Effect.fn.Return<Response.UploadedEntry, UploadFailure> {
  const planned = yield* planFile(deps.fs, source, name, yield* readsFor(deps))
  const wrap = options.wrapWithDirectory ?? false
  // Without wrapping the file's own entry; with it, the wrapping directory (last).
  return yield* addPlain(
    deps,
    options,
    wrap,
    options.mimeType ?? defaultMimeType ?? planned.mimeType,
    [toPart(planned)],
    (entries) => (wrap ? entries.at(-1)! : (entries.find((e) => e.Name === name) ?? entries.at(-1)!))
  )
})

export const file = Effect.fn("Upload.file")(function* (deps: PlainDeps, input: Input.FileInput, options: FileOptions) {
  const source = Input.toFileSource(input)
  return yield* uploadOne(deps, source, Input.nameOf(source), options, undefined)
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
  const entry = yield* addPlain(deps, options, wrap, undefined, planned.map(toPart), (entries) =>
    root === undefined ? entries.at(-1)! : (entries.find((e) => e.Name === root) ?? entries.at(-1)!)
  )
  // Only a caller who asked to skip gets the list: other callers' results keep their shape.
  return input._tag === "Directory" && input.skipUnreadable === true ? { ...entry, skipped } : entry
})

export const text = Effect.fn("Upload.text")(function* (deps: PlainDeps, content: string, options: NamedOptions) {
  const name = options.name ?? "text"
  return yield* uploadOne(deps, Input.text(content, name), name, options, "text/plain")
})

export const buffer = Effect.fn("Upload.buffer")(function* (deps: PlainDeps, bytes: Uint8Array, options: NamedOptions) {
  const name = options.name ?? "blob"
  return yield* uploadOne(deps, Input.bytes(bytes, name), name, options, undefined)
})

export const car = Effect.fn("Upload.car")(function* (deps: PlainDeps, input: Input.FileInput, options: CarOptions) {
  const source = Input.toFileSource(input)
  const name = Input.nameOf(source)
  if (!/\.car$/i.test(name)) return yield* new InvalidUploadInput({ reason: "File must have a .car extension" })
  const part = toPart(yield* planFile(deps.fs, source, name))
  const tracked = options.verify === false ? undefined : trackCar(part, yield* BodyMode)
  const { text, url: target } = yield* send(deps.hosts, {
    path: "/api/v0/dag/import",
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
