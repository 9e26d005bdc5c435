/**
 * The simulated network's msw handlers, each at a route of the contract (`Contract.Routes`): the
 * method and the path come from the declaration, never written in a route file. A host's last
 * handler answers what no route matched (`unmatched`). Each route's JSON answers are held against
 * the contract before they leave (`ContractChecked.ts`).
 *
 * @since 0.2.0
 */
import type { Route } from "lighthouse-effect/contract"
import { type HttpHandler, type HttpResponseResolver, http } from "msw"
import { checkAnswer, endpointOf } from "./ContractChecked.ts"

// biome-ignore lint/suspicious/noExplicitAny: msw's resolvers are typed by their params and bodies, which vary per route.
type Resolver = HttpResponseResolver<any, any, any>

const byMethod = { GET: http.get, POST: http.post, PUT: http.put, DELETE: http.delete } as const

/** How a route is matched beyond its declaration. */
export interface RouteOptions {
  /**
   * The last path parameter takes the rest of the path too (`/ipfs/:cid` matches
   * `/ipfs/{cid}/a/b`): msw's `:name` is one segment, a gateway's content path is several.
   */
  readonly rest?: boolean
  /** A `GET` route answers `HEAD` as well, headers only. */
  readonly head?: boolean
}

/** `resolver`, its answers checked against the contract when `route` is a declared endpoint. */
const checked = (route: Route, resolver: Resolver): Resolver => {
  const endpoint = endpointOf(route)
  if (endpoint === undefined) return resolver
  return async (info) => {
    const answer = await resolver(info)
    return answer instanceof Response ? checkAnswer(endpoint, info.request, info.params, answer) : answer
  }
}

/** The path msw matches for `route`. */
export const mswPath = (route: Route, options: RouteOptions = {}): string =>
  options.rest === true ? route.path.replace(/:\w+$/, "*") : route.path

/** The handlers of `route` on `host`, answered by `resolver`. */
export const handle = (
  host: string,
  route: Route,
  resolver: Resolver,
  options: RouteOptions = {}
): Array<HttpHandler> => {
  const url = `${host}${mswPath(route, options)}`
  const main = byMethod[route.method](url, checked(route, resolver))
  return options.head === true && route.method === "GET" ? [main, http.head(url, resolver)] : [main]
}

/** The handler of `route` on `host` (one method, one path). */
export const on = (host: string, route: Route, resolver: Resolver): HttpHandler =>
  byMethod[route.method](`${host}${route.path}`, checked(route, resolver))

/** Whatever no route of `host` matched: its last handler. */
export const unmatched = (host: string, resolver: Resolver): HttpHandler => http.all(`${host}/*`, resolver)
