/**
 * Uploads checked against the node's answer: the CIDs of the files are computed from their bytes
 * as they are sent (in `blob` body mode, read from the same `Blob`s alongside the request), and
 * every entry the node answers must carry the CID computed for its path. A mismatch is
 * `CidMismatch` naming both CIDs; the upload is never taken as it was answered.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { CID } from "multiformats/cid"
import { CidMismatch } from "../errors/Verification.ts"
import { type AddSettings, calculator, type ImportedEntry } from "./UnixfsCids.ts"

/** A file of the upload, as the body sends it. */
export interface SentPart<E> {
  readonly name: string
  readonly content: Stream.Stream<Uint8Array, E>
  /** Set when the body sends the part as this `Blob` in `blob` mode, without running `content`. */
  readonly blob?: (() => Blob) | undefined
}

/** How a part's content can fail. */
type ContentError<P> = P extends SentPart<infer E> ? E : never

/** An entry of the node's answer. */
export interface AnsweredEntry {
  readonly Name: string
  readonly Hash: string
}

/** The parts to send instead, and the check of the node's answer once it came. */
export interface Tracked<P, E> {
  readonly parts: ReadonlyArray<P>
  /**
   * Fails with `CidMismatch` when an answered entry has another CID than its path's; the
   * `result` entry (the upload's own) is compared with the computed root when no path names it.
   */
  readonly check: (
    answered: ReadonlyArray<AnsweredEntry>,
    result?: AnsweredEntry | undefined
  ) => Effect.Effect<void, CidMismatch | E>
}

const sameCid = (computed: CID, answered: string) => {
  try {
    return CID.parse(answered).equals(computed)
  } catch {
    return false
  }
}

/** Compares the node's entries with the computed ones. */
const compare = (
  computed: ReadonlyArray<ImportedEntry>,
  answered: ReadonlyArray<AnsweredEntry>,
  result: AnsweredEntry | undefined
): Effect.Effect<void, CidMismatch> => {
  const byPath = new Map(computed.map((entry) => [entry.path, entry.cid]))
  const root = computed.at(-1)
  const pairs = answered.flatMap((entry) => {
    const cid = byPath.get(entry.Name) ?? (entry === result ? root?.cid : undefined)
    return cid === undefined ? [] : [{ entry, cid }]
  })
  if (result !== undefined && root !== undefined && !pairs.some((pair) => pair.entry === result)) {
    pairs.push({ entry: result, cid: root.cid })
  }
  const wrong = pairs.find(({ entry, cid }) => !sameCid(cid, entry.Hash))
  return wrong === undefined
    ? Effect.void
    : Effect.fail(
        new CidMismatch({ path: wrong.entry.Name, expected: wrong.cid.toString(), answered: wrong.entry.Hash })
      )
}

/**
 * Tracks the CIDs of `parts` for an `add` with `settings`: each part's content feeds the
 * calculator as the body reads it; in `blob` mode a part sent as its `Blob` is read alongside.
 */
export const track = <P extends SentPart<unknown>>(
  parts: ReadonlyArray<P>,
  settings: AddSettings,
  mode: "stream" | "blob"
): Effect.Effect<Tracked<P, ContentError<P>>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const cids = yield* calculator(settings)
    const fed = parts.map((part) => ({ ...part, content: cids.file(part.name, part.content) }))
    // A `Blob` sent as is is read again here (the same bytes); other contents pass once, through the body.
    const unread = mode === "blob" ? fed.filter((part) => part.blob !== undefined) : []
    const reading = yield* Effect.forkScoped(
      Effect.forEach(
        unread,
        // The parts' contents fail as their type `P` says.
        (part) => Stream.runDrain(part.content as Stream.Stream<Uint8Array, ContentError<P>>),
        { discard: true }
      )
    )
    const tracked: Tracked<P, ContentError<P>> = {
      parts: fed,
      check: (answered, result) =>
        Fiber.join(reading).pipe(
          Effect.andThen(cids.entries),
          Effect.flatMap((computed) => compare(computed, answered, result))
        )
    }
    return tracked
  })
