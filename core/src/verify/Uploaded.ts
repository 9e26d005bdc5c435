/**
 * Uploads checked against the node's answer: the CIDs of the files are computed from their bytes
 * as they are sent (in `blob` body mode, read from the same `Blob`s alongside the request), and
 * every entry the node answers must carry the CID computed for its path. A mismatch is
 * `CidMismatch` naming both CIDs; the upload is never taken as it was answered. Only then are the
 * bytes read again from their source (a file on disk, a `Blob`, bytes) and hashed with the other
 * IPIP-499 profile, so that the mismatch can say when the node laid them out with that profile; a
 * one-shot stream is not kept for it, and the layout is then unknown. An upload whose CIDs match
 * hashes its bytes once.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { CID } from "multiformats/cid"
import { CidMismatch } from "../errors/Verification.ts"
import { PROFILES, type Profile } from "../unixfs/Layout.ts"
import { type AddSettings, calculator, cidsOf, type ImportedEntry } from "./UnixfsCids.ts"

/** A file of the upload, as the body sends it. */
export interface SentPart<E> {
  readonly name: string
  readonly content: Stream.Stream<Uint8Array, E>
  /** Set when the body sends the part as this `Blob` in `blob` mode, without running `content`. */
  readonly blob?: (() => Blob) | undefined
  /** The content read from its source again, when it can be: a mismatch hashes it with the other profile. */
  readonly readAgain?: (() => Stream.Stream<Uint8Array, E>) | undefined
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

/** The CID `computed` gives the answered `entry` (by path, or the root for the upload's own `result`). */
const cidFor = (
  computed: ReadonlyArray<ImportedEntry>,
  entry: AnsweredEntry,
  result: AnsweredEntry | undefined
): CID | undefined => {
  const byPath = computed.find((imported) => imported.path === entry.Name)?.cid
  return byPath ?? (entry === result ? computed.at(-1)?.cid : undefined)
}

/** The first answered entry whose CID is not the computed one, with the computed one. */
const firstWrong = (
  computed: ReadonlyArray<ImportedEntry>,
  answered: ReadonlyArray<AnsweredEntry>,
  result: AnsweredEntry | undefined
): { readonly entry: AnsweredEntry; readonly cid: CID } | undefined => {
  const pairs = answered.flatMap((entry) => {
    const cid = cidFor(computed, entry, result)
    return cid === undefined ? [] : [{ entry, cid }]
  })
  const root = computed.at(-1)
  if (result !== undefined && root !== undefined && !pairs.some((pair) => pair.entry === result)) {
    pairs.push({ entry: result, cid: root.cid })
  }
  return pairs.find(({ entry, cid }) => !sameCid(cid, entry.Hash))
}

/** The layout a mismatch names: the other profile's, `"unknown"` when the bytes cannot be read again. */
const layoutOf = Effect.fnUntraced(function* <E>(
  parts: ReadonlyArray<SentPart<E>>,
  settings: AddSettings,
  wrong: AnsweredEntry,
  result: AnsweredEntry | undefined
) {
  const asked = settings.profile ?? "unixfs-v0-2015"
  const other: Profile = PROFILES.find((profile) => profile !== asked) ?? asked
  const again = parts.flatMap(({ name, readAgain }) =>
    readAgain === undefined ? [] : [{ path: name, content: readAgain() }]
  )
  if (again.length < parts.length) return "unknown"
  // A source that changed or went away since it was sent tells nothing either.
  const otherCids = yield* Effect.option(cidsOf(again, { ...settings, profile: other }))
  if (otherCids._tag === "None") return "unknown"
  const cid = cidFor(otherCids.value, wrong, result)
  return cid !== undefined && sameCid(cid, wrong.Hash) ? other : undefined
})

/** Compares the node's entries with the computed ones; on a mismatch, tells the layout from `parts`. */
const compare = <E>(
  computed: ReadonlyArray<ImportedEntry>,
  sent: { readonly parts: ReadonlyArray<SentPart<E>>; readonly settings: AddSettings },
  answered: ReadonlyArray<AnsweredEntry>,
  result: AnsweredEntry | undefined
): Effect.Effect<void, CidMismatch> => {
  const wrong = firstWrong(computed, answered, result)
  if (wrong === undefined) return Effect.void
  return Effect.flatMap(layoutOf(sent.parts, sent.settings, wrong.entry, result), (layout) =>
    Effect.fail(
      new CidMismatch({
        path: wrong.entry.Name,
        expected: wrong.cid.toString(),
        answered: wrong.entry.Hash,
        ...(layout === undefined ? {} : { layout })
      })
    )
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
          Effect.flatMap((computed) => compare(computed, { parts, settings }, answered, result))
        )
    }
    return tracked
  })
