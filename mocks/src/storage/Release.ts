/**
 * Freeing an upload's buffers as soon as they are done with, instead of leaving them to the
 * garbage collector.
 *
 * V8 frees an `ArrayBuffer`'s memory only when a collection finds it dead, and the bytes of
 * buffers start a collection only once some 64 MiB more of them are held than after the last one.
 * An upload turns all of its bytes into such buffers (the request body's chunks, then the 256 KiB
 * leaves made of them), each dead a moment later: left to the collector, 64 MiB and more of them
 * are always waiting, and a served network grew by that much (and more) on its first big upload.
 * Detaching a buffer (`transfer(0)`) frees its memory at once: the library's `OwnedBytes` does it,
 * here with the server's own marks, and which stores' reads are fresh buffers.
 */
import { OwnedBytes } from "lighthouse-effect"

/**
 * The server's marks: bytes made for one holder alone, a request body chunk the server read off its
 * socket for this request, a block read from disk for one answer. No one else (the client, another
 * request) holds them, so their last reader may free them: the body's reader once read, the server
 * once it has sent them. Bytes from anywhere else (a client in the same process, which keeps marks
 * of its own, or the memory store's blocks) are someone else's, and are left alone.
 */
const chunks = OwnedBytes.ownedMarks()

/** Marks a chunk made for one holder alone ({@link chunks}). */
export const markOwnedChunk: (chunk: Uint8Array) => Uint8Array = chunks.mark

/** Frees a chunk its last reader is done with, when the server marked it ({@link markOwnedChunk}). */
export const releaseOwnedChunk: (chunk: Uint8Array) => void = chunks.release

// Stores whose every read is a new buffer for its caller alone (blocks on disk), never the stored one.
const freshReaders = new WeakSet<object>()

/** Marks `store` as one whose reads are new buffers its callers may free ({@link readsAfresh}). */
export const markFreshReads = <S extends object>(store: S): S => {
  freshReaders.add(store)
  return store
}

/** Whether each read of `store` is a new buffer for its caller alone (a memory store's are its own). */
export const readsAfresh = (store: object): boolean => freshReaders.has(store)
