/**
 * The gateway (`https://gateway.lighthouse.storage` by default): stored content back out by CID,
 * streamed block by block from the content store.
 *
 * - `POST /api/v0/cat/{cid}[/path]` (also `?arg=`): the bytes of a UnixFS file, as the provider's
 *   clients download (`application/octet-stream`); 404 `{"error":…}` for content it does not hold,
 *   400 for a directory or something that is not a CID.
 * - `GET|HEAD /ipfs/{cid}[/path]` and `/ipns/{name}[/path]`: the path gateway and the trustless
 *   gateway (`?format=raw|car|ipns-record` or `Accept`), see `gateway/PathGateway.ts`: byte ranges,
 *   `Etag`, immutable caching, paths through folders, raw blocks, CARs, signed IPNS records. A file
 *   is served as its name's type, else as the type it was uploaded with (`Files.mediaTypeOf`).
 * - `GET|HEAD /routing/v1/providers/{cid}`: the delegated routing API's providers, naming the
 *   gateway itself (its HTTP multiaddr, `transport-ipfs-gateway-http`) for a block it holds and
 *   nobody for one it does not (`gateway/Providers.ts`).
 * - `GET|HEAD /routing/v1/ipns/{name}`: the delegated routing API's IPNS record of a name the API
 *   published, signed with its key (`ipns/IpnsRecords.ts`), or of a name published from outside
 *   with `PUT /routing/v1/ipns/{name}` (`ipns/PublishedRecords.ts`).
 *
 * The Walrus gateway (`https://gateway-walrus.lighthouse.storage`) is the same gateway limited by
 * `holds` to content stored on Walrus: anything else is a 404 `{"error":"… is not stored on Walrus"}`.
 */

import { prefixOf, Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import type { CID } from "multiformats/cid"
import type { Files } from "../api/Files.ts"
import type { IpnsKeys } from "../api/Ipns.ts"
import type { Faults } from "../faults/index.ts"
import { guard, type RouteErrorLog } from "../http/Guard.ts"
import { parseCid } from "../http/Request.ts"
import { errorResponse } from "../http/Respond.ts"
import { handle, on, unmatched } from "../http/Routes.ts"
import { currentRecord, routingRecordResponse, type SignedRecord } from "../ipns/IpnsRecords.ts"
import { cidOf, type PublishedRecords, routingPutResponse } from "../ipns/PublishedRecords.ts"
import { ContentNotFound } from "../storage/Blocks.ts"
import type { ContentStore } from "../storage/ContentStore.ts"
import { NotAFile, NotUnixFs } from "../storage/Dag.ts"
import { type IpnsResolution, type PathGatewayContext, pathGatewayResponse, streamOf } from "./PathGateway.ts"
import { newPeerId, type ProvidersContext, providersResponse } from "./Providers.ts"

export interface GatewayContext {
  readonly host: string
  readonly content: ContentStore
  /** The uploads list: a file is served as the media type it was uploaded with. */
  readonly files: Files
  readonly ipns: IpnsKeys
  /** Records published from outside (`PUT /routing/v1/ipns/{name}`). */
  readonly published: PublishedRecords
  readonly faults: Faults
  /** Milliseconds since the epoch, for IPNS record validity. */
  readonly clock: () => number
  /** Set on the Walrus gateway: whether a requested root CID is stored on Walrus. */
  readonly holds?: (cid: CID) => boolean
  /** Who hears of a route that threw; nobody when absent. */
  readonly log?: RouteErrorLog | undefined
}

const notHeld = (cid: CID) => errorResponse(404, `${cid} is not stored on Walrus`)

const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

// Splits "cid/a/b" into the CID and the path segments; `decode` undoes a URL path's escapes (a
// query parameter arrives decoded already).
const splitPath = (
  rest: string,
  decode: (segment: string) => string = decodeSegment
): { readonly root: string; readonly segments: ReadonlyArray<string> } => {
  const [root = "", ...segments] = rest.split("/").map(decode)
  return { root, segments: segments.filter((segment) => segment !== "") }
}

/** `/api/v0/cat/`, `/api/v0/cat` (kubo's `?arg=` form), `/ipfs/`: the declared routes' fixed parts. */
const catPrefix = prefixOf(Routes.gateway.cat)
const catRoot = catPrefix.slice(0, -1)
const ipfsPrefix = prefixOf(Routes.gateway.ipfs)

/** The `{cid}[/path]` a `cat` names: in the URL path, else in `?arg=`; `/ipfs/` before it is allowed. */
const catTarget = (url: URL) => {
  const inPath = url.pathname.slice(catPrefix.length)
  const [rest, decode] =
    inPath === "" ? [url.searchParams.get("arg") ?? "", (segment: string) => segment] : [inPath, decodeSegment]
  return { rest, ...splitPath(rest.replace(/^\/?ipfs\//, ""), decode) }
}

/** The root CID of an `/ipfs/{cid}[/path]` request, when the gateway must check it is held. */
const ipfsRoot = (request: Request): CID | undefined => {
  const { pathname } = new URL(request.url)
  return pathname.startsWith(ipfsPrefix) ? parseCid(splitPath(pathname.slice(ipfsPrefix.length)).root) : undefined
}

/** A record published from outside for `name`, while it is valid. */
const publishedRecordOf = (context: GatewayContext, name: string): IpnsResolution | undefined => {
  const record = context.published.current(name, context.clock())
  const cid = record === undefined ? undefined : cidOf(record.value)
  return record === undefined || cid === undefined ? undefined : { cid, record }
}

/**
 * The record to serve for a `k51…` name: the API's (re-signed when due; the key keeps it) for a
 * name it holds the key of, else one published from outside; or `undefined`.
 */
const recordOf = async (context: GatewayContext, name: string): Promise<IpnsResolution | undefined> => {
  const key = context.ipns.byId(name)
  if (key === undefined) return publishedRecordOf(context, name)
  const cid = key.cid === null ? undefined : parseCid(key.cid)
  if (cid === undefined) return undefined
  const record: SignedRecord | undefined = await currentRecord(key.secretKey, cid, key.record, context.clock())
  if (record === undefined) return undefined
  key.record = record
  return { cid, record }
}

export const gatewayHandlers = (context: GatewayContext): Array<HttpHandler> => {
  const { host, content, faults } = context
  const pathContext: PathGatewayContext = {
    blocks: content.blocks,
    parseCid,
    resolveName: (name) => recordOf(context, name),
    mediaTypeOf: (cid) => context.files.mediaTypeOf(cid.toString())
  }

  const cat = async ({ request }: { readonly request: Request }) => {
    const { rest, root, segments } = catTarget(new URL(request.url))
    const cid = parseCid(root)
    if (cid === undefined) return errorResponse(400, `invalid CID: ${root}`)
    if (context.holds?.(cid) === false) return notHeld(cid)
    try {
      const file = await content.resolve(cid, segments)
      const stat = await content.stat(file)
      const bytes = await content.cat(file)
      return new Response(streamOf(bytes), {
        status: 200,
        headers: {
          "content-type": "application/octet-stream",
          "content-length": String(stat.type === "file" ? stat.size : 0),
          "x-ipfs-path": `/ipfs/${rest}`
        }
      })
    } catch (error) {
      if (error instanceof ContentNotFound) return errorResponse(404, error.message)
      if (error instanceof NotAFile) return errorResponse(400, "this dag node is a directory")
      if (error instanceof NotUnixFs) return errorResponse(400, error.message)
      throw error
    }
  }

  const browse = ({ request }: { readonly request: Request }) => {
    const root = context.holds === undefined ? undefined : ipfsRoot(request)
    if (root !== undefined && context.holds?.(root) === false) return notHeld(root)
    return pathGatewayResponse(request, pathContext)
  }
  const providersContext: ProvidersContext = {
    peerId: newPeerId(),
    holds: async (cid) => context.holds?.(cid) !== false && (await content.blocks.has(cid)),
    parseCid,
    clock: context.clock
  }
  const providers = ({ request }: { readonly request: Request }) => providersResponse(request, providersContext)
  const routing = ({ request }: { readonly request: Request }) =>
    routingRecordResponse(request, async (name) => (await recordOf(context, name))?.record)
  const publish = ({ request }: { readonly request: Request }) =>
    routingPutResponse(request, context.published, context.clock)
  const route = (answer: (info: { readonly request: Request }) => Response | Promise<Response>) =>
    faults.wrap("gateway", guard({ name: "gateway", log: context.log }, answer))

  return [
    ...handle(host, Routes.gateway.cat, route(cat), { rest: true }),
    // kubo's form: the CID in `?arg=` rather than in the path.
    on(host, { method: "POST", path: catRoot }, route(cat)),
    ...handle(host, Routes.gateway.ipfs, route(browse), { rest: true, head: true }),
    ...handle(host, Routes.gateway.ipns, route(browse), { rest: true, head: true }),
    ...handle(host, Routes.gateway.providers, route(providers), { rest: true, head: true }),
    ...handle(host, Routes.gateway.ipnsRecord, route(routing), { rest: true, head: true }),
    ...handle(host, Routes.gateway.publishIpnsRecord, route(publish), { rest: true }),
    unmatched(
      host,
      route(() => errorResponse(404, "Not Found"))
    )
  ]
}
