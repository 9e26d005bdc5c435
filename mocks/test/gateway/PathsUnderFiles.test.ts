/**
 * A path that goes on past a file names nothing: the gateway answers 404, whatever the file's
 * layout (one raw block, one dag-pb node, chunked under raw or dag-pb leaves, in a directory, in a
 * HAMT-sharded directory) and whatever the route (`/ipfs/…` deserialized, `?format=car`,
 * `?format=raw`, `HEAD`, `/api/v0/cat/…`, `/api/v0/cat?arg=…`), in process over msw and served
 * over real sockets. Content arrives as users send it: `add` uploads, and a CAR through
 * `dag/import` for the HAMT (the node shards only directories of thousands of entries).
 */
import { CarWriter } from "@ipld/car"
import fc from "fast-check"
import { importer } from "ipfs-unixfs-importer"
import { setupServer } from "msw/node"
import type { CID } from "multiformats/cid"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMockNetwork } from "../../src/MockNetwork.ts"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { memoryBlockstore, readBlock } from "../../src/storage/Blocks.ts"
import { walkDag } from "../../src/storage/Dag.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"
import { addFiles } from "../support/upload.ts"

const owner = "0x00000000000000000000000000000000000000c4"

interface Hosts {
  readonly node: string
  readonly gateway: string
}

const layoutNames = [
  "a raw leaf",
  "a dag-pb node",
  "a file chunked under raw leaves",
  "a file chunked under dag-pb leaves",
  "a dag-pb node in a directory",
  "a dag-pb node in a HAMT-sharded directory"
] as const

/** A file as stored: the root it is reached from, the path to it, its bytes. */
interface Layout {
  readonly name: (typeof layoutNames)[number]
  readonly root: string
  readonly path: ReadonlyArray<string>
  readonly bytes: Uint8Array
}

const added = async (response: Response): Promise<string> => {
  expect(response.status).toBe(200)
  return ((await response.json()) as { Hash: string }).Hash
}

/** A CAR of a HAMT-sharded directory holding `a.txt` (a dag-pb node) and 30 neighbours. */
const hamtCar = async (bytes: Uint8Array): Promise<Blob> => {
  const store = memoryBlockstore()
  const entries = [
    { path: "site/a.txt", content: bytes },
    ...Array.from({ length: 30 }, (_, i) => ({ path: `site/n-${i}`, content: pseudoRandomBytes(9, i) }))
  ]
  let root: CID | undefined
  for await (const entry of importer(entries, store, { cidVersion: 1, rawLeaves: false, shardSplitThresholdBytes: 1 }))
    root = entry.cid
  const { writer, out } = CarWriter.create([root!])
  const parts: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const part of out) parts.push(part)
  })()
  for await (const block of walkDag(store, root!))
    await writer.put({ cid: block.cid, bytes: await readBlock(store, block.cid) })
  await writer.close()
  await collected
  return new Blob(parts as Array<BlobPart>)
}

/** Every layout, uploaded to the network's node. */
const uploadLayouts = async (hosts: Hosts, apiKey: string): Promise<ReadonlyArray<Layout>> => {
  const small = pseudoRandomBytes(100, 1)
  const large = pseudoRandomBytes(300 * 1024, 2)
  const add = async (files: ReadonlyArray<readonly [string, Uint8Array]>, query: string) =>
    added(
      await addFiles(
        apiKey,
        files.map(([name, bytes]) => [name, new Blob([bytes as BlobPart])] as const),
        { node: hosts.node, query }
      )
    )
  const file = async (name: Layout["name"], bytes: Uint8Array, query: string): Promise<Layout> => ({
    name,
    root: await add([["f.bin", bytes]], query),
    path: [],
    bytes
  })
  const carForm = new FormData()
  carForm.append("file", await hamtCar(small), "site.car")
  const hamt = await fetch(`${hosts.node}/api/v0/dag/import`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}` },
    body: carForm
  })
  return [
    await file("a raw leaf", small, "cid-version=1"),
    await file("a dag-pb node", small, "cid-version=0"),
    await file("a file chunked under raw leaves", large, "cid-version=1"),
    await file("a file chunked under dag-pb leaves", large, "cid-version=0"),
    {
      name: "a dag-pb node in a directory",
      root: await add(
        [
          ["dir/a.txt", small],
          ["dir/b.txt", large]
        ],
        "cid-version=0&wrap-with-directory=true"
      ),
      path: ["dir", "a.txt"],
      bytes: small
    },
    { name: "a dag-pb node in a HAMT-sharded directory", root: await added(hamt), path: ["a.txt"], bytes: small }
  ]
}

/** One way to ask the gateway for `root/path`, and whether its answer carries the file's bytes. */
interface Route {
  readonly name: string
  readonly request: (gateway: string, root: string, path: ReadonlyArray<string>) => Request
  readonly carriesBytes: boolean
  /** The segments the gateway reads from the request: `path`, unless the route joins it into one text. */
  readonly segmentsSent?: (path: ReadonlyArray<string>) => ReadonlyArray<string>
}

const urlPath = (root: string, path: ReadonlyArray<string>) => [root, ...path.map(encodeURIComponent)].join("/")

const routes: ReadonlyArray<Route> = [
  {
    name: "GET /ipfs/",
    request: (gw, root, path) => new Request(`${gw}/ipfs/${urlPath(root, path)}`),
    carriesBytes: true
  },
  {
    name: "HEAD /ipfs/",
    request: (gw, root, path) => new Request(`${gw}/ipfs/${urlPath(root, path)}`, { method: "HEAD" }),
    carriesBytes: false
  },
  {
    name: "?format=car",
    request: (gw, root, path) => new Request(`${gw}/ipfs/${urlPath(root, path)}?format=car`),
    carriesBytes: false
  },
  {
    name: "?format=raw",
    request: (gw, root, path) => new Request(`${gw}/ipfs/${urlPath(root, path)}?format=raw`),
    carriesBytes: false
  },
  {
    name: "POST /api/v0/cat/",
    request: (gw, root, path) => new Request(`${gw}/api/v0/cat/${urlPath(root, path)}`, { method: "POST" }),
    carriesBytes: true
  },
  {
    name: "POST /api/v0/cat?arg=",
    request: (gw, root, path) =>
      new Request(`${gw}/api/v0/cat?arg=${encodeURIComponent([root, ...path].join("/"))}`, { method: "POST" }),
    carriesBytes: true,
    // One text: a "/" inside a segment separates, and empty segments vanish.
    segmentsSent: (path) =>
      path
        .join("/")
        .split("/")
        .filter((segment) => segment !== "")
  }
]

/** The answer to a path that names nothing: 404 with the path named (no body for HEAD). */
const expectNotFound = async (response: Response, route: Route, root: string, path: ReadonlyArray<string>) => {
  expect(response.status).toBe(404)
  if (route.name.startsWith("HEAD")) return
  const named = route.segmentsSent?.(path) ?? path
  expect(await response.json()).toEqual({ error: `path not found: ${root}/${named.join("/")}` })
}

// Past the file: one segment (the case the exporter's walker swallowed), two, an encoded `../../x`
// (one segment once decoded), and a segment that reads as an escape (decoded once only).
const beyond: ReadonlyArray<ReadonlyArray<string>> = [["x"], ["zzz"], ["x", "y"], ["../../x"], ["%41"]]

// Segments past the file, as a client sends them: dot segments are removed by every URL parser
// before a request leaves, so they never reach a gateway.
const extraSegments = fc
  .array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 })
  .filter((segments) => segments.every((segment) => segment !== "." && segment !== ".."))

const transports: ReadonlyArray<
  readonly [string, () => Promise<{ hosts: Hosts; apiKey: string; close: () => Promise<void> }>]
> = [
  [
    "in process over msw",
    async () => {
      const network = createMockNetwork()
      const server = setupServer(...network.handlers)
      server.listen({ onUnhandledFrame: "error" })
      const { apiKey } = network.seedAccount(owner, { dataLimit: 64 * 1024 * 1024 })
      return {
        hosts: network.hosts,
        apiKey,
        close: async () => {
          server.close()
          network.close()
        }
      }
    }
  ],
  [
    "served over HTTP",
    async () => {
      const served: ServedMockNetwork = await serveMockNetwork()
      const { apiKey } = served.network.seedAccount(owner, { dataLimit: 64 * 1024 * 1024 })
      return { hosts: served.urls, apiKey, close: served.close }
    }
  ]
]

describe.each(transports)("a path past a file, %s", (_transport, start) => {
  let hosts: Hosts
  let layouts: ReadonlyArray<Layout>
  let close: () => Promise<void>

  beforeAll(async () => {
    const started = await start()
    hosts = started.hosts
    close = started.close
    layouts = await uploadLayouts(hosts, started.apiKey)
  })
  afterAll(() => close())

  const cases = layoutNames.flatMap((layout) => routes.map((route) => [layout, route.name, route] as const))

  it.each(cases)("of %s answers 404 to %s (the file itself 200)", async (layoutName, _routeName, route) => {
    const layout = layouts.find((candidate) => candidate.name === layoutName)!
    const found = await fetch(route.request(hosts.gateway, layout.root, layout.path))
    expect(found.status).toBe(200)
    if (route.carriesBytes) expect(new Uint8Array(await found.arrayBuffer())).toEqual(layout.bytes)
    else await found.body?.cancel()
    for (const extra of beyond) {
      const path = [...layout.path, ...extra]
      await expectNotFound(await fetch(route.request(hosts.gateway, layout.root, path)), route, layout.root, path)
    }
  })

  it("never answers 200 for random segments past a file, on any route", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...layouts),
        fc.constantFrom(...routes),
        extraSegments,
        async (layout, route, extra) => {
          const path = [...layout.path, ...extra]
          // Through `?arg=`, segments of "/" alone name the file itself.
          fc.pre((route.segmentsSent?.(path) ?? path).length > layout.path.length)
          await expectNotFound(await fetch(route.request(hosts.gateway, layout.root, path)), route, layout.root, path)
        }
      ),
      { numRuns: 80 }
    )
  })
})
