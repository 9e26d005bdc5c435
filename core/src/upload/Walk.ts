/**
 * The files of a folder on disk: recursive, depth first in name order (so uploads and quotes
 * are reproducible), hidden files included, empty folders dropped. Only names are collected; no
 * file is opened.
 *
 * Symbolic links are followed (as the provider's `stat`-based walk did), wherever they point: a
 * link's target is uploaded under the link's name, once for each link, as a file browser or a
 * web server serving the folder shows it. A link to a folder that contains it (directly or
 * through other links) would repeat forever: that is a symlink loop, found by the identity
 * (device and inode, else the real path) of every folder above the entry, as `find -L` does. A
 * broken link, a loop and an entry the process may not read are {@link UnreadableEntry}, named by
 * their path inside the folder; with `skipUnreadable` they are left out and listed instead.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type { PlatformError } from "effect/PlatformError"
import { UnreadableEntry, type UnreadableReason } from "../Errors.ts"

/** A file found under the walked folder. */
export interface Found {
  /** The path to open. */
  readonly path: string
  /** Its path inside the walked folder, `/`-separated. */
  readonly relative: string
  readonly size: number
}

/** An entry left out because it cannot be read. */
export interface Skipped {
  /** Its path inside the walked folder, `/`-separated. */
  readonly path: string
  readonly reason: UnreadableReason
}

/** The files found, and the entries skipped (only with `skipUnreadable`). */
export interface Walked {
  readonly files: ReadonlyArray<Found>
  readonly skipped: ReadonlyArray<Skipped>
}

export interface WalkOptions {
  /** Leave out entries that cannot be read and list them, rather than fail. @default false */
  readonly skipUnreadable?: boolean | undefined
}

/** One entry, its links followed. */
type Entry =
  | { readonly _tag: "Directory"; readonly identity: string }
  | { readonly _tag: "File"; readonly size: number }
  | { readonly _tag: "Other" }
  | { readonly _tag: "Unreadable"; readonly reason: UnreadableReason }

const unreadable = (reason: UnreadableReason): Entry => ({ _tag: "Unreadable", reason })

/** The errno code under a platform error (`ELOOP` is reported as a `BadResource` like others). */
const codeOf = (error: PlatformError): unknown => {
  const cause = error.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
}

/**
 * Why `path` could not be followed, or the error itself when it is no reason of an entry's: a link
 * that `stat` cannot follow for another cause than a loop or a permission is broken.
 */
const whyUnreadable = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  path: string,
  error: PlatformError
): Effect.fn.Return<Entry, PlatformError> {
  if (error.reason._tag === "PermissionDenied") return unreadable("permission denied")
  if (codeOf(error) === "ELOOP") return unreadable("symlink loop")
  const own = yield* Effect.option(fs.lstat(path))
  if (Option.isSome(own) && own.value.type === "SymbolicLink") return unreadable("broken link")
  return yield* Effect.fail(error)
})

/** A folder's identity: its device and inode, else (no inodes on this platform) its real path. */
const identityOf = (fs: FileSystem.FileSystem, path: string, info: FileSystem.File.Info) =>
  Option.match(
    Option.filter(info.ino, (ino) => ino !== 0n),
    {
      onSome: (ino) => Effect.succeed(`${info.dev}:${ino}`),
      onNone: () => fs.realPath(path)
    }
  )

/** What `path` is once its links are followed; a file only when the process may read it. */
const inspect = Effect.fnUntraced(function* (
  fs: FileSystem.FileSystem,
  path: string
): Effect.fn.Return<Entry, PlatformError> {
  const info = yield* Effect.result(fs.stat(path))
  if (info._tag === "Failure") return yield* whyUnreadable(fs, path, info.failure)
  switch (info.success.type) {
    case "Directory":
      return { _tag: "Directory", identity: yield* identityOf(fs, path, info.success) }
    case "File": {
      const readable = yield* Effect.result(fs.access(path, { readable: true }))
      if (readable._tag === "Failure") return yield* whyUnreadable(fs, path, readable.failure)
      return { _tag: "File", size: Number(info.success.size) }
    }
    default:
      return { _tag: "Other" }
  }
})

/** Every file under `dir`, and the entries that cannot be read when `options.skipUnreadable`. */
export const walk = (
  fs: FileSystem.FileSystem,
  dir: string,
  options: WalkOptions = {}
): Effect.Effect<Walked, PlatformError | UnreadableEntry> =>
  Effect.gen(function* () {
    const files: Array<Found> = []
    const skipped: Array<Skipped> = []
    const refuse = (path: string, reason: UnreadableReason): Effect.Effect<void, UnreadableEntry> =>
      options.skipUnreadable === true
        ? Effect.sync(() => void skipped.push({ path, reason }))
        : Effect.fail(new UnreadableEntry({ path, reason }))

    /** The folder at `at` (`relative` inside the walked one), below the folders `above`. */
    const go = (
      at: string,
      relative: string,
      above: ReadonlySet<string>
    ): Effect.Effect<void, PlatformError | UnreadableEntry> =>
      Effect.gen(function* () {
        const names = yield* Effect.result(fs.readDirectory(at))
        if (names._tag === "Failure") {
          // The walked folder itself must be readable: only the entries inside it are skipped.
          const denied = names.failure.reason._tag === "PermissionDenied"
          return yield* relative !== "" && denied ? refuse(relative, "permission denied") : Effect.fail(names.failure)
        }
        for (const name of names.success.sort()) {
          const path = `${at}/${name}`
          const rel = relative === "" ? name : `${relative}/${name}`
          const entry = yield* inspect(fs, path)
          if (entry._tag === "Unreadable") yield* refuse(rel, entry.reason)
          else if (entry._tag === "File") files.push({ path, relative: rel, size: entry.size })
          else if (entry._tag === "Directory") {
            if (above.has(entry.identity)) yield* refuse(rel, "symlink loop")
            else yield* go(path, rel, new Set([...above, entry.identity]))
          }
        }
      })

    const root = dir.replace(/[\\/]+$/, "") || "/"
    yield* go(root, "", new Set([yield* identityOf(fs, root, yield* fs.stat(root))]))
    return { files, skipped }
  })
