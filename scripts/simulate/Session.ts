/**
 * What one flow leaves for the next: the owner's API key, the files uploaded and their bytes (to
 * compare what comes back), the encrypted files. A flow reads only what the flows it `needs`
 * wrote; a missing value is a bug in those declarations, so it is a defect, not a step failure.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Redacted } from "effect"

/** A file the simulation uploaded, with the bytes it sent. */
export interface Stored {
  readonly cid: string
  readonly name: string
  readonly bytes: Uint8Array
}

export interface State {
  /** The owner's API key (flow `account`). */
  apiKey?: Redacted.Redacted<string>
  /** A plain file uploaded from a path (flow `upload`). */
  file?: Stored
  /** A plain text upload, published under IPNS and deleted later (flow `upload`). */
  text?: Stored
  /** Files encrypted with one JWT (flow `encryption`). */
  encrypted?: ReadonlyArray<Stored>
}

/** The shared, mutable state of one run. */
export class Session extends Context.Service<Session, State>()("lighthouse-effect/scripts/simulate/Session") {
  static readonly layer = Layer.sync(Session, (): State => ({}))
}

/** A value a needed flow wrote. */
export const need = Effect.fnUntraced(function* <K extends keyof State>(
  key: K
): Effect.fn.Return<NonNullable<State[K]>, never, Session> {
  const value = (yield* Session)[key]
  if (value === undefined) return yield* Effect.die(new Error(`no ${key} in the session: a flow misses a "needs"`))
  return value as NonNullable<State[K]>
})

/** Keeps a value for the flows that need it. */
export const keep = Effect.fnUntraced(function* <K extends keyof State>(
  key: K,
  value: NonNullable<State[K]>
): Effect.fn.Return<void, never, Session> {
  const state = yield* Session
  state[key] = value
})
