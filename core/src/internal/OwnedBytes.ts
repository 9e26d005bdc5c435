/**
 * Freeing a transfer's buffers as soon as their last holder is done with them, instead of leaving
 * them to the garbage collector.
 *
 * V8 frees an `ArrayBuffer`'s memory only when a collection finds it dead, and the bytes of
 * buffers start a full collection only once some 64 MiB more of them are held than after the last
 * one; each full collection marks the whole heap. A download turns every byte into such buffers
 * (Node's socket reads, then its HTTP parser's copies of the body), each dead a moment later:
 * left to the collector, they cost a process holding this library 1–2 s of collections per GiB.
 * Detaching a buffer (`ArrayBuffer.prototype.transfer(0)`, Node ≥ 21, Bun, Deno, browsers) frees
 * its memory at once; where it is missing (Node 20) nothing is freed early.
 *
 * Only bytes marked by the code that made them for one reader alone are ever freed
 * ({@link markOwned}); anything else (a caller's buffer, a mock's stored block) is left alone.
 *
 * The package exports this module as `OwnedBytes` for the local network (`lighthouse-effect/mocks`),
 * which frees its own buffers the same way (`ownedMarks`, `freeBytes`); it is not for applications.
 *
 * @internal
 */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

type Transferable = ArrayBuffer & { readonly transfer?: (length: number) => ArrayBuffer; readonly detached?: boolean }

/**
 * Frees the memory of `bytes` now, when they are the whole of their buffer (a view of part of one
 * leaves it alone); they read as empty afterwards, so only their sole holder may call this.
 */
export const freeBytes = (bytes: Uint8Array): void => {
  const buffer = bytes.buffer as Transferable
  if (bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength || buffer.byteLength === 0) return
  if (typeof buffer.transfer !== "function" || buffer.detached === true) return
  try {
    buffer.transfer(0)
  } catch {
    // A buffer marked untransferable (Node's pool of small buffers) stays with the collector.
  }
}

/**
 * Marks for bytes made for one reader alone, and their release by that reader. Each maker keeps
 * marks of its own: the library's (below) never free what the local network marked, nor the other
 * way round, when both run in one process and hand each other their views.
 */
export interface OwnedMarks {
  /** Marks `bytes` (this very view) as made for one reader, who may free them once done. */
  readonly mark: (bytes: Uint8Array) => Uint8Array
  /**
   * Frees `bytes` once their reader is done with them, when they are a view these marks marked;
   * any other view (a slice of it, a buffer from elsewhere) is left alone.
   */
  readonly release: (bytes: Uint8Array) => void
}

/** A new set of {@link OwnedMarks}, weak: bytes nobody released are forgotten with them. */
export const ownedMarks = (): OwnedMarks => {
  const owned = new WeakSet<Uint8Array>()
  return {
    mark: (bytes) => {
      owned.add(bytes)
      return bytes
    },
    release: (bytes) => {
      if (owned.delete(bytes)) freeBytes(bytes)
    }
  }
}

const libraryMarks = ownedMarks()

/** Marks `bytes` (this very view) as made for one of the library's readers, who may free them once done. */
export const markOwned: (bytes: Uint8Array) => Uint8Array = libraryMarks.mark

/**
 * Frees `bytes` once their reader is done with them, when they are a view {@link markOwned} marked;
 * any other view (a slice of it, a buffer from elsewhere) is left alone. Only the last holder of a
 * stream's pieces calls this.
 */
export const releaseOwned: (bytes: Uint8Array) => void = libraryMarks.release

/**
 * Whether whatever reads a download's stream copies each piece as it comes and keeps none past
 * the next (a download's file writer, a decipher before it): set by the file writer while it runs
 * a stream, so a reader upstream may free the answer's buffers a bounded distance after it has
 * read past them (the CAR reader, `Car.ts`). A stream returned to a caller, who may keep its
 * pieces, never runs under it.
 */
export const DownstreamCopies = Context.Reference<boolean>("lighthouse-effect/internal/DownstreamCopies", {
  defaultValue: () => false
})

/**
 * `self`, each piece freed (when owned) once the piece after next has been pulled: for a consumer
 * done with a piece by then, as a streamed upload over Node's own `node:http` is (what
 * `Upload.FileReads` `reused` stands on: a read buffer is read into again at that point too).
 */
export const releasedAfterNext = <E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
  Stream.transformPull(self, (pull) =>
    Effect.sync(() => {
      let previous: ReadonlyArray<Uint8Array> = []
      let beforePrevious: ReadonlyArray<Uint8Array> = []
      return Effect.map(pull, (pieces) => {
        for (const piece of beforePrevious) releaseOwned(piece)
        beforePrevious = previous
        previous = pieces
        return pieces
      })
    })
  )
