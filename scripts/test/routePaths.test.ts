/**
 * One declaration per endpoint: the method and path of every endpoint are written once, in
 * `core/src/routes/Routes.ts` (`Contract.Routes`), which the contract's groups are declared from, the library's
 * requests are built from and the simulated network's handlers are registered at.
 *
 * - The contract and `Routes` name the same endpoints with the same method and path.
 * - No source file of the library (`core/src`) or of the simulated network (`mocks/src`) writes a
 *   declared route path by hand, or builds a request or an msw handler at a literal path, except
 *   the exemptions below, each with its reason.
 * - Every declared endpoint is answered by the simulated network: an msw handler at its method and
 *   path on its host (and the Walrus hosts' copies), the served network's own routes over HTTP.
 */
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { HttpApi } from "effect/http-api"
import * as Contract from "lighthouse-effect/contract"
import { createMockNetwork, type MockNetworkOptions } from "lighthouse-effect/mocks"
import { serveMockNetwork } from "lighthouse-effect/mocks/server"
import type { HttpHandler } from "msw"
import { describe, expect, it } from "vitest"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** The declaration itself. */
const declaration = "core/src/routes/Routes.ts"

/**
 * The data plane, whose reads keep their tuned transport (issue #42: streamed CAR and raw reads of
 * the gateway); what they ask and answer is checked against the contract in their own tests.
 */
const dataPlane = (file: string) => file.startsWith("core/src/download/") || file === "core/src/verify/Trustless.ts"

/**
 * Other files that may write a declared path's fixed part (`prefix`, the path before its first
 * parameter), and why: each writes content, not a route.
 */
const exempt: ReadonlyArray<{ readonly file: string; readonly prefix: string; readonly reason: string }> = [
  ...["core/src/ipns/Models.ts", "mocks/src/ipns/IpnsRecords.ts", "mocks/src/ipns/PublishedRecords.ts"].map((file) => ({
    file,
    prefix: "/ipfs/",
    reason: "an IPNS record's value is a content path (`/ipfs/{cid}`), not a route"
  })),
  { file: "mocks/src/api/IpnsRoutes.ts", prefix: "/ipfs/", reason: "the published record's `Value`: a content path" },
  { file: "mocks/src/api/PdpDeals.ts", prefix: "/ipfs/", reason: "a PDP deal's `downloadUrl`, an answer's field" },
  {
    file: "mocks/src/testing/ContractCases.ts",
    prefix: "/ipfs/",
    reason: "the `Value` a published record is expected to have: a content path"
  },
  { file: "mocks/src/x402/CurrentRoutes.ts", prefix: "/ipfs/", reason: "the upload's `ipfsUrl`, an answer's field" },
  { file: "mocks/src/gateway/GatewayHost.ts", prefix: "/ipfs/", reason: "the `x-ipfs-path` header of an answer" },
  {
    file: "mocks/src/gateway/PathGateway.ts",
    prefix: "/ipns/",
    reason: "an answer's text naming where IPNS records are served"
  }
]

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))

/** The code of a file without its comments (a `//` after `:` is a URL's, kept). */
const codeOf = (file: string) =>
  readFileSync(path.join(root, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1")

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Every endpoint of the contract as `group.endpoint` → its method and path. */
const declared = (() => {
  const endpoints: Array<{ readonly group: string; readonly name: string; readonly route: Contract.Route }> = []
  HttpApi.reflect(Contract.LighthouseApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      endpoints.push({
        group: group.identifier,
        name: endpoint.identifier,
        route: { method: endpoint.method as Contract.RouteMethod, path: endpoint.path }
      })
    }
  })
  return endpoints
})()

const routeTable = Contract.Routes as unknown as Readonly<Record<string, Readonly<Record<string, Contract.Route>>>>

/** The fixed part of every declared path (before its first parameter), longest first. */
const prefixes = [...new Set(declared.map(({ route }) => Contract.prefixOf(route)))].sort((a, b) => b.length - a.length)

/** Where `file` writes a declared path by hand (as a literal, or after an interpolated host). */
const handWrittenPaths = (file: string, code: string) =>
  prefixes.flatMap((prefix) => {
    // The contract's own descriptions (its OpenAPI text) may name its routes; its declarations may not (below).
    if (file === declaration || file.startsWith("core/src/contract/") || dataPlane(file)) return []
    if (exempt.some((entry) => entry.file === file && entry.prefix === prefix)) return []
    const written = new RegExp(`["'\`}]${escape(prefix)}(?![\\w-])`, "g")
    return [...code.matchAll(written)].map(() => `${file}: ${prefix}`)
  })

/** Requests or handlers built at a literal path, declared or not. */
const literalRoutes = (file: string, code: string) => {
  if (dataPlane(file)) return []
  const patterns = file.startsWith("mocks/")
    ? // Handlers are registered through mocks/src/http/Routes.ts only, at a declared route.
      file === "mocks/src/http/Routes.ts"
      ? []
      : [/\bhttp\.(get|post|put|patch|delete|head|options|all)\(/g]
    : [
        /HttpClientRequest\.(get|post|put|patch|del|delete|head|options)\(\s*["'`]\//g,
        /\b(path|route):\s*["'`]\//g,
        // An endpoint declared at a literal path rather than at its route.
        /HttpApiEndpoint\.(get|post|put|patch|delete|head|options|make\([^)]*\))\(\s*["'`][^"'`]*["'`],\s*["'`]\//g
      ]
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => `${file}: ${match[0]}`))
}

const files = [...sourceFiles("core/src"), ...sourceFiles("mocks/src")]

describe("one declaration per endpoint", () => {
  it("the contract and Routes name the same endpoints, with the same method and path", () => {
    const fromContract = declared.map(({ group, name, route }) => `${group}.${name} ${route.method} ${route.path}`)
    const fromRoutes = Object.entries(routeTable).flatMap(([group, routes]) =>
      Object.entries(routes).map(([name, route]) => `${group}.${name} ${route.method} ${route.path}`)
    )
    expect(fromContract.sort()).toEqual(fromRoutes.sort())
    expect(declared.length).toBe(48)
  })

  it("no file of core/src or mocks/src writes a declared route path by hand", () => {
    expect(files.length).toBeGreaterThan(250)
    expect(files.flatMap((file) => handWrittenPaths(file, codeOf(file)))).toEqual([])
  })

  it("no request and no msw handler is built at a literal path", () => {
    expect(files.flatMap((file) => literalRoutes(file, codeOf(file)))).toEqual([])
  })

  it("the checks see a path written back by hand", () => {
    const code = 'HttpClientRequest.get("/api/lighthouse/file_info", { urlParams })'
    expect(handWrittenPaths("core/src/files/Records.ts", code)).toEqual([
      "core/src/files/Records.ts: /api/lighthouse/file_info"
    ])
    expect(literalRoutes("core/src/files/Records.ts", code)).toHaveLength(1)
    expect(
      literalRoutes("core/src/contract/ApiHost.ts", 'HttpApiEndpoint.get("fileInfo", "/api/lighthouse/file_info", {')
    ).toHaveLength(1)
    // Source text as the handlers were written: a path interpolated after the host.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a source file, not a template
    const handler = "http.get(`${host}/api/lighthouse/file_info`, r)"
    expect(literalRoutes("mocks/src/api/FileRoutes.ts", handler)).toHaveLength(1)
    expect(handWrittenPaths("mocks/src/api/FileRoutes.ts", handler)).toHaveLength(1)
    // An import of a folder named like a route is not a route.
    expect(handWrittenPaths("mocks/src/index.ts", 'import { X } from "./ipns/IpnsRecords.ts"')).toEqual([])
  })
})

// Only the handlers' routes are read: no request reaches x402's chain, so none is needed.
const x402 = { asset: `0x${"0".repeat(40)}`, payTo: `0x${"0".repeat(40)}` } as unknown as NonNullable<
  MockNetworkOptions["x402"]
>

describe("every declared endpoint is answered by the simulated network", () => {
  const network = createMockNetwork({ x402 })
  const registered = new Set(
    network.handlers.map((handler) => {
      const info = (handler as HttpHandler).info
      return `${String(info.method)} ${String(info.path)}`
    })
  )
  /** The hosts a group is served by: its own, and the Walrus copies of the upload node and the gateway. */
  const hostsOf = (group: string, name: string): ReadonlyArray<string> => {
    const host = Contract.GroupHosts.get(group)!
    if (host === "node") return [network.hosts.node, network.hosts.walrusNode]
    if (group === "gateway" && name === "ipfs") return [network.hosts.gateway, network.hosts.walrusGateway]
    return [network.hosts[host]]
  }
  /** msw matches a gateway's content path (several segments) with `*` for its last parameter. */
  const candidates = (route: Contract.Route) => [route.path, route.path.replace(/:\w+$/, "*")]

  it("an msw handler at each endpoint's method and path, on its host", () => {
    const missing = declared
      .filter(({ group }) => group !== "dev")
      .flatMap(({ group, name, route }) =>
        hostsOf(group, name)
          .filter((host) => !candidates(route).some((p) => registered.has(`${route.method} ${host}${p}`)))
          .map((host) => `${group}.${name} ${route.method} ${host}${route.path}`)
      )
    expect(missing).toEqual([])
    expect(declared.filter(({ group }) => group !== "dev").length).toBe(45)
  })

  it("the served network's own routes over HTTP: the clock on every host, the reference page on the API host", async () => {
    const served = await serveMockNetwork()
    try {
      const { clock, moveClock, docs } = Contract.Routes.dev
      for (const url of Object.values(served.urls)) {
        const state = await fetch(`${url}${clock.path}`, { method: clock.method })
        expect(state.status).toBe(200)
        expect(Object.keys(await state.json()).sort()).toEqual(["frozen", "now", "offsetMs"])
      }
      const moved = await fetch(`${served.urls.api}${moveClock.path}`, {
        method: moveClock.method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ advanceMs: 1000 })
      })
      expect(moved.status).toBe(200)
      expect(((await moved.json()) as { offsetMs: number }).offsetMs).toBeGreaterThanOrEqual(1000)
      const page = await fetch(`${served.urls.api}${docs.path}`, { method: docs.method })
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toMatch(/^text\/html/)
      await page.body?.cancel()
    } finally {
      await served.close()
    }
  })
})
