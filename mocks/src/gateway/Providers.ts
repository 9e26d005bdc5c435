/**
 * `GET|HEAD /routing/v1/providers/{cid}` of the delegated routing API, answered by the gateway about
 * itself, so a client given the gateway as its only router (`@helia/verified-fetch`'s `routers`)
 * learns where to fetch blocks from.
 *
 * For a block the gateway holds the answer names one provider, the gateway: a `peer` record with
 * the gateway's peer id, its own address as an HTTP multiaddr (`/ip4/127.0.0.1/tcp/8733/http`,
 * `/dns/host/tcp/443/tls/http`) and the protocol `transport-ipfs-gateway-http`. For a block it
 * does not hold the answer is 200 with no provider: the spec asks servers not to answer 404 (which
 * clients read as "none" anyway). The spec's filters apply: `filter-addrs` (transport names, `!`
 * to exclude) and `filter-protocols`. `Accept: application/x-ndjson` streams one record a line;
 * anything else gets `{"Providers":[…]}`.
 *
 * The address is the one the client reached: the `Forwarded` header's `host` and `proto` when an
 * HTTP server in front sets it (the served network does), else the request URL's origin.
 */
import { generateKeyPair } from "@libp2p/crypto/keys"
import { base58btc } from "multiformats/bases/base58"
import type { CID } from "multiformats/cid"

/** The transfer protocol of a trustless gateway, as routing records name it. */
export const GatewayProtocol = "transport-ipfs-gateway-http"

/** A peer id of a fresh Ed25519 key, base58btc (`12D3KooW…`), the form routing clients parse. */
export const newPeerId = async (): Promise<string> =>
  base58btc.baseEncode((await generateKeyPair("Ed25519")).publicKey.toMultihash().bytes)

/** A multiaddr and the names of the protocols in it (what `filter-addrs` matches). */
export interface Address {
  readonly text: string
  readonly protocols: ReadonlyArray<string>
}

/** The multiaddr of an `http:` or `https:` origin. */
export const httpMultiaddr = (origin: URL): Address => {
  const https = origin.protocol === "https:"
  const port = origin.port === "" ? (https ? "443" : "80") : origin.port
  const host = origin.hostname
  const [ip, name] = host.startsWith("[")
    ? ["ip6", host.slice(1, -1)]
    : /^\d{1,3}(\.\d{1,3}){3}$/.test(host)
      ? ["ip4", host]
      : ["dns", host]
  const transport = https ? ["tls", "http"] : ["http"]
  return { text: `/${ip}/${name}/tcp/${port}/${transport.join("/")}`, protocols: [ip, "tcp", ...transport] }
}

// One `key=value` of a `Forwarded` element, the value unquoted.
const forwardedPair = (pair: string): [string, string] => {
  const at = pair.indexOf("=")
  const value = pair.slice(at + 1).trim()
  return [pair.slice(0, at).trim().toLowerCase(), value.replace(/^"(.*)"$/, "$1")]
}

/** The origin the client reached: `Forwarded`'s first `host` and `proto` (RFC 7239), else the request's. */
export const publicOrigin = (request: Request): URL => {
  const own = new URL(new URL(request.url).origin)
  const first = (request.headers.get("forwarded") ?? "").split(",")[0] ?? ""
  const pairs = new Map(
    first
      .split(";")
      .filter((pair) => pair.includes("="))
      .map(forwardedPair)
  )
  const host = pairs.get("host")
  if (host === undefined || host === "") return own
  const proto = pairs.get("proto") ?? own.protocol.slice(0, -1)
  try {
    return new URL(`${proto}://${host}`)
  } catch {
    return own
  }
}

/** A provider as the routing API's `peer` schema writes it. */
interface PeerRecord {
  readonly Schema: "peer"
  readonly ID: string
  readonly Addrs: ReadonlyArray<string>
  readonly Protocols: ReadonlyArray<string>
}

// The comma-separated names of a filter parameter, lower-cased.
const filterOf = (url: URL, name: string): ReadonlyArray<string> =>
  (url.searchParams.get(name) ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== "")

/**
 * Whether an address passes `filter-addrs`: none of its protocols excluded (`!name`), and one of
 * them listed when any is. (`unknown` lists providers without addresses, which this one is not.)
 */
export const passesAddrFilter = (address: Address, filter: ReadonlyArray<string>): boolean => {
  const excluded = filter.filter((entry) => entry.startsWith("!")).map((entry) => entry.slice(1))
  const wanted = filter.filter((entry) => !entry.startsWith("!"))
  if (address.protocols.some((protocol) => excluded.includes(protocol))) return false
  return wanted.length === 0 || address.protocols.some((protocol) => wanted.includes(protocol))
}

/** The records naming the gateway for a block it holds, the filters of `url` applied. */
const gatewayRecords = (url: URL, peerId: string, address: Address): ReadonlyArray<PeerRecord> => {
  const protocols = filterOf(url, "filter-protocols")
  if (protocols.length > 0 && !protocols.includes(GatewayProtocol)) return []
  const addrs = [address].filter((candidate) => passesAddrFilter(candidate, filterOf(url, "filter-addrs")))
  if (addrs.length === 0) return []
  return [{ Schema: "peer", ID: peerId, Addrs: addrs.map((addr) => addr.text), Protocols: [GatewayProtocol] }]
}

export interface ProvidersContext {
  /** The gateway's peer id (`newPeerId`). */
  readonly peerId: Promise<string>
  /** Whether the gateway holds the block. */
  readonly holds: (cid: CID) => Promise<boolean>
  readonly parseCid: (text: string) => CID | undefined
  /** Milliseconds since the epoch (`Last-Modified`). */
  readonly clock: () => number
}

// The `{cid}` of a providers path, percent-decoded ("" when it cannot be).
const providersKey = (pathname: string): string => {
  try {
    return decodeURIComponent(/^\/routing\/v1\/providers\/([^/]+)\/?$/.exec(pathname)?.[1] ?? "")
  } catch {
    return ""
  }
}

/** `GET|HEAD /routing/v1/providers/{cid}`: the gateway for a block it holds, nobody otherwise. */
export const providersResponse = async (request: Request, context: ProvidersContext): Promise<Response> => {
  const url = new URL(request.url)
  const given = providersKey(url.pathname)
  const cid = context.parseCid(given)
  if (cid === undefined) return Response.json({ error: `invalid CID: ${given}` }, { status: 422 })
  const records = (await context.holds(cid))
    ? gatewayRecords(url, await context.peerId, httpMultiaddr(publicOrigin(request)))
    : []
  const streamed = /application\/x-ndjson/i.test(request.headers.get("accept") ?? "")
  const body = streamed
    ? records.map((record) => `${JSON.stringify(record)}\n`).join("")
    : JSON.stringify({ Providers: records })
  return new Response(request.method === "HEAD" ? null : body, {
    status: 200,
    headers: {
      "content-type": streamed ? "application/x-ndjson" : "application/json",
      // Content arrives on a local network at any moment: an empty answer is not kept.
      "cache-control": records.length > 0 ? "public, max-age=300" : "no-store",
      "last-modified": new Date(context.clock()).toUTCString(),
      vary: "Accept"
    }
  })
}
