/**
 * A download's bytes written to a file in writes of {@link WRITE_BYTES}.
 *
 * A gateway's answer arrives in socket-sized pieces (64 KiB on Node); a write per piece is a
 * system call and a trip through the file system's thread pool each, which cost the download a
 * third of its CPU outside garbage collection. Pieces are gathered into one buffer that every
 * write reuses once the previous write has finished, so the writes allocate nothing; a piece at
 * least as large as the buffer, arriving when it is empty, is written as it is. A piece the
 * response owned (`OwnedBytes`) is freed once copied or written: the file is its last reader.
 *
 * Writes are 256 KiB, not larger: Linux backs a write into the page cache with folios as large as
 * the write and its file offset allow (1 MiB writes at 1 MiB offsets take 1 MiB folios), and
 * folios that large come out of the kernel's large free blocks, which a VM that hands free memory
 * back to its host (free page reporting) must fault in again on the copy. On such a VM a loop of
 * 1 MiB writes cost 7–15× the system time of 256 KiB writes for the same bytes (BENCHMARKS.md,
 * "Against the wire: where the time goes"); elsewhere the two sizes cost alike.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { PlatformError } from "effect/PlatformError"
import * as Stream from "effect/Stream"
import { DownstreamCopies, releaseOwned } from "../internal/OwnedBytes.ts"

/** Bytes gathered before a write. */
export const WRITE_BYTES = 256 * 1024

/** Told the bytes written so far after each write (a download's progress). */
export type OnWritten = (bytesWritten: number) => void

/** A buffer filled by `add` and written out whole by `flush`, reused after every write. */
const gatherer = (file: FileSystem.File, size: number, onWritten: OnWritten | undefined) => {
  const buffer = new Uint8Array(size)
  let filled = 0
  let written = 0
  const write = (bytes: Uint8Array) => {
    const done = file.writeAll(bytes)
    if (onWritten === undefined) return done
    const length = bytes.byteLength
    return Effect.map(done, () => {
      written += length
      onWritten(written)
    })
  }
  const flush = Effect.suspend(() => {
    if (filled === 0) return Effect.void
    const full = buffer.subarray(0, filled)
    filled = 0
    return write(full)
  })
  // The writer is a download's last reader: a piece the response owned is freed once written or copied.
  const release = (piece: Uint8Array) => Effect.sync(() => releaseOwned(piece))
  const add = (piece: Uint8Array): Effect.Effect<void, PlatformError> =>
    Effect.suspend(() => {
      if (filled === 0 && piece.byteLength >= size) return Effect.andThen(write(piece), release(piece))
      const taken = Math.min(piece.byteLength, size - filled)
      const whole = taken === piece.byteLength
      buffer.set(whole ? piece : piece.subarray(0, taken), filled)
      filled += taken
      if (whole) releaseOwned(piece)
      if (filled < size) return Effect.void
      if (whole) return flush
      return flush.pipe(Effect.andThen(add(piece.subarray(taken))), Effect.andThen(release(piece)))
    })
  return { add, flush }
}

/**
 * Runs `bytes` into `file` from its current position, in writes of `writeBytes`; the last write
 * holds what is left when the stream ends, or fails: every byte the stream gave is in the file
 * then (a resumable download keeps them). `onWritten` hears of each write once it is done.
 */
export const writeStreamTo = <E, R>(
  file: FileSystem.File,
  bytes: Stream.Stream<Uint8Array, E, R>,
  writeBytes = WRITE_BYTES,
  onWritten?: OnWritten
): Effect.Effect<void, E | PlatformError, R> =>
  Effect.gen(function* () {
    const { add, flush } = gatherer(file, writeBytes, onWritten)
    yield* Stream.runForEachArray(bytes, (pieces) => Effect.forEach(pieces, add, { discard: true })).pipe(
      Effect.onError(() => Effect.ignore(flush)),
      Effect.provideService(DownstreamCopies, true)
    )
    yield* flush
  })

/** Runs `bytes` into the file at `path`, opened with `flag`, as {@link writeStreamTo} does. */
export const writeStream = <E, R>(
  fs: FileSystem.FileSystem,
  path: string,
  flag: FileSystem.OpenFlag,
  bytes: Stream.Stream<Uint8Array, E, R>,
  writeBytes = WRITE_BYTES,
  onWritten?: OnWritten
): Effect.Effect<void, E | PlatformError, R> =>
  Effect.scoped(Effect.flatMap(fs.open(path, { flag }), (file) => writeStreamTo(file, bytes, writeBytes, onWritten)))

/** The bytes of an open file from its start to `size`, in reads of {@link WRITE_BYTES}. */
export const readStreamFrom = (file: FileSystem.File, size: number): Stream.Stream<Uint8Array, PlatformError> =>
  Stream.unfold(0, (at) =>
    at >= size
      ? Effect.succeed(undefined)
      : Effect.map(file.readAlloc(Math.min(WRITE_BYTES, size - at), { position: BigInt(at) }), (read) =>
          read._tag === "None" || read.value.length === 0 ? undefined : ([read.value, at + read.value.length] as const)
        )
  )
