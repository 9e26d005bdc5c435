/**
 * The gateway (`https://gateway.lighthouse.storage` by default): stored content back out by CID,
 * streamed block by block from the content store.
 *
 * - `POST /api/v0/cat/{cid}[/path]` (also `?arg=`): the bytes of a UnixFS file, as the provider's
 *   clients download (`application/octet-stream`); 404 `{"error":…}` for content it does not hold,
 *   400 for a directory or something that is not a CID.
 * - `GET|HEAD /ipfs/{cid}[/path]`: the same for browsers, with a content type guessed from the
 *   file name and kubo's headers (`Etag`, `X-Ipfs-Path`, immutable caching); a directory serves its
 *   `index.html` or an HTML listing.
 * - `GET|HEAD /ipns/{k51…}[/path]`: resolves an IPNS name published through the API.
 *
 * The Walrus gateway (`https://gateway-walrus.lighthouse.storage`) is the same gateway limited by
 * `holds` to content stored on Walrus: anything else is a 404 `{"error":"… is not stored on Walrus"}`.
 */
import { type HttpHandler, http } from "msw"
import type { CID } from "multiformats/cid"
import type { IpnsKeys } from "../api/Ipns.ts"
import type { Faults } from "../faults/index.ts"
import { parseCid } from "../http/Request.ts"
import { errorResponse } from "../http/Respond.ts"
import { ContentNotFound, type ContentStore } from "./ContentStore.ts"
import { mimeTypeOf } from "./mime.ts"

export interface GatewayContext {
  readonly host: string
  readonly content: ContentStore
  readonly ipns: IpnsKeys
  readonly faults: Faults
  /** Set on the Walrus gateway: whether a requested root CID is stored on Walrus. */
  readonly holds?: (cid: CID) => boolean
}

const notHeld = (cid: CID) => errorResponse(404, `${cid} is not stored on Walrus`)

/** A `ReadableStream` pulling from an async iterator, one chunk per pull. */
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
      await source.return?.()
    }
  })

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

// Splits "cid/a/b" into the CID and the path segments.
const splitPath = (rest: string): { readonly root: string; readonly segments: ReadonlyArray<string> } => {
  const [root = "", ...segments] = rest.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment)
    } catch {
      return segment
    }
  })
  return { root, segments: segments.filter((segment) => segment !== "") }
}

type Resolved =
  | { readonly kind: "file"; readonly cid: CID; readonly size: number; readonly name: string }
  | { readonly kind: "directory"; readonly cid: CID }
  | { readonly kind: "error"; readonly response: Response }

const resolve = (content: ContentStore, root: CID, display: string, segments: ReadonlyArray<string>): Resolved => {
  try {
    const cid = content.resolve(root, segments)
    const stat = content.stat(cid)
    if (stat.type === "directory") return { kind: "directory", cid }
    if (stat.type === "other") return { kind: "error", response: errorResponse(400, `not a UnixFS node: ${display}`) }
    return { kind: "file", cid, size: stat.size, name: segments.at(-1) ?? "" }
  } catch (error) {
    if (error instanceof ContentNotFound) return { kind: "error", response: errorResponse(404, error.message) }
    throw error
  }
}

const fileResponse = (
  content: ContentStore,
  resolved: Extract<Resolved, { kind: "file" }>,
  headers: Record<string, string>,
  head: boolean
) =>
  new Response(head ? null : streamOf(content.cat(resolved.cid)), {
    status: 200,
    headers: { "content-length": String(resolved.size), ...headers }
  })

export const gatewayHandlers = (context: GatewayContext): Array<HttpHandler> => {
  const { host, content, faults } = context

  const cat = ({ request }: { readonly request: Request }) => {
    const url = new URL(request.url)
    const rest = url.pathname.slice("/api/v0/cat/".length) || (url.searchParams.get("arg") ?? "")
    const { root, segments } = splitPath(rest.replace(/^\/?ipfs\//, ""))
    const cid = parseCid(root)
    if (cid === undefined) return errorResponse(400, `invalid CID: ${root}`)
    if (context.holds?.(cid) === false) return notHeld(cid)
    const resolved = resolve(content, cid, rest, segments)
    if (resolved.kind === "error") return resolved.response
    if (resolved.kind === "directory") return errorResponse(400, "this dag node is a directory")
    return fileResponse(
      content,
      resolved,
      { "content-type": "application/octet-stream", "x-ipfs-path": `/ipfs/${rest}` },
      false
    )
  }

  const browse =
    (namespace: "ipfs" | "ipns") =>
    ({ request }: { readonly request: Request }) => {
      const url = new URL(request.url)
      const rest = url.pathname.slice(`/${namespace}/`.length)
      const { root, segments } = splitPath(rest)
      let cid: CID | undefined
      if (namespace === "ipns") {
        const published = context.ipns.byId(root)?.cid
        cid = published === undefined || published === null ? undefined : parseCid(published)
        if (cid === undefined) return errorResponse(404, `no IPNS record for ${root}`)
      } else {
        cid = parseCid(root)
        if (cid === undefined) return errorResponse(400, `invalid CID: ${root}`)
      }
      if (context.holds?.(cid) === false) return notHeld(cid)
      const head = request.method === "HEAD"
      let resolved = resolve(content, cid, rest, segments)
      if (resolved.kind === "directory") {
        const directory = resolved.cid
        const index = content.list(directory).find((entry) => entry.name === "index.html")
        if (index === undefined) {
          const base = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`
          const items = content
            .list(directory)
            .map(
              (entry) =>
                `<li><a href="${escapeHtml(base + encodeURIComponent(entry.name))}">${escapeHtml(entry.name)}</a></li>`
            )
          const html = `<!doctype html><title>/${namespace}/${escapeHtml(rest)}</title><ul>${items.join("")}</ul>\n`
          return new Response(head ? null : html, {
            headers: { "content-type": "text/html; charset=utf-8", etag: `"DirIndex-${directory}"` }
          })
        }
        resolved = resolve(content, directory, rest, ["index.html"])
      }
      if (resolved.kind === "error") return resolved.response
      if (resolved.kind === "directory") return errorResponse(400, "index.html is a directory")
      return fileResponse(
        content,
        resolved,
        {
          "content-type": mimeTypeOf(resolved.name) ?? "application/octet-stream",
          etag: `"${resolved.cid}"`,
          "x-ipfs-path": `/${namespace}/${rest}`,
          ...(namespace === "ipfs" ? { "cache-control": "public, max-age=29030400, immutable" } : {})
        },
        head
      )
    }

  return [
    http.post(`${host}/api/v0/cat/*`, faults.wrap("gateway", cat)),
    http.post(`${host}/api/v0/cat`, faults.wrap("gateway", cat)),
    http.get(`${host}/ipfs/*`, faults.wrap("gateway", browse("ipfs"))),
    http.head(`${host}/ipfs/*`, faults.wrap("gateway", browse("ipfs"))),
    http.get(`${host}/ipns/*`, faults.wrap("gateway", browse("ipns"))),
    http.head(`${host}/ipns/*`, faults.wrap("gateway", browse("ipns"))),
    http.all(
      `${host}/*`,
      faults.wrap("gateway", () => errorResponse(404, "Not Found"))
    )
  ]
}
