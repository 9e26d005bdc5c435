/**
 * The served network's clock, as development chains have one: it runs with the wall clock, and a
 * client can move it forward or freeze it over HTTP, so the expiry of JWTs, refresh and one-time
 * tokens and the validity of IPNS records can be tested from outside the process.
 *
 * Every host answers `/__dev/clock`:
 * - `GET` → `{ now, frozen, offsetMs }` (`now` in milliseconds since the epoch);
 * - `POST { "advanceMs": N }` moves the clock N ≥ 0 milliseconds forward (also when frozen);
 * - `POST { "freeze": true }` stops it where it is, `{ "freeze": false }` lets it run on from there;
 * both may be given together (freeze first, then advance). The answer is the new state.
 */

/** The clock of a served network. */
export interface DevClock {
  /** Milliseconds since the epoch: the network's `clock`. */
  readonly now: () => number
  /** Moves the clock `ms` forward. */
  readonly advance: (ms: number) => void
  /** Stops the clock (true) or lets it run on from where it stands (false). */
  readonly freeze: (frozen: boolean) => void
  readonly state: () => DevClockState
}

export interface DevClockState {
  readonly now: number
  readonly frozen: boolean
  /** How far the clock is ahead of the one it started from. */
  readonly offsetMs: number
}

/** The path every host answers the clock on. */
export const devClockPath = "/__dev/clock"

/** A clock that follows `base` (default `Date.now`) until it is moved or frozen. */
export const makeDevClock = (base: () => number = Date.now): DevClock => {
  let offset = 0
  let frozenAt: number | undefined
  const now = () => frozenAt ?? base() + offset
  return {
    now,
    advance: (ms) => {
      if (frozenAt === undefined) offset += ms
      else frozenAt += ms
    },
    freeze: (frozen) => {
      if (frozen && frozenAt === undefined) frozenAt = now()
      if (!frozen && frozenAt !== undefined) {
        offset = frozenAt - base()
        frozenAt = undefined
      }
    },
    state: () => {
      const at = now()
      return { now: at, frozen: frozenAt !== undefined, offsetMs: at - base() }
    }
  }
}

const refuse = (error: string) => Response.json({ error }, { status: 400 })

/** Answers a request to {@link devClockPath}; `clock` undefined: the served network keeps its own clock. */
export const answerDevClock = async (clock: DevClock | undefined, request: Request): Promise<Response> => {
  if (clock === undefined) {
    return Response.json({ error: "this network was served with its own clock: it cannot be moved" }, { status: 404 })
  }
  if (request.method === "GET" || request.method === "HEAD") return Response.json(clock.state())
  if (request.method !== "POST") return Response.json({ error: "use GET or POST" }, { status: 405 })
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return refuse('the body must be JSON: { "advanceMs": N } and/or { "freeze": true | false }')
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return refuse('the body must be an object: { "advanceMs": N } and/or { "freeze": true | false }')
  }
  const { advanceMs, freeze } = body as { advanceMs?: unknown; freeze?: unknown }
  if (advanceMs !== undefined && (typeof advanceMs !== "number" || !Number.isFinite(advanceMs) || advanceMs < 0)) {
    return refuse("advanceMs must be a finite number of milliseconds, 0 or more")
  }
  if (freeze !== undefined && typeof freeze !== "boolean") return refuse("freeze must be true or false")
  if (advanceMs === undefined && freeze === undefined) return refuse("give advanceMs, freeze, or both")
  if (freeze !== undefined) clock.freeze(freeze)
  if (advanceMs !== undefined) clock.advance(advanceMs)
  return Response.json(clock.state())
}
