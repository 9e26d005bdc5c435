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
 *
 * Every `/__dev/*` route is for the developer's own tools, never for a web page the developer
 * happens to visit: a browser sends a cross-site `POST` with `Content-Type: text/plain` (or a
 * form's) without asking the server first, so such a page could move the clock ten years and
 * expire every JWT. A dev route therefore takes a body only as `application/json` (`415`
 * otherwise), which a browser must preflight, and refuses any `Origin` but the server's own
 * (`http://127.0.0.1:<port>`, `http://localhost:<port>`, `http://[::1]:<port>` or the address it is
 * bound to, on the port the request came in on): `403`, the preflight too. Tools that send no
 * `Origin` (curl, Node's `fetch`, the tests) are unaffected.
 */
import { Routes } from "lighthouse-effect/contract"

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

/** The path every host answers the clock on (`GET` reads it, `POST` moves it). */
export const devClockPath = Routes.dev.clock.path

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

/** Every path under this one (the clock's folder, `/__dev/`) is a development route. */
export const devPathPrefix = devClockPath.slice(0, devClockPath.lastIndexOf("/") + 1)

/** The origins of a page served by this server itself, on `port`. */
export const ownOrigins = (bind: string, port: number): ReadonlySet<string> =>
  new Set(
    ["127.0.0.1", "localhost", "[::1]", bind.includes(":") ? `[${bind}]` : bind].map((host) => `http://${host}:${port}`)
  )

const isJson = (contentType: string | null) =>
  contentType !== null && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/**
 * Why a request to a development route is refused, or undefined when it may go on: a foreign
 * `Origin` is `403` (the preflight included), a POST, PUT or PATCH not sent as `application/json` is `415`.
 */
export const devRouteRefusal = (request: Request, own: ReadonlySet<string>): Response | undefined => {
  const origin = request.headers.get("origin")
  if (origin !== null && !own.has(origin))
    return Response.json(
      { error: `the development routes answer only this server's own pages and tools, not ${origin}` },
      { status: 403 }
    )
  // POST is the one method with a body a browser sends cross-site unasked.
  const sendsBody = ["POST", "PUT", "PATCH"].includes(request.method)
  if (sendsBody && !isJson(request.headers.get("content-type")))
    return Response.json({ error: "the body must be JSON, sent as Content-Type: application/json" }, { status: 415 })
  return undefined
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
