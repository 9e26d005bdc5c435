/**
 * A block's bytes as the pieces they arrived in: views into the answer's socket reads, in order,
 * never copied. A CAR answer's 64 KiB reads rarely line up with its blocks, and joining each
 * block into one fresh buffer doubled the `ArrayBuffer` memory a verified download allocates,
 * which is what sets off V8's full collections in a process that holds a large heap. So blocks
 * stay in pieces from the CAR reader through the hash to the file; only the few bytes that must
 * be parsed (a dag-pb node, a CID) are joined.
 *
 * @internal
 */

/** A block's bytes in order, in one or more views. */
export type Pieces = ReadonlyArray<Uint8Array>

/** The bytes of `pieces` together. */
export const byteLengthOf = (pieces: Pieces): number => {
  let total = 0
  for (const piece of pieces) total += piece.byteLength
  return total
}

/** `pieces` as one view: the piece itself when there is one, else a copy of them all. */
export const joinPieces = (pieces: Pieces): Uint8Array => {
  if (pieces.length === 1) return pieces[0]!
  const joined = new Uint8Array(byteLengthOf(pieces))
  let offset = 0
  for (const piece of pieces) {
    joined.set(piece, offset)
    offset += piece.byteLength
  }
  return joined
}

/** Bytes [start, end) of `pieces`, as views into them; empty pieces are left out. */
export const slicePieces = (pieces: Pieces, start: number, end: number): Pieces => {
  const sliced: Array<Uint8Array> = []
  let at = 0
  for (const piece of pieces) {
    const from = Math.max(start - at, 0)
    const to = Math.min(end - at, piece.byteLength)
    if (to > from) sliced.push(from === 0 && to === piece.byteLength ? piece : piece.subarray(from, to))
    at += piece.byteLength
    if (at >= end) break
  }
  return sliced
}
