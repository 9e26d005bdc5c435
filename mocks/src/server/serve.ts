/**
 * The mock network as a real HTTP server on the loopback interface, for clients in any language
 * (curl, Python, a browser pointed at it) and for tests over a real socket.
 *
 * One port per host (api, node, gateway, encryption). Every request is turned into a Fetch
 * `Request` on the host URL the network answers for (the production hosts by default), run through
 * the very msw handlers used in-process (`getResponse`), and the `Response` is streamed back: the
 * request body streams in and the response body streams out. A `down` fault (a network-error
 * response) destroys the connection. CORS is open so browser pages on other origins can call it.
 * The API host also serves the contract's reference page at `/docs` (`Docs.ts`).
 * Every host also answers `/__dev/clock`, to move or freeze the network's clock (`DevClock.ts`);
 * the `/__dev/*` routes are not open to other origins and take JSON bodies only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { getResponse } from "msw"
import type { HostName } from "../faults/index.ts"
import { HostNames } from "../faults/index.ts"
import { createMockNetwork, type MockNetwork, type MockNetworkOptions } from "../MockNetwork.ts"
import { withStateDir } from "../node.ts"
import { releaseOwnedChunk } from "../storage/Release.ts"
import type { SweepResult } from "../storage/Sweep.ts"
import {
  answerDevClock,
  type DevClock,
  devClockPath,
  devPathPrefix,
  devRouteRefusal,
  makeDevClock,
  ownOrigins
} from "./DevClock.ts"
import { docsPath, makeDocs } from "./Docs.ts"
import { type Drift, drifted } from "./Drift.ts"
import { drained, requestBody, sized } from "./RequestBody.ts"

export interface ServeOptions extends MockNetworkOptions {
  /** Serve this network instead of creating one from the other options. */
  readonly network?: MockNetwork
  /** Interface to bind. Default `127.0.0.1`. */
  readonly bind?: string
  /** Port per host; 0 (the default here) picks a free one. `npm run serve` uses `DefaultPorts`. */
  readonly ports?: Partial<Readonly<Record<HostName, number>>>
  /** Keep blocks and state under this directory; a server started again with it has them all. */
  readonly stateDir?: string
  /**
   * Before serving, delete the blocks no upload record or IPNS value reaches (`MockNetwork`'s
   * `collectGarbage`): what uploads killed half-way left, and deleted files' blocks. @default false
   */
  readonly collectGarbage?: boolean
  /** Answers that depart from the contract on purpose, for `doctor` to find (`Drift.ts`). @default none */
  readonly drift?: ReadonlyArray<Drift>
}

/** The ports `npm run serve` listens on unless told otherwise, one per host. */
export const DefaultPorts: Readonly<Record<HostName, number>> = {
  api: 8731,
  node: 8732,
  gateway: 8733,
  encryption: 8734
}

/** A port already taken: the message names the host, the port and the way out. */
export class PortInUse extends Error {
  readonly host: HostName
  readonly port: number
  constructor(host: HostName, bind: string, port: number) {
    super(
      `port ${port} on ${bind} (the ${host} host) is already in use: stop what holds it, or move the ${host} host with --${host}-port N (0 picks a free port)`
    )
    this.name = "PortInUse"
    this.host = host
    this.port = port
  }
}

export interface ServedMockNetwork {
  readonly network: MockNetwork
  /** The network's clock (`/__dev/clock`); undefined when a `network` was given, which keeps its own. */
  readonly clock: DevClock | undefined
  /** `http://127.0.0.1:<port>` per host. */
  readonly urls: Readonly<Record<HostName, string>>
  /** `http://127.0.0.1:<port>` of each of the network's extra `gateways`, in order (on free ports). */
  readonly gatewayUrls: ReadonlyArray<string>
  /** What `collectGarbage` did before serving, when asked. */
  readonly garbage: SweepResult | undefined
  readonly close: () => Promise<void>
}

// Connection-level headers belong to this hop, not to the Fetch request or response.
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "expect",
  "host",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
  "content-length"
])

const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, POST, PUT, DELETE, OPTIONS",
  "access-control-allow-headers":
    "Authorization, Content-Type, Encryption, Mime-Type, X-Deal-Parameter, X-Storage-Type, Accept, Range",
  "access-control-expose-headers": "Content-Length, Content-Type, Etag, X-Ipfs-Path, X-Chunked-Output",
  "access-control-max-age": "600"
}

/**
 * The Fetch `Request` for an incoming request, addressed to `base` (the host the handlers know).
 * Where the client reached this server goes in `Forwarded` (RFC 7239), replacing any the client
 * sent: the gateway names that address in the routing records it gives about itself.
 */
export const toFetchRequest = (incoming: IncomingMessage, base: string, signal: AbortSignal): Request => {
  const method = (incoming.method ?? "GET").toUpperCase()
  const hasBody = method !== "GET" && method !== "HEAD"
  const headers = new Headers()
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
    const name = incoming.rawHeaders[i]!.toLowerCase()
    // The body's declared size goes on (Node delivers exactly that many bytes): a route may refuse
    // by it before reading (the x402 upload's 402 and 413).
    const kept = !hopByHop.has(name) || (name === "content-length" && hasBody)
    if (kept && name !== "forwarded") headers.append(name, incoming.rawHeaders[i + 1]!)
  }
  const reached = incoming.headers.host
  if (reached !== undefined && reached !== "") headers.set("forwarded", `host="${reached}";proto=http`)
  return new Request(`${base}${incoming.url ?? "/"}`, {
    method,
    headers,
    signal,
    ...(hasBody ? { body: requestBody(incoming), duplex: "half" } : {})
  } as RequestInit)
}

/** Writes a Fetch `Response` to the socket, body streamed with back-pressure. */
export const writeFetchResponse = async (
  response: Response,
  outgoing: ServerResponse,
  options: {
    readonly head: boolean
    /** Awaited after the body is written, before the answer ends. */
    readonly beforeEnd?: (() => Promise<void>) | undefined
  }
): Promise<void> => {
  if (response.type === "error") {
    outgoing.socket?.destroy()
    outgoing.destroy()
    return
  }
  const headers: Record<string, string | Array<string>> = { ...corsHeaders }
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return
    if (!hopByHop.has(name) || name === "content-length") headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers["set-cookie"] = cookies
  outgoing.writeHead(response.status, response.statusText, headers)
  if (options.head || response.body === null) {
    await response.body?.cancel()
    await options.beforeEnd?.()
    outgoing.end()
    return
  }
  const reader = response.body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      // Once sent, a block read from disk for this answer is freed at once, not left to the collector.
      if (!outgoing.write(value, () => releaseOwnedChunk(value))) {
        await new Promise<void>((resolve) => {
          const finish = () => {
            outgoing.off("drain", finish)
            outgoing.off("close", finish)
            resolve()
          }
          outgoing.on("drain", finish)
          outgoing.on("close", finish)
        })
        if (outgoing.destroyed) break
      }
    }
    await options.beforeEnd?.()
    outgoing.end()
  } catch {
    // The body failed half way: cut the connection so the client sees a broken transfer.
    outgoing.destroy()
  } finally {
    reader.releaseLock()
  }
}

const listen = (server: Server, host: HostName, port: number, bind: string) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new PortInUse(host, bind, port) : error)
    )
    server.listen(port, bind, () => {
      server.removeAllListeners("error")
      resolve((server.address() as AddressInfo).port)
    })
  })

/** A development route's answer: refused from other origins and without JSON, else the clock's. */
const answerDev = async (
  clock: DevClock | undefined,
  origins: ReturnType<typeof ownOrigins>,
  request: Request
): Promise<Response> => {
  const refused = devRouteRefusal(request, origins)
  if (refused !== undefined) return refused
  if (request.method === "OPTIONS") return new Response(null, { status: 204 })
  if (new URL(request.url).pathname === devClockPath) return answerDevClock(clock, request)
  return Response.json({ error: "Not Found" }, { status: 404 })
}

/** Starts one HTTP server per host; resolves once all listen. */
export const serveMockNetwork = async (options: ServeOptions = {}): Promise<ServedMockNetwork> => {
  const clock = options.network === undefined ? makeDevClock(options.clock ?? Date.now) : undefined
  const network = options.network ?? createMockNetwork(withStateDir({ ...options, clock: clock!.now }))
  // Before the first request: a block an upload in flight wrote has no record yet.
  const garbage = options.collectGarbage === true ? await network.collectGarbage() : undefined
  const bind = options.bind ?? "127.0.0.1"
  const handlers = [...network.handlers]
  const drift = options.drift ?? []
  const docs = makeDocs()
  const servers: Array<Server> = []

  const handle = (base: string) => async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const dev = URL.parse(incoming.url ?? "/", base)?.pathname.startsWith(devPathPrefix) === true
    if (incoming.method === "OPTIONS" && !dev) {
      outgoing.writeHead(204, corsHeaders).end()
      return
    }
    const abort = new AbortController()
    outgoing.on("close", () => {
      if (!outgoing.writableFinished) abort.abort()
    })
    try {
      const request = toFetchRequest(incoming, base, abort.signal)
      const reference = base === network.hosts.api && new URL(request.url).pathname === docsPath
      const honest = dev
        ? await answerDev(clock, ownOrigins(bind, incoming.socket.localPort ?? 0), request)
        : reference
          ? await docs.answer(request)
          : ((await getResponse(handlers, request)) ?? Response.json({ error: "Not Found" }, { status: 404 }))
      const answer = drift.length === 0 || dev ? honest : await drifted(drift, request, honest)
      // Answered before the whole body came (a refusal): read the rest rather than reset under the client.
      const early = request.body !== null && !incoming.complete && answer.type !== "error"
      const response = early ? await sized(answer) : answer
      await writeFetchResponse(response, outgoing, {
        head: incoming.method === "HEAD",
        ...(early ? { beforeEnd: () => drained(incoming) } : {})
      })
    } catch (error) {
      if (outgoing.headersSent) {
        outgoing.destroy()
        return
      }
      outgoing.writeHead(500, { "content-type": "application/json", ...corsHeaders })
      outgoing.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }))
    }
  }

  const urls = {} as Record<HostName, string>
  const gatewayUrls: Array<string> = []
  const serve = async (base: string, host: HostName, port: number) => {
    // No cap on a request's duration (Node's default is 5 minutes, then 408): a 10 GiB upload over a
    // slow or shared link takes longer, and the real nodes take it.
    const server = createServer({ requestTimeout: 0 }, handle(base))
    servers.push(server)
    return `http://${bind.includes(":") ? `[${bind}]` : bind}:${await listen(server, host, port, bind)}`
  }
  try {
    for (const host of HostNames) urls[host] = await serve(network.hosts[host], host, options.ports?.[host] ?? 0)
    for (const gateway of network.gateways) gatewayUrls.push(await serve(gateway.url, "gateway", 0))
  } catch (error) {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
    if (options.network === undefined) network.close()
    throw error
  }

  return {
    network,
    clock,
    urls,
    gatewayUrls,
    garbage,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve, reject) => {
              server.close((error) => (error ? reject(error) : resolve()))
              server.closeAllConnections()
            })
        )
      )
      await docs.dispose()
      if (options.network === undefined) network.close()
    }
  }
}

export { type DevClock, type DevClockState, devClockPath, makeDevClock } from "./DevClock.ts"
export { type Drift, Drifts } from "./Drift.ts"
export { armGatewayFaults, gatewayFaultText, parseGatewayFaults } from "./GatewayFaults.ts"
export { pointProviderSdkAt } from "./providerSdk.ts"
