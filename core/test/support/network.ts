/**
 * The mock network in this process (msw) on the `TestClock`: every request logged with the test
 * time it started at, and `settle`, which runs an effect to its end while moving the TestClock on
 * whenever no request is in flight, so the key nodes' pauses and retries cost no real time.
 */
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { AnyHandler } from "msw"
import { type SetupServer, setupServer } from "msw/node"
import { afterAll, beforeAll, beforeEach } from "vitest"

export interface Logged {
  readonly method: string
  readonly url: URL
  /** `url.pathname`. */
  readonly path: string
  readonly headers: Record<string, string>
  /** The test time the request started at. */
  readonly at: number
  /** The JSON body (the text if it is not JSON), once read; `undefined` without one. */
  body: unknown
}

export interface VirtualTime {
  /** The running test's TestClock once `settle` was called in it, else 0: hand it to the mock network. */
  readonly now: () => number
  /** Back to 0, before each test. */
  readonly reset: () => void
  /** Counts the requests `server` is answering. */
  readonly watch: (server: SetupServer) => void
  /** Runs `effect` to its end, advancing the TestClock in 100 ms steps while no request is in flight. */
  readonly settle: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeVirtualTime = (): VirtualTime => {
  let clockNow: () => number = () => 0
  // When (real time) each request in flight started.
  const inflight = new Map<string, number>()
  /** Real milliseconds since the newest request in flight started; `undefined` with none. */
  const newestAge = () => (inflight.size === 0 ? undefined : performance.now() - Math.max(...inflight.values()))
  return {
    now: () => clockNow(),
    reset: () => {
      clockNow = () => 0
    },
    watch: (server) => {
      server.events.on("request:start", ({ requestId }) => {
        inflight.set(requestId, performance.now())
      })
      server.events.on("request:end", ({ requestId }) => {
        inflight.delete(requestId)
      })
    },
    settle: (effect) =>
      Effect.gen(function* () {
        const clock = yield* Clock.Clock
        clockNow = () => clock.currentTimeMillisUnsafe()
        const fiber = yield* Effect.forkChild(effect)
        let busyTurns = 0
        while (fiber.pollUnsafe() === undefined) {
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          // A request in flight holds the clock for 500 turns, and for its first 200 ms of real time:
          // on a busy machine a key node's signature check outlasts 500 turns. One that is older may
          // be waiting on the clock itself (a node down until the client gives up).
          const age = newestAge()
          if (age !== undefined && (busyTurns++ < 500 || age < 200)) continue
          busyTurns = 0
          yield* TestClock.adjust("100 millis")
        }
        return yield* Fiber.join(fiber)
      })
  }
}

/** Logs every request `server` sees, stamped with `now()`. */
export const recordRequests = (server: SetupServer, now: () => number): Array<Logged> => {
  const log: Array<Logged> = []
  server.events.on("request:start", ({ request }) => {
    const url = new URL(request.url)
    const entry: Logged = {
      method: request.method,
      url,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      at: now(),
      body: undefined
    }
    log.push(entry)
    void request
      .clone()
      .text()
      .then((text) => {
        entry.body = text === "" ? undefined : parseJson(text)
      })
  })
  return log
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** What the harness serves: a mock network, or part of one. */
export interface Mock {
  readonly handlers: ReadonlyArray<AnyHandler>
  /** Back to the empty network, before each test. */
  readonly reset: () => void
}

/**
 * Serves `make(now)` for the current test file: listens before its tests (unhandled requests are
 * errors), resets the mock, the log and the clock before each one, and stops after them.
 */
export const makeNetworkHarness = <M extends Mock>(make: (now: () => number) => M) => {
  const time = makeVirtualTime()
  const network = make(time.now)
  const server = setupServer(...network.handlers)
  time.watch(server)
  const log = recordRequests(server, time.now)
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
  afterAll(() => server.close())
  beforeEach(() => {
    network.reset()
    log.length = 0
    time.reset()
  })
  return { network, server, log, now: time.now, settle: time.settle }
}
