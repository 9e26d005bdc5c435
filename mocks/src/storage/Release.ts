/**
 * Freeing an upload's buffers as soon as they are done with, instead of leaving them to the
 * garbage collector.
 *
 * V8 frees an `ArrayBuffer`'s memory only when a collection finds it dead, and the bytes of
 * buffers start a collection only once some 64 MiB more of them are held than after the last one.
 * An upload turns all of its bytes into such buffers (the request body's chunks, then the 256 KiB
 * leaves made of them), each dead a moment later: left to the collector, 64 MiB and more of them
 * are always waiting, and a served network grew by that much (and more) on its first big upload.
 * Detaching a buffer (`transfer(0)`) frees its memory at once.
 */

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

// Weak: a chunk nobody released is forgotten with it.
const owned = new WeakSet<Uint8Array>()

/**
 * Marks bytes made for one holder alone: a request body chunk the server read off its socket for
 * this request, a block read from disk for one answer. No one else (the client, another request)
 * holds them, so their last reader may free them: the body's reader once read, the server once
 * it has sent them.
 */
export const markOwnedChunk = (chunk: Uint8Array): Uint8Array => {
  owned.add(chunk)
  return chunk
}

/**
 * Frees bytes their last reader is done with, when they are ones the server marked
 * ({@link markOwnedChunk}); bytes from anywhere else (a client in the same process, the memory
 * store's blocks) are someone else's, and are left alone.
 */
export const releaseOwnedChunk = (chunk: Uint8Array): void => {
  if (owned.delete(chunk)) freeBytes(chunk)
}

// Stores whose every read is a new buffer for its caller alone (blocks on disk), never the stored one.
const freshReaders = new WeakSet<object>()

/** Marks `store` as one whose reads are new buffers its callers may free ({@link readsAfresh}). */
export const markFreshReads = <S extends object>(store: S): S => {
  freshReaders.add(store)
  return store
}

/** Whether each read of `store` is a new buffer for its caller alone (a memory store's are its own). */
export const readsAfresh = (store: object): boolean => freshReaders.has(store)
