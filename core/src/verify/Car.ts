/**
 * A CAR (v1) answer read as it streams in, as a {@link BlockSource} for the verifying walk.
 *
 * Blocks must come in the order the walk needs them (a trustless gateway's `order=dfs`), so only
 * the block being checked is in memory, as the pieces it arrived in (views into the answer's
 * reads, never joined: see `Pieces.ts`). A block the walk needs again (a repeated chunk, which a
 * gateway answering `dups=n` sends once) is served from a small cache of recent blocks; past that
 * bound the answer fails as missing a block. Sections over 2 MiB (the largest block IPFS nodes
 * exchange) are refused before they are read.
 *
 * @since 0.1.0
 */
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"
import { varint } from "multiformats"
import { CID } from "multiformats/cid"
import { ContentVerificationFailed } from "../errors/Verification.ts"
import { DownstreamCopies, releaseOwned } from "../internal/OwnedBytes.ts"
import { blockKey, failure, isInline, sameBlock } from "./Blocks.ts"
import { carV1Roots } from "./CarHeader.ts"
import { byteLengthOf, joinPieces, type Pieces } from "./Pieces.ts"
import { type BlockSource, type Target, walk } from "./Walk.ts"

/** The largest block a CAR section may hold. */
export const MAX_BLOCK_BYTES = 2 * 1024 * 1024
const MAX_HEADER_BYTES = 64 * 1024
/** Room for a CID in front of a block. */
const MAX_CID_BYTES = 128
/** Bytes of recent blocks kept to serve a block the walk needs again. */
const CACHE_BYTES = 4 * 1024 * 1024

/**
 * How far past a read the reader frees it, when it may: past the largest block and the recent
 * blocks' cache, so a read is freed only once nothing downstream looks at it and, but for a block
 * repeated from long before, no cached block lies in it (`keep` would copy that block first).
 */
const RETIRE_BYTES = 8 * 1024 * 1024

/** A read not yet consumed: what is left of it, and the read itself. */
interface Held {
  bytes: Uint8Array
  readonly read: Uint8Array
}

/**
 * Bytes pulled from a stream on demand, kept only until consumed. With `freesReads`, a read is
 * freed ({@link releaseOwned}: only one the response owns) once {@link RETIRE_BYTES} more have been
 * consumed after it: by then nothing downstream (which copies, {@link DownstreamCopies}) still
 * looks at it, and `beforeFree` has had the cache copy what it keeps of it.
 */
class ByteReader<E> {
  readonly #pullMore: Effect.Effect<void, E>
  readonly #chunks: Array<Held> = []
  readonly #retired: Array<{ readonly read: Uint8Array; readonly at: number }> = []
  readonly #freesReads: boolean
  #buffered = 0
  #consumed = 0
  #ended = false
  /** Called with a read just before it is freed. */
  beforeFree: (read: Uint8Array) => void = () => {}

  constructor(pull: Pull.Pull<ReadonlyArray<Uint8Array>, E>, freesReads: boolean) {
    this.#freesReads = freesReads
    // One effect for every read (this runs once per socket read of the answer).
    this.#pullMore = pull.pipe(
      Effect.map((more) => this.#hold(more)),
      Pull.catchDone(() =>
        Effect.sync(() => {
          this.#ended = true
        })
      )
    )
  }

  #hold(reads: ReadonlyArray<Uint8Array>): void {
    for (const read of reads) {
      if (read.byteLength === 0) continue
      this.#chunks.push({ bytes: read, read })
      this.#buffered += read.byteLength
    }
  }

  /** How many bytes are buffered. */
  get buffered(): number {
    return this.#buffered
  }

  /** Whether the stream has ended (nothing more will be buffered). */
  get ended(): boolean {
    return this.#ended
  }

  /** Pulls until `n` bytes are buffered or the stream ends; whether they are. */
  fill(n: number): Effect.Effect<boolean, E> {
    return Effect.suspend(() =>
      this.#buffered >= n || this.#ended
        ? Effect.succeed(this.#buffered >= n)
        : Effect.andThen(this.#pullMore, this.fill(n))
    )
  }

  /** The first `n` buffered bytes (fewer when fewer are buffered), contiguous. */
  peek(n: number): Uint8Array {
    const want = Math.min(n, this.#buffered)
    const first = this.#chunks[0]?.bytes ?? new Uint8Array()
    if (first.byteLength >= want) return first.subarray(0, want)
    const joined = new Uint8Array(want)
    let offset = 0
    for (const { bytes } of this.#chunks) {
      if (offset === want) break
      const part = bytes.subarray(0, want - offset)
      joined.set(part, offset)
      offset += part.byteLength
    }
    return joined
  }

  /** The first `n` buffered bytes (fewer when fewer are buffered), contiguous, consumed. */
  take(n: number): Uint8Array {
    const bytes = this.peek(n)
    this.skip(bytes.byteLength)
    return bytes
  }

  /** The first `n` buffered bytes (fewer when fewer are buffered) as views into the chunks, consumed. */
  takePieces(n: number): Pieces {
    const pieces: Array<Uint8Array> = []
    this.#consume(n, pieces)
    return pieces
  }

  /** Consumes the first `n` buffered bytes (fewer when fewer are buffered) unseen. */
  skip(n: number): void {
    this.#consume(n, undefined)
  }

  /** Consumes the first `n` buffered bytes, as views into the chunks onto `pieces` when given. */
  #consume(n: number, pieces: Array<Uint8Array> | undefined): void {
    let left = Math.min(n, this.#buffered)
    this.#buffered -= left
    while (left > 0) {
      const first = this.#chunks[0]!
      if (first.bytes.byteLength <= left) {
        this.#chunks.shift()
        // Never the read itself, which the response may own: only this reader frees it.
        pieces?.push(first.bytes === first.read ? first.bytes.subarray(0) : first.bytes)
        left -= first.bytes.byteLength
        this.#consumed += first.bytes.byteLength
        if (this.#freesReads) this.#retired.push({ read: first.read, at: this.#consumed })
      } else {
        pieces?.push(first.bytes.subarray(0, left))
        first.bytes = first.bytes.subarray(left)
        this.#consumed += left
        left = 0
      }
    }
    while (this.#retired.length > 0 && this.#retired[0]!.at + RETIRE_BYTES <= this.#consumed) {
      const { read } = this.#retired.shift()!
      this.beforeFree(read)
      releaseOwned(read)
    }
  }
}

/** More bytes than are buffered are needed first: the reader must hold `need` of them. */
class Short {
  readonly need: number
  // Not a parameter property: Node runs these sources with its types stripped, which has none.
  constructor(need: number) {
    this.need = need
  }
}

/** What a parse of buffered bytes answers: a value, a failure, or {@link Short}. */
type Parsed<A> = A | ContentVerificationFailed | Short

/** Whether a parse answered a value (neither a failure nor {@link Short}). */
const isValue = <A>(parsed: Parsed<A>): parsed is A =>
  !(parsed instanceof Short) && !(parsed instanceof ContentVerificationFailed)

/**
 * `parse` run on the reader's buffered bytes, pulling more each time it answers {@link Short}.
 * Parsing is synchronous and the effect is built once for all its runs: a verified download
 * parses a section per block, and a generator per block (an `Effect.gen` step waiting on the
 * socket) left objects behind that outlived V8's young generation, the survivors that grew it to
 * its largest over a long download.
 */
const parsing = <A, E>(
  reader: ByteReader<E>,
  parse: () => Parsed<A>
): Effect.Effect<A, ContentVerificationFailed | E> => {
  const attempt: Effect.Effect<A, ContentVerificationFailed | E> = Effect.suspend(() => {
    const parsed = parse()
    if (isValue(parsed)) return Effect.succeed(parsed)
    return parsed instanceof Short ? Effect.andThen(reader.fill(parsed.need), attempt) : Effect.fail(parsed)
  })
  return attempt
}

/** The widest length prefix (a varint of a 64-bit length). */
const MAX_PREFIX_BYTES = 10

/**
 * The length-prefixed frame at the front of the buffered bytes: the prefix's size and the length;
 * `undefined` at the end of the answer.
 */
const parseFrameLength = <E>(
  root: CID,
  reader: ByteReader<E>
): Parsed<{ readonly length: number; readonly prefix: number } | undefined> => {
  if (reader.buffered === 0) return reader.ended ? undefined : new Short(1)
  try {
    const [length, prefix] = varint.decode(reader.peek(MAX_PREFIX_BYTES))
    return { length, prefix }
  } catch {
    // A prefix cut by a read: wait for the widest one, unless the answer ends first.
    if (reader.buffered < MAX_PREFIX_BYTES && !reader.ended) return new Short(MAX_PREFIX_BYTES)
    return failure(root, "truncated", "the answer ends inside a length prefix")
  }
}

/** The CAR header, when buffered whole: a CARv1 header, whatever its roots. */
const parseCarHeader = <E>(root: CID, reader: ByteReader<E>): Parsed<true> => {
  const frame = parseFrameLength(root, reader)
  if (frame === undefined) return failure(root, "truncated", "the answer is empty")
  if (!isValue(frame)) return frame
  if (frame.length > MAX_HEADER_BYTES) return failure(root, "malformed-block", `a CAR header of ${frame.length} bytes`)
  const size = frame.prefix + frame.length
  if (reader.buffered < size) {
    return reader.ended ? failure(root, "truncated", "the answer ends inside the CAR header") : new Short(size)
  }
  // The trustless gateway spec leaves `roots` unspecified ("a client SHOULD ignore this field"):
  // gateways root a path's CAR at its first or its last CID. What counts is that the blocks walk
  // from `root`, which the walk checks block by block; the header must only be a CARv1 header.
  return carV1Roots(reader.take(size)) === undefined ? failure(root, "malformed-block", "not a CARv1 header") : true
}

interface Section {
  readonly cid: CID
  readonly pieces: Pieces
}

/**
 * The CID in front of a buffered section of `length` bytes and its size in bytes. A CID is
 * decoded from its first bytes, so it is read from the section's first {@link MAX_CID_BYTES}
 * (joined only when they straddle two reads); from the whole section when those do not hold it.
 */
const sectionCid = <E>(reader: ByteReader<E>, length: number): { readonly cid: CID; readonly size: number } => {
  const head = reader.peek(Math.min(length, MAX_CID_BYTES))
  try {
    const [cid, rest] = CID.decodeFirst(head)
    return { cid, size: head.byteLength - rest.byteLength }
  } catch (error) {
    if (head.byteLength === length) throw error
    const whole = reader.peek(length)
    const [cid, rest] = CID.decodeFirst(whole)
    return { cid, size: whole.byteLength - rest.byteLength }
  }
}

/** The next section, when buffered whole; `undefined` at the end of the answer. */
const parseSection = <E>(root: CID, reader: ByteReader<E>): Parsed<Section | undefined> => {
  const frame = parseFrameLength(root, reader)
  if (frame === undefined || !isValue(frame)) return frame
  if (frame.length > MAX_BLOCK_BYTES + MAX_CID_BYTES) {
    return failure(root, "block-too-large", `a CAR section of ${frame.length} bytes (blocks are at most 2 MiB)`)
  }
  if (reader.buffered < frame.prefix + frame.length) {
    return reader.ended
      ? failure(root, "truncated", "the answer ends inside a block")
      : new Short(frame.prefix + frame.length)
  }
  reader.skip(frame.prefix)
  let cid: { readonly cid: CID; readonly size: number }
  try {
    cid = sectionCid(reader, frame.length)
  } catch (error) {
    return failure(root, "malformed-block", `a CAR section without a valid CID: ${(error as Error).message}`)
  }
  reader.skip(cid.size)
  return { cid: cid.cid, pieces: reader.takePieces(frame.length - cid.size) }
}

/**
 * Recent blocks by multihash, dropped oldest first past {@link CACHE_BYTES}. `keep` copies the
 * blocks still cached that lie in a buffer about to be freed (one repeated all along a file stays);
 * the count of cached pieces per buffer lets it skip, without a look at the cache, the buffers no
 * cached block lies in, which is nearly every one.
 *
 * No `Map`s: one added to and deleted from for every block is rehashed into a new table every few
 * blocks, and V8 leaves each old table pointing at the next (for iterators still on it). Once a
 * full collection has moved the table of the moment into the old generation, each later table, and
 * every block and buffer in it, outlived the young generation's collections through that chain:
 * measured, a 4 GiB download promoted 0.47 MB per scavenge after one full collection, 0.01 MB
 * before it, and the young generation grew to its largest. A dictionary object and a `WeakMap`
 * rehash without such links.
 */
const recentBlocks = () => {
  const blocks: Record<string, { pieces: Pieces; readonly size: number }> = Object.create(null)
  /** The keys of `blocks`, oldest first. */
  const order: Array<string> = []
  const piecesIn = new WeakMap<ArrayBufferLike, number>()
  const count = (pieces: Pieces, by: 1 | -1) => {
    for (const { buffer } of pieces) {
      const left = (piecesIn.get(buffer) ?? 0) + by
      if (left === 0) piecesIn.delete(buffer)
      else piecesIn.set(buffer, left)
    }
  }
  let bytes = 0
  return {
    get: (cid: CID) => blocks[blockKey(cid)]?.pieces,
    keep: (buffer: Uint8Array) => {
      if (!piecesIn.has(buffer.buffer)) return
      for (const key of order) {
        const cached = blocks[key]!
        if (!cached.pieces.some((piece) => piece.buffer === buffer.buffer)) continue
        count(cached.pieces, -1)
        // `new Uint8Array` copies (a Node `Buffer`'s `slice` is a view).
        cached.pieces = [cached.pieces.length === 1 ? new Uint8Array(cached.pieces[0]!) : joinPieces(cached.pieces)]
        count(cached.pieces, 1)
      }
    },
    add: (cid: CID, pieces: Pieces) => {
      const key = blockKey(cid)
      const size = byteLengthOf(pieces)
      if (key in blocks || size > CACHE_BYTES) return
      blocks[key] = { pieces, size }
      order.push(key)
      count(pieces, 1)
      bytes += size
      while (bytes > CACHE_BYTES) {
        const oldest = order.shift()!
        const old = blocks[oldest]!
        delete blocks[oldest]
        count(old.pieces, -1)
        bytes -= old.size
      }
    }
  }
}

/** Why the answer has not got block `cid` where the walk needs it, `next` coming instead. */
const notAnswered = (root: CID, cid: CID, next: Section | undefined, later: (cid: CID) => boolean) =>
  next === undefined
    ? failure(root, "missing-block", `the answer ends without block ${cid}`, cid)
    : later(next.cid)
      ? failure(root, "missing-block", `block ${cid} is missing: ${next.cid} came in its place`, cid)
      : failure(root, "unexpected-block", `block ${next.cid} came where ${cid} was needed`, next.cid)

/** The blocks of a CAR answer, in order, for the walk from `root`. */
const carSource = <E>(root: CID, reader: ByteReader<E>): BlockSource<E> => {
  /** The section read but not yet taken by a block. */
  let upcoming: Section | undefined
  const cache = recentBlocks()
  reader.beforeFree = cache.keep
  const peek = parsing(reader, () => {
    if (upcoming !== undefined) return upcoming
    const parsed = parseSection(root, reader)
    if (parsed !== undefined && isValue(parsed)) upcoming = parsed
    return parsed
  })
  const take = (next: Section | undefined, cid: CID, later: (cid: CID) => boolean) => {
    if (next !== undefined && sameBlock(next.cid, cid)) {
      upcoming = undefined
      cache.add(cid, next.pieces)
      return Effect.succeed(next.pieces)
    }
    if (isInline(cid)) return Effect.succeed([cid.multihash.digest])
    const cached = cache.get(cid)
    return cached !== undefined ? Effect.succeed(cached) : Effect.fail(notAnswered(root, cid, next, later))
  }
  const block = (cid: CID, later: (cid: CID) => boolean): Effect.Effect<Pieces, ContentVerificationFailed | E> =>
    Effect.flatMap(peek, (next) => take(next, cid, later))
  const end = Effect.flatMap(peek, (next) =>
    next === undefined
      ? Effect.void
      : Effect.fail(failure(root, "extra-block", `block ${next.cid} follows the last block of the content`, next.cid))
  )
  return { block, end }
}

/** `verifyCar`, the reads freed (`freesReads`) when the stream runs under `DownstreamCopies`. */
const verifiedCar = <E>(
  car: Stream.Stream<Uint8Array, E>,
  target: Target,
  mayFreeReads: boolean
): Stream.Stream<Uint8Array, ContentVerificationFailed | E> =>
  // The answer's own pull, not `Stream.toPull`'s: that one merges the whole context into the
  // fiber's on every pull, a copy of every service per read of the socket.
  Stream.transformPull(car, (pull, scope) =>
    Effect.gen(function* () {
      const freesReads = mayFreeReads && (yield* DownstreamCopies)
      const reader = new ByteReader(pull, freesReads)
      yield* parsing(reader, () => parseCarHeader(target.root, reader))
      return yield* Channel.toPullScoped(Stream.toChannel(walk(carSource(target.root, reader), target)), scope)
    })
  )

/**
 * The verified bytes of `target` from a CAR answer: every block checked against the CID that
 * links to it, from the CAR header's root down, before its bytes go out.
 */
export const verifyCar = <E>(
  car: Stream.Stream<Uint8Array, E>,
  target: Target
): Stream.Stream<Uint8Array, ContentVerificationFailed | E> => verifiedCar(car, target, false)

/**
 * `verifyCar` for one answer read straight into a download's file: when the stream runs where
 * everything downstream copies its pieces (`DownstreamCopies`), the reads the response owns are
 * freed a bounded distance after they have been read past, instead of left to the collector.
 *
 * @internal
 */
export const verifyCarFreeingReads = <E>(
  car: Stream.Stream<Uint8Array, E>,
  target: Target
): Stream.Stream<Uint8Array, ContentVerificationFailed | E> => verifiedCar(car, target, true)

/**
 * A CAR answer as the {@link BlockSource} of any walk from `root` (a folder's whole tree, say):
 * `walker` asks for the blocks it needs, in the CAR's order, and checks each. With `mayFreeReads`,
 * run under `DownstreamCopies`, the reads are freed as `verifyCarFreeingReads` frees them.
 *
 * @internal
 */
export const walkCar = <A, E, E2>(
  car: Stream.Stream<Uint8Array, E>,
  root: CID,
  walker: (source: BlockSource<E>) => Stream.Stream<A, E2>,
  mayFreeReads = false
): Stream.Stream<A, ContentVerificationFailed | E | E2> =>
  Stream.transformPull(car, (pull, scope) =>
    Effect.gen(function* () {
      const reader = new ByteReader(pull, mayFreeReads && (yield* DownstreamCopies))
      yield* parsing(reader, () => parseCarHeader(root, reader))
      return yield* Channel.toPullScoped(Stream.toChannel(walker(carSource(root, reader))), scope)
    })
  )
