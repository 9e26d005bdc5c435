/**
 * One download per target at a time: `toFile` holds `<path>.lock` while it writes, so two calls
 * for one path (in one process or in two) never write into one partial file; the second fails
 * with `DownloadInProgress`. The lock file holds its holder's process id. It appears whole or not
 * at all: written under a name of its own, then hard-linked to `<path>.lock`, which fails when
 * that name is taken. A lock whose process is gone (a crash, a `kill -9`) is stale and taken over;
 * every other lock is removed when its download ends, fails or is interrupted.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import type * as Scope from "effect/Scope"
import { DownloadInProgress } from "../errors/Transfer.ts"

/** This process's id; 0 where there are no processes (then no lock is ever taken over). */
const ownPid = (): number => globalThis.process?.pid ?? 0

/** Whether process `pid` still runs: signal 0 checks without signalling (EPERM: it runs, as another user). */
const isRunning = (pid: number): boolean => {
  if (pid === ownPid() || globalThis.process?.kill === undefined) return true
  try {
    globalThis.process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { readonly code?: string }).code === "EPERM"
  }
}

const randomSuffix = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("")

const isSystemError = (error: PlatformError, tag: string) =>
  error.reason._tag !== "BadArgument" && error.reason._tag === tag

/** Links `lock` to a file holding this process's id: `false` when `lock` exists already. */
const tryLink = (fs: FileSystem.FileSystem, lock: string): Effect.Effect<boolean, PlatformError> =>
  Effect.gen(function* () {
    const written = `${lock}.${randomSuffix()}`
    yield* fs.writeFileString(written, `${ownPid()}\n`, { flag: "wx" })
    return yield* fs.link(written, lock).pipe(
      Effect.as(true),
      Effect.catchIf(
        (error) => isSystemError(error, "AlreadyExists"),
        () => Effect.succeed(false)
      ),
      Effect.ensuring(Effect.ignore(fs.remove(written, { force: true })))
    )
  })

/** The process id in `lock`; `undefined` when it is gone meanwhile. */
const holderOf = (fs: FileSystem.FileSystem, lock: string): Effect.Effect<number | undefined, PlatformError> =>
  fs.readFileString(lock).pipe(
    Effect.map((text) => Number.parseInt(text.trim(), 10)),
    Effect.catchIf(
      (error) => isSystemError(error, "NotFound"),
      () => Effect.succeed(undefined)
    )
  )

/**
 * Takes `<path>.lock` for the scope, taking over a stale one; `DownloadInProgress` when a running
 * process holds it (this one included).
 */
export const lockTarget = (
  fs: FileSystem.FileSystem,
  path: string
): Effect.Effect<void, DownloadInProgress | PlatformError, Scope.Scope> => {
  const lock = `${path}.lock`
  const take = Effect.gen(function* () {
    // A few turns: a lock found stale is removed, then taken like a free one (another may be quicker).
    for (let turn = 0; turn < 3; turn++) {
      if (yield* tryLink(fs, lock)) return
      const pid = yield* holderOf(fs, lock)
      if (pid === undefined) continue
      if (Number.isSafeInteger(pid) && pid > 0 && !isRunning(pid)) {
        yield* Effect.logDebug(`Download: ${lock} was held by process ${pid}, which is gone: taking it over`)
        yield* fs.remove(lock, { force: true })
        continue
      }
      return yield* new DownloadInProgress({ path, lock, pid: Number.isSafeInteger(pid) ? pid : 0 })
    }
    return yield* new DownloadInProgress({ path, lock, pid: (yield* holderOf(fs, lock)) ?? 0 })
  })
  return Effect.acquireRelease(take, () => Effect.ignore(fs.remove(lock, { force: true })))
}
