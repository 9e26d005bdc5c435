/**
 * `GET|HEAD /ipfs/{cid}[/path]` and `/ipns/{name}[/path]` as pure functions over a blockstore: the
 * path gateway (deserialized files with `Range`, directories) and the trustless gateway (raw
 * blocks, CARs, IPNS records), chosen by `?format=` or `Accept`.
 *
 * - Files: `Accept-Ranges: bytes`, a single `Range` answered 206 with `Content-Range` (416 when it
 *   starts past the end), `Etag: "<cid>"` and `If-None-Match` → 304, immutable caching under
 *   `/ipfs/`, the TTL under `/ipns/`. A directory serves its `index.html` or an HTML listing.
 * - `?format=raw` / `application/vnd.ipld.raw`: the block at the end of the path, verbatim; a single
 *   `Range` of it answered 206 as a file's is.
 * - `?format=car` / `application/vnd.ipld.car`: see `Car.ts`; `version=1; order=dfs; dups=y|n`;
 *   `Accept-Ranges: none` (a part of a CAR is asked for with `entity-bytes`).
 * - `?format=ipns-record` / `application/vnd.ipfs.ipns-record` under `/ipns/`: the signed record.
 * - `?filename=` names a raw block, CAR or record in `Content-Disposition` (`http/ContentDisposition.ts`).
 * - Paths cross UnixFS directories and fields inside DAG-CBOR / DAG-JSON blocks (`IpldPath.ts`).
 *
 * Every answer names the path (`X-Ipfs-Path`) and the blocks crossed (`X-Ipfs-Roots`); a raw block
 * or CAR chosen by `Accept` alone also names its `?format=` URL (`Content-Location`). A root block
 * the store does not hold is 404; with `Cache-Control: only-if-cached`, 412.
 */
import { Mime } from "lighthouse-effect"
import type { CID } from "multiformats/cid"
import { contentDisposition, requestedFilename } from "../http/ContentDisposition.ts"
import { MediaTypes } from "../http/MediaTypes.ts"
import { normalizeIpnsName, recordResponse, type SignedRecord } from "../ipns/IpnsRecords.ts"
import { type Blockstore, ContentNotFound, readBlock } from "../storage/Blocks.ts"
import { listDirectory, NotAFile, type Resolution, readFile, statNode } from "../storage/Dag.ts"
import { carBlocks, carContentType, carLength, carStream, carVariant } from "./Car.ts"
import { resolveContentPath } from "./IpldPath.ts"
import { type CarOptions, negotiateFormat, parseRange } from "./Negotiate.ts"

/** What an IPNS name points at now, with the record that says so. */
export interface IpnsResolution {
  readonly cid: CID
  readonly record: SignedRecord
}

export interface PathGatewayContext {
  readonly blocks: Blockstore
  /** Resolves a `k51…` name, `undefined` when the network holds no record for it. */
  readonly resolveName: (name: string) => Promise<IpnsResolution | undefined>
  /** Parses a CID as the gateway accepts it (any multibase). */
  readonly parseCid: (text: string) => CID | undefined
  /** The media type a file was uploaded with, served when the URL names it with no known extension. */
  readonly mediaTypeOf?: ((cid: CID) => string | undefined) | undefined
}

const Immutable = "public, max-age=29030400, immutable"

const problem = (status: number, message: string): Response =>
  Response.json({ error: message }, { status, headers: { "cache-control": "no-store" } })

/** A `ReadableStream` pulling from an async iterator, one chunk per pull (back-pressure included). */
export const streamOf = (source: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await source.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      } catch (error) {
        controller.error(error)
      }
    },
    async cancel() {
      await source.return?.(undefined)
    }
  })

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

interface Target {
  readonly namespace: "ipfs" | "ipns"
  /** The CID or name as written. */
  readonly root: string
  readonly segments: ReadonlyArray<string>
  /** `/ipfs/…` or `/ipns/…` as requested. */
  readonly path: string
}

const targetOf = (url: URL): Target | undefined => {
  const match = /^\/(ipfs|ipns)\/([^/]+)(\/.*)?$/.exec(url.pathname)
  if (match === null) return undefined
  const segments = (match[3] ?? "").split("/").filter((segment) => segment !== "")
  return {
    namespace: match[1] as "ipfs" | "ipns",
    root: decodeSegment(match[2]!),
    segments: segments.map(decodeSegment),
    path: decodeSegment(url.pathname)
  }
}

interface Served {
  readonly target: Target
  readonly resolution: Resolution
  /** Caching of this answer: immutable, or the IPNS record's TTL. */
  readonly cacheControl: string
  readonly head: boolean
  readonly request: Request
}

const commonHeaders = (served: Served): Record<string, string> => ({
  "x-ipfs-path": served.target.path,
  "x-ipfs-roots": served.resolution.crossed.map((cid) => cid.toString()).join(","),
  "cache-control": served.cacheControl,
  vary: "Accept"
})

const notModified = (request: Request, etag: string, headers: Record<string, string>): Response | undefined => {
  const wanted = request.headers.get("if-none-match")
  if (wanted === null) return undefined
  const tags = wanted.split(",").map((tag) => tag.trim().replace(/^W\//, ""))
  return tags.includes(etag) || tags.includes("*")
    ? new Response(null, { status: 304, headers: { etag, ...headers } })
    : undefined
}

/** A `Range` over `size` bytes: the status, the `[start, end)` served and the headers saying so. */
const rangeOf = (request: Request, size: number) => {
  const range = parseRange(request.headers.get("range"), size)
  if (range.kind === "unsatisfiable") return { kind: "unsatisfiable" as const, contentRange: `bytes */${size}` }
  if (range.kind === "whole") return { kind: "served" as const, status: 200, start: 0, end: size, headers: {} }
  const { start, end } = range
  return {
    kind: "served" as const,
    status: 206,
    start,
    end,
    headers: { "content-range": `bytes ${start}-${end - 1}/${size}` }
  }
}

const rawResponse = async (context: PathGatewayContext, served: Served): Promise<Response> => {
  const { cid } = served.resolution
  const etag = `"${cid}.raw"`
  const headers = { ...commonHeaders(served), etag, "accept-ranges": "bytes" }
  const cached = notModified(served.request, etag, headers)
  if (cached !== undefined) return cached
  const bytes = await readBlock(context.blocks, cid)
  const range = rangeOf(served.request, bytes.byteLength)
  if (range.kind === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "content-range": range.contentRange } })
  }
  const part = bytes.subarray(range.start, range.end) as Uint8Array<ArrayBuffer>
  const filename = requestedFilename(new URL(served.request.url), `${cid}.bin`)
  return new Response(served.head ? null : part, {
    status: range.status,
    headers: {
      ...headers,
      ...range.headers,
      "content-type": MediaTypes.raw,
      "content-length": String(part.byteLength),
      "content-disposition": contentDisposition(filename),
      "x-content-type-options": "nosniff"
    }
  })
}

const carResponse = async (context: PathGatewayContext, served: Served, options: CarOptions): Promise<Response> => {
  const { cid } = served.resolution
  const etag = `"${cid}.car.${carVariant(options)}"`
  const headers = { ...commonHeaders(served), etag }
  const cached = notModified(served.request, etag, headers)
  if (cached !== undefined) return cached
  const blocks = () => carBlocks(context.blocks, served.resolution, options)
  const body = served.head ? null : streamOf(carStream(context.blocks, cid, blocks()))
  const length = served.head ? {} : { "content-length": String(await carLength(context.blocks, cid, blocks())) }
  return new Response(body, {
    status: 200,
    headers: {
      ...headers,
      ...length,
      "content-type": carContentType(options),
      // A CAR is streamed and may be cut short; a part of it is asked with `entity-bytes`, not `Range`.
      "accept-ranges": "none",
      "content-disposition": contentDisposition(requestedFilename(new URL(served.request.url), `${cid}.car`)),
      "x-content-type-options": "nosniff"
    }
  })
}

const fileResponse = (context: PathGatewayContext, served: Served, size: number, name: string): Response => {
  const { cid } = served.resolution
  const etag = `"${cid}"`
  const headers = {
    ...commonHeaders(served),
    etag,
    "accept-ranges": "bytes",
    "content-type": Mime.lookup(name) ?? context.mediaTypeOf?.(cid) ?? "application/octet-stream"
  }
  const cached = notModified(served.request, etag, headers)
  if (cached !== undefined) return cached
  const range = rangeOf(served.request, size)
  if (range.kind === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "content-range": range.contentRange } })
  }
  const body = served.head ? null : streamOf(readFile(context.blocks, cid, range.start, range.end))
  return new Response(body, {
    status: range.status,
    headers: { ...headers, ...range.headers, "content-length": String(range.end - range.start) }
  })
}

const directoryResponse = async (context: PathGatewayContext, served: Served, url: URL): Promise<Response> => {
  const entries = await listDirectory(context.blocks, served.resolution.cid)
  const index = entries.find((entry) => entry.name === "index.html")
  if (index !== undefined) {
    const resolution = {
      cid: index.cid,
      crossed: [...served.resolution.crossed, index.cid]
    }
    const stat = await statNode(context.blocks, index.cid)
    if (stat.type === "file") return fileResponse(context, { ...served, resolution }, stat.size, "index.html")
  }
  const base = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`
  const items = entries.map(
    (entry) => `<li><a href="${escapeHtml(base + encodeURIComponent(entry.name))}">${escapeHtml(entry.name)}</a></li>`
  )
  const html = `<!doctype html><title>${escapeHtml(served.target.path)}</title><ul>${items.join("")}</ul>\n`
  return new Response(served.head ? null : html, {
    headers: {
      ...commonHeaders(served),
      "content-type": "text/html; charset=utf-8",
      etag: `"DirIndex-${served.resolution.cid}"`
    }
  })
}

const deserializedResponse = async (context: PathGatewayContext, served: Served, url: URL): Promise<Response> => {
  const stat = await statNode(context.blocks, served.resolution.cid)
  if (stat.type === "directory") return directoryResponse(context, served, url)
  if (stat.type === "other") {
    return problem(406, `${served.target.path} is not UnixFS; ask for ${MediaTypes.raw} or ${MediaTypes.car}`)
  }
  return fileResponse(context, served, stat.size, served.target.segments.at(-1) ?? "")
}

/** The signed record of `name`, saved under the name `?filename=` asks for, if any. */
const namedRecordResponse = (record: SignedRecord, name: string, head: boolean, url: URL): Response => {
  const response = recordResponse(record, name, head)
  const filename = requestedFilename(url, `${name}.ipns-record`)
  response.headers.set("content-disposition", contentDisposition(filename))
  return response
}

/** The root CID of the target and its caching, or the answer refusing it. */
const rootOf = async (
  context: PathGatewayContext,
  target: Target,
  wantsRecord: boolean,
  head: boolean,
  url: URL
): Promise<{ cid: CID; cacheControl: string } | Response> => {
  if (target.namespace === "ipfs") {
    if (wantsRecord) return problem(400, "IPNS records are served under /ipns/")
    const cid = context.parseCid(target.root)
    return cid === undefined ? problem(400, `invalid CID: ${target.root}`) : { cid, cacheControl: Immutable }
  }
  const name = normalizeIpnsName(target.root)
  if (name === undefined) return problem(400, `not an IPNS name: ${target.root}`)
  const resolved = await context.resolveName(name)
  if (resolved === undefined) return problem(404, `no IPNS record for ${target.root}`)
  if (wantsRecord) return namedRecordResponse(resolved.record, name, head, url)
  return { cid: resolved.cid, cacheControl: `public, max-age=${Math.floor(resolved.record.ttlMs / 1000)}` }
}

/**
 * A verifiable answer chosen by `Accept` alone names the URL that asks for it with `format`
 * (`Content-Location`), as the trustless gateway spec says, so HTTP caches keep the formats apart.
 */
const located = (url: URL, format: "raw" | "car", response: Response): Response => {
  if ((url.searchParams.get("format") ?? "") !== "") return response
  const query = new URLSearchParams(url.searchParams)
  query.set("format", format)
  response.headers.set("content-location", `${url.pathname}?${query}`)
  return response
}

/** The gateway's answer to a request for `/ipfs/…` or `/ipns/…`. */
export const pathGatewayResponse = async (request: Request, context: PathGatewayContext): Promise<Response> => {
  const url = new URL(request.url)
  const target = targetOf(url)
  if (target === undefined) return problem(400, `not a content path: ${url.pathname}`)
  const format = negotiateFormat(url, request.headers.get("accept"))
  if (format.kind === "refused") return problem(format.status, format.message)
  const head = request.method === "HEAD"
  const root = await rootOf(context, target, format.kind === "ipns-record", head, url)
  if (root instanceof Response) return root
  const onlyIfCached = /(^|,)\s*only-if-cached\s*(,|$)/i.test(request.headers.get("cache-control") ?? "")
  if (!(await context.blocks.has(root.cid))) {
    return problem(onlyIfCached ? 412 : 404, `block not found: ${root.cid}`)
  }
  try {
    const resolution = await resolveContentPath(context.blocks, root.cid, target.segments)
    const served: Served = { target, resolution, cacheControl: root.cacheControl, head, request }
    if (format.kind === "raw") return located(url, "raw", await rawResponse(context, served))
    if (format.kind === "car") return located(url, "car", await carResponse(context, served, format.options))
    return await deserializedResponse(context, served, url)
  } catch (error) {
    if (error instanceof ContentNotFound) return problem(404, error.message)
    if (error instanceof NotAFile) return problem(400, error.message)
    throw error
  }
}
