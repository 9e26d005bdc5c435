/**
 * Fault injection for the mock network, shared by every host (API, upload node, gateway) and by
 * each of the 5 key nodes of the encryption host.
 *
 * A test arms a fault for a scope — a host, optionally one key node, a method and a path — and
 * every handler that runs its resolver through `faults.handle` / `faults.wrap` obeys it:
 *
 * - `down`: the request fails at the network level (`HttpResponse.error()`; `fetch` rejects with a
 *   `TypeError`, the real HTTP server destroys the socket);
 * - `slow`: the answer is delayed by `ms` milliseconds, then produced normally;
 * - `status`: the handler is not run and an error status is answered (500s, 404, 429, …) with a
 *   JSON body (`{ "error": … }` unless one is given);
 * - `inconsistent`: the handler runs (state changes happen) but its JSON answer is altered, so
 *   the answers of the 5 key nodes stop being identical (file bytes get one byte flipped);
 * - `lie`: the handler runs but its answer no longer matches the CIDs it claims (`Lies.ts`): the
 *   node answers wrong CIDs, the gateway serves a flipped byte, another file, a cut answer, a
 *   missing block or extra blocks;
 * - `stall`: the handler runs and its answer starts, but after `afterBytes` bytes of its body no
 *   more come, until the client gives up (the connection stays open, as a stuck peer's does);
 * - `rate`: answers' bodies come at most `bytesPerSecond` bytes a second, all the requests the
 *   fault matches together (one link's bandwidth, shared by parallel requests).
 *
 * Faults are permanent until cleared, or last `times` requests. The most recently armed matching
 * fault wins; `slow` and `rate` compose with the others (a slow node can also be down, a capped
 * gateway can also lie).
 */
import { HttpResponse } from "msw"
import { deliberate } from "../http/ContractChecked.ts"
import { type Lie, tellLie } from "./Lies.ts"

/** The four hosts of the network. */
export type HostName = "api" | "node" | "gateway" | "encryption"

export const HostNames: ReadonlyArray<HostName> = ["api", "node", "gateway", "encryption"]

/** Where a fault applies. Omitted fields match everything. */
export interface FaultScope {
  readonly host: HostName
  /** A key node id (1..5) of the encryption host; omitted = every node and host-level routes. */
  readonly node?: number
  /** Upper-case HTTP method. */
  readonly method?: string
  /** Exact pathname, or a pattern tested against the pathname. */
  readonly path?: string | RegExp
}

/** What happens to a matching request. */
export type FaultKind =
  | { readonly kind: "down" }
  | { readonly kind: "slow"; readonly ms: number }
  | { readonly kind: "status"; readonly status: number; readonly body?: unknown }
  | { readonly kind: "inconsistent"; readonly mutate?: (body: unknown, request: Request) => unknown }
  | { readonly kind: "lie"; readonly lie: Lie }
  | { readonly kind: "stall"; readonly afterBytes: number }
  | { readonly kind: "rate"; readonly bytesPerSecond: number }

export interface FaultOptions {
  /** Number of matching requests the fault applies to, then it disarms itself. Default: forever. */
  readonly times?: number
}

/** An armed fault as reported by `faults.active()`. */
export interface ActiveFault {
  readonly id: number
  readonly scope: FaultScope
  readonly fault: FaultKind
  /** Requests left before it disarms; `undefined` = until cleared. */
  readonly remaining: number | undefined
  /** Requests it has hit so far. */
  readonly hits: number
}

/** The request being answered, as handlers see it. */
export interface FaultContext {
  readonly host: HostName
  readonly node?: number | undefined
  readonly request: Request
}

export interface Faults {
  /** Arms a fault; returns its id (pass it to `remove`). */
  readonly inject: (scope: FaultScope, fault: FaultKind, options?: FaultOptions) => number
  readonly down: (scope: FaultScope, options?: FaultOptions) => number
  readonly slow: (scope: FaultScope, ms: number, options?: FaultOptions) => number
  readonly status: (scope: FaultScope, status: number, options?: FaultOptions & { readonly body?: unknown }) => number
  /** Shorthand for `status(scope, 404)`. */
  readonly notFound: (scope: FaultScope, options?: FaultOptions) => number
  readonly inconsistent: (
    scope: FaultScope,
    options?: FaultOptions & { readonly mutate?: (body: unknown, request: Request) => unknown }
  ) => number
  /** The host answers, but tells `lie` (see `Lies.ts`). */
  readonly lie: (scope: FaultScope, lie: Lie, options?: FaultOptions) => number
  /** The answer's body stops after `afterBytes` bytes and hangs until the client gives up. */
  readonly stall: (scope: FaultScope, afterBytes: number, options?: FaultOptions) => number
  /** Bodies of the matching answers come at most `bytesPerSecond` bytes a second, all of them together. */
  readonly rate: (scope: FaultScope, bytesPerSecond: number, options?: FaultOptions) => number
  readonly remove: (id: number) => boolean
  /** Disarms every fault, or only those whose scope lies inside the given host / node. */
  readonly clear: (scope?: { readonly host?: HostName; readonly node?: number }) => void
  readonly active: () => ReadonlyArray<ActiveFault>
  /**
   * Runs `answer` under the armed faults for this request. Handlers call this (or `wrap`) around
   * their whole resolver so that `status` and `down` faults short-circuit before any state change.
   */
  readonly handle: (context: FaultContext, answer: () => Response | Promise<Response>) => Promise<Response>
  /**
   * Wraps an msw resolver. `nodeOf` picks the key-node id out of the resolver's arguments (for
   * routes like `/api/setSharedKey/:n`).
   */
  readonly wrap: <Info extends { readonly request: Request }>(
    host: HostName,
    resolver: (info: Info) => Response | Promise<Response>,
    nodeOf?: (info: Info) => number | undefined
  ) => (info: Info) => Promise<Response>
}

/**
 * The bandwidth of a `rate` fault, shared by every answer it slows: each piece of a body takes
 * the next free slot of the link, so parallel answers together stay under the rate. A link saves
 * up at most {@link rateCreditMs} of idle time: a timer that fires late (a busy machine) is made
 * up for, a pause of seconds is not.
 */
interface Link {
  /** When (`performance.now()`) the slots taken so far end. */
  freeAt: number
}

interface Armed {
  readonly id: number
  readonly scope: FaultScope
  readonly fault: FaultKind
  remaining: number | undefined
  hits: number
  /** A `rate` fault's bandwidth, shared by the requests it matches. */
  readonly link: Link
}

const matches = (scope: FaultScope, context: FaultContext, pathname: string): boolean => {
  if (scope.host !== context.host) return false
  if (scope.node !== undefined && scope.node !== context.node) return false
  if (scope.method !== undefined && scope.method.toUpperCase() !== context.request.method.toUpperCase()) return false
  if (scope.path === undefined) return true
  return typeof scope.path === "string" ? scope.path === pathname : scope.path.test(pathname)
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve()
    const timer = setTimeout(resolve, ms)
    // An aborted client stops waiting; the answer is then discarded by the caller's runtime.
    signal?.addEventListener("abort", () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** Standard reason phrases used for the default error bodies. */
const reason = (status: number): string => {
  switch (status) {
    case 400:
      return "Bad Request"
    case 401:
      return "Unauthorized"
    case 403:
      return "Forbidden"
    case 404:
      return "Not Found"
    case 429:
      return "Too Many Requests"
    case 500:
      return "Internal Server Error"
    case 502:
      return "Bad Gateway"
    case 503:
      return "Service Unavailable"
    case 504:
      return "Gateway Timeout"
    default:
      return `Status ${status}`
  }
}

/**
 * The default alteration for `inconsistent`: every call yields a different answer, so two nodes
 * (or two calls) never agree. Objects gain a changing `nonce` and a changed `message`; strings and
 * numbers change value; arrays lose their last element.
 */
const defaultMutation = (() => {
  let counter = 0
  return (body: unknown): unknown => {
    counter += 1
    if (Array.isArray(body)) return body.slice(0, Math.max(0, body.length - 1))
    if (typeof body === "string") return `${body}#${counter}`
    if (typeof body === "number") return body + counter
    if (body !== null && typeof body === "object") {
      const record = body as Record<string, unknown>
      const message = typeof record.message === "string" ? `${record.message} (inconsistent #${counter})` : undefined
      return { ...record, ...(message === undefined ? {} : { message }), nonce: counter }
    }
    return { inconsistent: counter }
  }
})()

let corruptions = 0

const alter = async (
  response: Response,
  request: Request,
  mutate: (body: unknown, request: Request) => unknown
): Promise<Response> => {
  const type = response.headers.get("content-type") ?? ""
  // The altered body has another length; the original one would leave clients waiting.
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  if (!type.includes("json")) {
    // Non-JSON answers (file bytes) get one byte flipped, a different one each time: a silently
    // corrupted download.
    const bytes = new Uint8Array(await response.arrayBuffer())
    corruptions += 1
    const corrupted = bytes.length === 0 ? Uint8Array.of(corruptions & 0xff) : bytes.slice()
    if (bytes.length > 0) corrupted[corruptions % bytes.length]! ^= 0xff
    return new Response(corrupted, { status: response.status, headers })
  }
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return new Response(JSON.stringify(mutate(body, request)), { status: response.status, headers })
}

/**
 * `response` whose body gives its first `afterBytes` bytes and then nothing more, until the client
 * gives up (which cancels it).
 */
const stalling = (response: Response, afterBytes: number): Response => {
  const body = response.body
  if (body === null) return response
  const reader = body.getReader()
  let left = afterBytes
  const stalled = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      // Nothing more, ever: a client that gives up cancels this body (and so the handler's).
      if (left <= 0) return new Promise<void>(() => undefined)
      const { done, value } = await reader.read()
      if (done) return controller.close()
      const piece = value.subarray(0, left)
      left -= piece.length
      controller.enqueue(piece)
    },
    cancel: (reason) => reader.cancel(reason)
  })
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  return new Response(stalled, { status: response.status, headers })
}

/** The idle time a link may make up for: over any span, at most this much more than the rate. */
const rateCreditMs = 50

/** How long to wait before sending `bytes` more over `link` at `bytesPerSecond`, its slot taken. */
const takeSlot = (link: Link, bytes: number, bytesPerSecond: number): number => {
  const now = performance.now()
  link.freeAt = Math.max(now - rateCreditMs, link.freeAt) + (bytes * 1000) / bytesPerSecond
  return Math.max(0, link.freeAt - now)
}

/** The largest piece of a body sent at once under `rate`: bursts stay short at any rate. */
const ratePieceBytes = 64 * 1024

/** `response` whose body comes at most `bytesPerSecond` bytes a second over `link`. */
const capped = (response: Response, link: Link, bytesPerSecond: number, signal: AbortSignal): Response => {
  const body = response.body
  if (body === null) return response
  const reader = body.getReader()
  let pending = new Uint8Array(0)
  const paced = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (pending.length === 0) {
        const { done, value } = await reader.read()
        if (done) return controller.close()
        pending = value
      }
      const piece = pending.subarray(0, ratePieceBytes)
      pending = pending.subarray(piece.length)
      await sleep(takeSlot(link, piece.length, bytesPerSecond), signal)
      controller.enqueue(piece)
    },
    cancel: (reason) => reader.cancel(reason)
  })
  return new Response(paced, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** Refuses a fault that could never fire as asked. */
const validateFault = (fault: FaultKind, options: FaultOptions | undefined): void => {
  if (options?.times !== undefined && (!Number.isInteger(options.times) || options.times < 1)) {
    throw new RangeError(`times must be a positive integer, got ${options.times}`)
  }
  if (fault.kind === "slow" && !(fault.ms >= 0)) throw new RangeError(`slow needs ms >= 0, got ${fault.ms}`)
  if (fault.kind === "stall" && !(Number.isInteger(fault.afterBytes) && fault.afterBytes >= 0)) {
    throw new RangeError(`stall needs a whole afterBytes >= 0, got ${fault.afterBytes}`)
  }
  if (fault.kind === "rate" && !(Number.isFinite(fault.bytesPerSecond) && fault.bytesPerSecond > 0)) {
    throw new RangeError(`rate needs bytesPerSecond > 0, got ${fault.bytesPerSecond}`)
  }
  if (fault.kind === "status" && !(fault.status >= 100 && fault.status <= 599)) {
    throw new RangeError(`status must be an HTTP status, got ${fault.status}`)
  }
}

/** The answer under the fault that decides a request's outcome. */
const answerUnder = async (
  fault: FaultKind,
  request: Request,
  answer: () => Response | Promise<Response>
): Promise<Response> => {
  switch (fault.kind) {
    case "down":
      return HttpResponse.error()
    case "status":
      return HttpResponse.json((fault.body ?? { error: reason(fault.status) }) as never, { status: fault.status })
    case "inconsistent":
      return alter(await answer(), request, fault.mutate ?? defaultMutation)
    case "lie":
      return tellLie(fault.lie, await answer())
    case "stall":
      return stalling(await answer(), fault.afterBytes)
    case "slow":
    case "rate":
      return answer()
  }
}

/** Whether an armed fault is one `clear(scope)` removes: on the scope's host and node, where given. */
const withinScope = (entry: Armed, scope: { readonly host?: HostName; readonly node?: number }) =>
  (scope.host === undefined || entry.scope.host === scope.host) &&
  (scope.node === undefined || entry.scope.node === scope.node)

/**
 * The answer under the faults armed for `context`: every delay and cap applies, and the newest
 * fault that is neither decides the outcome; `consume` takes one hit from each fault used.
 */
const answerWith = async (
  armed: ReadonlyArray<Armed>,
  consume: (entry: Armed) => void,
  context: FaultContext,
  answer: () => Response | Promise<Response>
): Promise<Response> => {
  const pathname = new URL(context.request.url).pathname
  const hits = armed.filter((entry) => matches(entry.scope, context, pathname))
  const composing = hits.filter((entry) => entry.fault.kind === "slow" || entry.fault.kind === "rate")
  const decisive = hits.filter((entry) => !composing.includes(entry)).at(-1)
  for (const entry of composing) consume(entry)
  if (decisive !== undefined) consume(decisive)

  const delay = composing.reduce((total, entry) => total + (entry.fault.kind === "slow" ? entry.fault.ms : 0), 0)
  await sleep(delay, context.request.signal)

  const response = await (decisive === undefined ? answer() : answerUnder(decisive.fault, context.request, answer))
  const faulted = composing.reduce(
    (body, entry) =>
      entry.fault.kind === "rate" ? capped(body, entry.link, entry.fault.bytesPerSecond, context.request.signal) : body,
    response
  )
  // Off the contract on purpose: the simulated network's own check must not mend it.
  return hits.length === 0 ? faulted : deliberate(faulted)
}

/** Creates an empty fault registry. */
export const makeFaults = (): Faults => {
  let nextId = 1
  let armed: Array<Armed> = []

  const inject = (scope: FaultScope, fault: FaultKind, options?: FaultOptions): number => {
    validateFault(fault, options)
    const id = nextId++
    armed.push({ id, scope, fault, remaining: options?.times, hits: 0, link: { freeAt: 0 } })
    return id
  }

  const remove = (id: number): boolean => {
    const before = armed.length
    armed = armed.filter((entry) => entry.id !== id)
    return armed.length !== before
  }

  const clear = (scope?: { readonly host?: HostName; readonly node?: number }) => {
    if (scope === undefined) {
      armed = []
      return
    }
    armed = armed.filter((entry) => !withinScope(entry, scope))
  }

  // Takes one hit from an armed fault and drops it once used up.
  const consume = (entry: Armed) => {
    entry.hits += 1
    if (entry.remaining !== undefined) {
      entry.remaining -= 1
      if (entry.remaining <= 0) remove(entry.id)
    }
  }

  const handle = (context: FaultContext, answer: () => Response | Promise<Response>): Promise<Response> =>
    answerWith(armed, consume, context, answer)

  return {
    inject,
    down: (scope, options) => inject(scope, { kind: "down" }, options),
    slow: (scope, ms, options) => inject(scope, { kind: "slow", ms }, options),
    status: (scope, status, options) =>
      inject(
        scope,
        options?.body === undefined ? { kind: "status", status } : { kind: "status", status, body: options.body },
        options
      ),
    notFound: (scope, options) => inject(scope, { kind: "status", status: 404 }, options),
    inconsistent: (scope, options) =>
      inject(
        scope,
        options?.mutate === undefined ? { kind: "inconsistent" } : { kind: "inconsistent", mutate: options.mutate },
        options
      ),
    lie: (scope, lie, options) => inject(scope, { kind: "lie", lie }, options),
    stall: (scope, afterBytes, options) => inject(scope, { kind: "stall", afterBytes }, options),
    rate: (scope, bytesPerSecond, options) => inject(scope, { kind: "rate", bytesPerSecond }, options),
    remove,
    clear,
    active: () => armed.map(({ id, scope, fault, remaining, hits }) => ({ id, scope, fault, remaining, hits })),
    handle,
    wrap: (host, resolver, nodeOf) => (info) =>
      handle({ host, node: nodeOf?.(info), request: info.request }, () => resolver(info))
  }
}
