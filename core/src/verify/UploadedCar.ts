/**
 * CAR imports checked against the node's answer. A CAR carries its blocks' CIDs itself (a node
 * that imports it checks each block against its CID), so what an answer can get wrong is which
 * DAGs were imported: the node must answer exactly the roots of the CAR's header. The header is
 * read from the first bytes as the body sends them (in `blob` mode, from the same `Blob`
 * alongside); nothing else of the CAR is kept.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { CID } from "multiformats/cid"
import { CidMismatch } from "../errors/Verification.ts"
import { carV1Roots } from "./CarHeader.ts"
import type { SentPart } from "./Uploaded.ts"

/** The most of a CAR's first bytes kept to read its header: a length prefix and 64 KiB. */
const HEADER_BYTES = 10 + 64 * 1024

/** The part to send instead, and the check of the roots the node answered. */
export interface TrackedCar<P> {
  readonly part: P
  /** Fails with `CidMismatch` unless `answered` are the roots of the header, each once. */
  readonly check: (answered: ReadonlyArray<string>) => Effect.Effect<void, CidMismatch>
}

/** The first bytes of a stream as it passes, up to `limit`, copied into one buffer. */
const headKeeper = (limit: number) => {
  const head = new Uint8Array(limit)
  let size = 0
  return {
    keep: (chunk: Uint8Array) => {
      const part = chunk.subarray(0, limit - size)
      head.set(part, size)
      size += part.byteLength
      return chunk
    },
    bytes: () => head.subarray(0, size)
  }
}

const parsed = (text: string): CID | undefined => {
  try {
    return CID.parse(text)
  } catch {
    return undefined
  }
}

/** Compares the answered roots with the header's, in both directions. */
const compareRoots = (name: string, roots: ReadonlyArray<CID> | undefined, answered: ReadonlyArray<string>) => {
  if (roots === undefined) {
    const first = answered[0] ?? "none"
    return Effect.fail(
      new CidMismatch({ path: name, expected: "none: the CAR sent has no CARv1 header", answered: first })
    )
  }
  const unexpected = answered.find((text) => !roots.some((root) => parsed(text)?.equals(root) === true))
  const missing = roots.find((root) => !answered.some((text) => parsed(text)?.equals(root) === true))
  if (unexpected === undefined && missing === undefined && answered.length === roots.length) return Effect.void
  return Effect.fail(
    new CidMismatch({
      path: name,
      expected: roots.map(String).join(", "),
      answered: answered.length === 0 ? "none" : answered.join(", ")
    })
  )
}

/** Tracks the header of a CAR `part` as it is sent (or read from its `Blob` in `blob` mode). */
export const trackCar = <P extends SentPart<unknown>>(part: P, mode: "stream" | "blob"): TrackedCar<P> => {
  const head = headKeeper(HEADER_BYTES)
  const fromBlob = mode === "blob" && part.blob !== undefined
  const headBytes = fromBlob
    ? Effect.promise(async () => new Uint8Array(await part.blob!().slice(0, HEADER_BYTES).arrayBuffer()))
    : Effect.sync(head.bytes)
  return {
    part: fromBlob ? part : { ...part, content: Stream.map(part.content, head.keep) },
    check: (answered) =>
      headBytes.pipe(
        Effect.map(carV1Roots),
        Effect.flatMap((roots) => compareRoots(part.name, roots, answered))
      )
  }
}
