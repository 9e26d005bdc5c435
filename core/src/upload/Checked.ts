/**
 * An `add` whose answer is checked: the CIDs of the files are computed from the bytes as they are
 * sent (constant memory; in `blob` body mode a `Blob` is read again alongside), so the node's
 * answer can be compared with them once it comes. With `verify: false` the answer is taken as is.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { CidMismatch, FileStreamError } from "../Errors.ts"
import type { AddSettings } from "../verify/UnixfsCids.ts"
import { type AnsweredEntry, track } from "../verify/Uploaded.ts"
import { BodyMode, type UploadFailure } from "./Options.ts"
import * as Response from "./Response.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { type SendRequest, send } from "./Send.ts"

/** A sent `add`: the node's answer, and the check of the entries read from it. */
export interface SentAdd {
  readonly text: string
  readonly url: string
  /** Fails with `CidMismatch` when an answered entry (or `result`) does not carry the CID of the bytes sent. */
  readonly check: (
    answered: ReadonlyArray<AnsweredEntry>,
    result?: AnsweredEntry | undefined
  ) => Effect.Effect<void, CidMismatch | FileStreamError>
}

/** Sends an `add` imported with `settings`, tracking its CIDs unless `verify` is `false`. */
export const sendAdd = Effect.fnUntraced(function* (
  hosts: Hosts,
  request: SendRequest,
  settings: AddSettings,
  verify: boolean | undefined
): Effect.fn.Return<SentAdd, UploadFailure, Scope.Scope> {
  if (verify === false) return { ...(yield* send(hosts, request)), check: () => Effect.void }
  const tracked = yield* track(request.parts, settings, yield* BodyMode)
  const sent = yield* send(hosts, { ...request, parts: tracked.parts })
  return { ...sent, check: tracked.check }
})

/**
 * Sends an `add` and reads the node's entries; `pick` chooses the upload's own entry, which is
 * returned once every entry checked out (unless `verify` is `false`).
 */
export const addChecked = (
  hosts: Hosts,
  request: SendRequest,
  settings: AddSettings,
  verify: boolean | undefined,
  pick: (entries: ReadonlyArray<Response.UploadedEntry>) => Response.UploadedEntry
): Effect.Effect<Response.UploadedEntry, UploadFailure | CidMismatch> =>
  Effect.scoped(
    Effect.gen(function* () {
      const sent = yield* sendAdd(hosts, request, settings, verify)
      const entries = yield* Response.entries(sent.text, sent.url)
      const result = pick(entries)
      yield* sent.check(entries, result)
      return result
    })
  )
