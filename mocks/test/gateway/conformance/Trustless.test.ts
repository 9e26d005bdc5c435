/**
 * The trustless cases of the IPFS gateway conformance suite (github.com/ipfs/gateway-conformance,
 * tests/trustless_gateway_{car,raw,ipns}_test.go), ported case by case and run against the served
 * network over real HTTP. Each `it` is named `<Go test>/<case name>` as the suite names it; the CAR
 * cases run twice, with `?format=car` and with `Accept`, and check the suite's standard CAR headers,
 * as its `StandardCARTestTransforms` does. The fixtures are the suite's CARs and IPNS records,
 * imported through the node's `dag/import` and the routing API's `PUT`. What is not ported, and
 * why: docs/CONFORMANCE.md.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../../src/server/serve.ts"
import { carBlockCids, type Fixture, fixtureBytes, normal, openFixture } from "./fixtures.ts"

let served: ServedMockNetwork
const fixtures: Record<string, Fixture> = {}
const carFixtures = [
  "subdir-with-two-single-block-files.car",
  "single-layer-hamt-with-multi-block-files.car",
  "dir-with-dag-cbor-with-links.car",
  "subdir-with-mixed-block-files.car",
  "file-3k-and-3-blocks-missing-block.car",
  "dir-with-duplicate-files.car",
  "gateway-raw-block.car"
]
const ipnsV1V2 = {
  name: "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w",
  file: "k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w_v1-v2.ipns-record"
}
const ipnsV2 = {
  name: "k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f",
  file: "k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f_v2.ipns-record"
}

const importCar = async (apiKey: string, name: string) => {
  const form = new FormData()
  form.append("file", new Blob([(await fixtureBytes(name)) as BlobPart]), name)
  // The suite's DAGs are not all whole (a block is missing on purpose): blocks only, as `ipfs dag import --pin-roots=false`.
  const imported = await fetch(`${served.urls.node}/api/v0/dag/import?pin-roots=false`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}` },
    body: form
  })
  expect(imported.status, `${name}: ${await imported.clone().text()}`).toBe(200)
}

const publishRecord = async ({ name, file }: typeof ipnsV2) => {
  const published = await fetch(`${served.urls.gateway}/routing/v1/ipns/${name}`, {
    method: "PUT",
    headers: { "content-type": "application/vnd.ipfs.ipns-record" },
    body: (await fixtureBytes(file)) as BlobPart
  })
  expect(published.status, `${file}: ${await published.clone().text()}`).toBe(200)
}

beforeAll(async () => {
  served = await serveMockNetwork()
  const owner = privateKeyToAccount(generatePrivateKey())
  const { apiKey } = served.network.seedAccount(owner.address, { dataLimit: 64 * 1024 * 1024 })
  for (const name of carFixtures) {
    fixtures[name] = await openFixture(name)
    await importCar(apiKey, name)
  }
  await publishRecord(ipnsV1V2)
  await publishRecord(ipnsV2)
})
afterAll(async () => {
  await served.close()
})

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${served.urls.gateway}${path}`, { headers })
const fx = (name: string) => fixtures[name]!
const subdirTwo = () => fx("subdir-with-two-single-block-files.car")
const hamt = () => fx("single-layer-hamt-with-multi-block-files.car")
const cborLinks = () => fx("dir-with-dag-cbor-with-links.car")
const mixed = () => fx("subdir-with-mixed-block-files.car")
const missing = () => fx("file-3k-and-3-blocks-missing-block.car")
const duplicates = () => fx("dir-with-duplicate-files.car")
const rawBlock = () => fx("gateway-raw-block.car")
/** A fixture's CID as dag-pb CIDv1, as the suite's `MustGetCidWithCodec(0x70, …)` gives it. */
const pb = (fixture: Fixture, ...path: ReadonlyArray<string>) =>
  fixture
    .cid(...path)
    .toV1()
    .toString()
const cids = (...values: ReadonlyArray<string | { toString(): string } | ReadonlyArray<string>>) =>
  values.flatMap((value) => (Array.isArray(value) ? value : [value.toString()])).map((cid) => normal(cid))

/** The blocks of `subdir/multiblock.txt` in the mixed fixture, from the root down, the whole file. */
const multiblockFile = () =>
  cids(
    mixed().cid(),
    mixed().cid("subdir"),
    mixed().cid("subdir", "multiblock.txt"),
    mixed().descendants("subdir", "multiblock.txt")
  )

interface CarCase {
  readonly name: string
  readonly path: () => string
  readonly query?: Record<string, string>
  /** The blocks the CAR holds, exactly and in that order. */
  readonly blocks: () => ReadonlyArray<string>
}

/** The suite's `carResponseHeaders`: what every CAR answer says. */
const expectCarHeaders = (response: Response) => {
  expect(response.status).toBe(200)
  expect(response.headers.get("x-content-type-options")).toBe("nosniff")
  expect(response.headers.get("accept-ranges")).toBe("none")
  expect(response.headers.get("content-type")).toContain("application/vnd.ipld.car")
  expect(response.headers.get("content-disposition")).toMatch(/attachment; filename=".*\.car"/)
  expect(response.headers.get("etag") ?? "").not.toBe("")
}

/** A case of a test the suite runs through `StandardCARTestTransforms`: by `?format=car`, then by `Accept`. */
const carCases = (test: string, cases: ReadonlyArray<CarCase>) =>
  describe(test, () => {
    for (const carCase of cases) {
      const query = new URLSearchParams(carCase.query)
      it.each([
        ["format=car", { ...Object.fromEntries(query), format: "car" }, {}],
        ["Accept Header", Object.fromEntries(query), { accept: "application/vnd.ipld.car" }]
      ] as const)(`${carCase.name} (%s)`, async (_, params, headers) => {
        const response = await get(`${carCase.path()}?${new URLSearchParams(params)}`, headers)
        expectCarHeaders(response)
        expect(await carBlockCids(response)).toEqual(cids(carCase.blocks()))
      })
    }
  })

carCases("TestTrustlessCarPathing", [
  {
    name: "GET default CAR response with pathing through UnixFS Directory",
    path: () => `/ipfs/${pb(subdirTwo())}/subdir/ascii.txt`,
    blocks: () => cids(subdirTwo().cid(), subdirTwo().cid("subdir"), subdirTwo().cid("subdir", "ascii.txt"))
  },
  {
    name: "GET default CAR response of UnixFS file on a path with HAMT-sharded directory",
    path: () => `/ipfs/${pb(hamt())}/685.txt`,
    blocks: () =>
      cids(hamt().cid(), hamt().hamtTraversal("685.txt"), hamt().cid("685.txt"), hamt().descendants("685.txt"))
  },
  {
    name: "GET default CAR response of UnixFS file on a path with DAG-CBOR as root CID",
    path: () => `/ipfs/${cborLinks().cid("document")}/files/single`,
    blocks: () => cids(cborLinks().cid("document"), cborLinks().cid("document", "files", "single"))
  }
])

describe("TestTrustlessCarPathing", () => {
  // The suite allows a partial CAR or a 404; this gateway checks the path first and answers 404.
  it.each([
    ["format=car", "?format=car", {}],
    ["Accept Header", "", { accept: "application/vnd.ipld.car" }]
  ] as const)("GET default CAR response for non-existing file (%s)", async (_, query, headers) => {
    const response = await get(`/ipfs/${pb(subdirTwo())}/subdir/i-do-not-exist${query}`, headers)
    expect(response.status).toBe(404)
  })
})

carCases("TestTrustlessCarDagScopeBlock", [
  {
    name: "GET CAR with dag-scope=block of UnixFS directory on a path",
    path: () => `/ipfs/${pb(subdirTwo())}/subdir`,
    query: { "dag-scope": "block" },
    blocks: () => cids(subdirTwo().cid(), subdirTwo().cid("subdir"))
  },
  {
    name: "GET CAR with dag-scope=block of UnixFS file on a path",
    path: () => `/ipfs/${pb(subdirTwo())}/subdir/ascii.txt`,
    query: { "dag-scope": "block" },
    blocks: () => cids(subdirTwo().cid(), subdirTwo().cid("subdir"), subdirTwo().cid("subdir", "ascii.txt"))
  },
  {
    name: "GET CAR with dag-scope=block of UnixFS file on a path with sharded directory",
    path: () => `/ipfs/${pb(hamt())}/1.txt`,
    query: { "dag-scope": "block" },
    blocks: () => cids(hamt().cid(), hamt().hamtTraversal("1.txt"), hamt().cid("1.txt"))
  }
])

carCases("TestTrustlessCarDagScopeEntity", [
  {
    name: "GET CAR with dag-scope=entity of a UnixFS directory",
    path: () => `/ipfs/${pb(subdirTwo())}`,
    query: { "dag-scope": "entity" },
    blocks: () => cids(subdirTwo().cid())
  },
  {
    name: "GET CAR with dag-scope=entity of a UnixFS sharded directory",
    path: () => `/ipfs/${pb(hamt())}`,
    query: { "dag-scope": "entity" },
    blocks: () => cids(hamt().cid(), hamt().hamtShards())
  },
  {
    name: "GET CAR with dag-scope=entity of a UnixFS file",
    path: () => `/ipfs/${pb(mixed())}/subdir/ascii.txt`,
    query: { "dag-scope": "entity" },
    blocks: () => cids(mixed().cid(), mixed().cid("subdir"), mixed().cid("subdir", "ascii.txt"))
  },
  {
    name: "GET CAR with dag-scope=entity of a chunked UnixFS file",
    path: () => `/ipfs/${pb(mixed())}/subdir/multiblock.txt`,
    query: { "dag-scope": "entity" },
    blocks: () => multiblockFile()
  },
  {
    name: "GET CAR with dag-scope=entity of DAG-CBOR with Links",
    path: () => `/ipfs/${pb(cborLinks())}/document`,
    query: { "dag-scope": "entity" },
    blocks: () => cids(cborLinks().cid(), cborLinks().cid("document"))
  }
])

carCases("TestTrustlessCarDagScopeAll", [
  {
    name: "GET CAR with dag-scope=all of UnixFS directory with multiple files",
    path: () => `/ipfs/${pb(mixed())}/subdir`,
    query: { "dag-scope": "all" },
    blocks: () => cids(mixed().cid(), mixed().cid("subdir"), mixed().descendants("subdir"))
  },
  {
    name: "GET CAR with dag-scope=all of a chunked UnixFS file",
    path: () => `/ipfs/${pb(mixed())}/subdir/multiblock.txt`,
    query: { "dag-scope": "all" },
    blocks: () => multiblockFile()
  }
])

/** The chunks of multiblock.txt (1026 bytes: 4 × 256 + 2), as the suite lists them. */
const multiblockChunks = [
  "bafkreie5noke3mb7hqxukzcy73nl23k6lxszxi5w3dtmuwz62wnvkpsscm",
  "bafkreih4ephajybraj6wnxsbwjwa77fukurtpl7oj7t7pfq545duhot7cq",
  "bafkreigu7buvm3cfunb35766dn7tmqyh2um62zcio63en2btvxuybgcpue",
  "bafkreicll3huefkc3qnrzeony7zcfo7cr3nbx64hnxrqzsixpceg332fhe",
  "bafkreifst3pqztuvj57lycamoi7z34b4emf7gawxs74nwrc2c7jncmpaqm"
]
const multiblock = () => `/ipfs/${pb(mixed(), "subdir", "multiblock.txt")}`
const entityBytes = (name: string, range: string, chunks: () => ReadonlyArray<string>): CarCase => ({
  name,
  path: multiblock,
  query: { "dag-scope": "entity", "entity-bytes": range },
  blocks: () => cids(mixed().cid("subdir", "multiblock.txt"), chunks())
})

carCases("TestTrustlessCarEntityBytes", [
  {
    name: "GET CAR with entity-bytes succeeds even if the gateway is missing a block after the requested range",
    path: () => `/ipfs/${pb(missing())}`,
    query: { "dag-scope": "entity", "entity-bytes": "0:1000" },
    blocks: () => cids(missing().cid(), "QmPKt7ptM2ZYSGPUc8PmPT2VBkLDK3iqpG9TBJY7PCE9rF")
  },
  {
    name: "GET CAR with entity-bytes succeeds even if the gateway is missing a block before the requested range",
    path: () => `/ipfs/${pb(missing())}`,
    query: { "dag-scope": "entity", "entity-bytes": "2200:*" },
    blocks: () => cids(missing().cid(), "QmWXY482zQdwecnfBsj78poUUuPXvyw2JAFAEMw4tzTavV")
  },
  {
    name: "GET CAR with entity-bytes of a full UnixFS file",
    path: () => `/ipfs/${pb(mixed())}/subdir/multiblock.txt`,
    query: { "dag-scope": "entity", "entity-bytes": "0:*" },
    blocks: () => multiblockFile()
  },
  {
    name: "GET CAR with entity-bytes of a UnixFS directory",
    path: () => `/ipfs/${pb(hamt())}`,
    query: { "dag-scope": "entity", "entity-bytes": "0:*" },
    blocks: () => cids(hamt().cid(), hamt().hamtShards())
  },
  entityBytes(
    "GET CAR with entity-bytes equivalent to a HTTP Range Request from the middle of a file to the end",
    "512:*",
    () => mixed().descendants("subdir", "multiblock.txt").slice(2)
  ),
  entityBytes("GET CAR with entity-bytes equivalent to a HTTP Range Request for the middle of a file", "512:1023", () =>
    mixed().descendants("subdir", "multiblock.txt").slice(2, 4)
  ),
  entityBytes(
    "GET CAR with entity-bytes equivalent to a HTTP Range Request for the middle of a file (negative ending)",
    "512:-256",
    () => mixed().descendants("subdir", "multiblock.txt").slice(2, 4)
  ),
  entityBytes("GET CAR with entity-bytes equivalent to HTTP Suffix Range Request for part of a file", "-5:*", () =>
    mixed().descendants("subdir", "multiblock.txt").slice(3)
  ),
  entityBytes(
    "GET CAR with entity-bytes requesting a negative range bigger than the length of a file",
    "-9999:*",
    () => multiblockChunks
  ),
  entityBytes(
    "GET CAR with entity-bytes requesting a range from the end of a file that is bigger than a file itself",
    "-9999:-3",
    () => multiblockChunks.slice(0, 4)
  ),
  entityBytes("GET CAR with entity-bytes requesting only the blocks for the first byte of a file", "0:0", () =>
    mixed().descendants("subdir", "multiblock.txt").slice(0, 1)
  )
])

const duplicatesDfs = (dups: boolean) =>
  cids(
    duplicates().cid(),
    duplicates().cid("ascii.txt"),
    dups ? [duplicates().cid("ascii-copy.txt").toString()] : [],
    duplicates().cid("hello.txt"),
    duplicates().cid("multiblock.txt"),
    multiblockChunks
  )

describe("TestTrustlessCarOrderAndDuplicates", () => {
  const car = async (path: string, accept: string, contentType: ReadonlyArray<string>) => {
    const response = await get(path, { accept })
    expect(response.status).toBe(200)
    for (const part of contentType) expect(response.headers.get("content-type")).toContain(part)
    return carBlockCids(response)
  }
  it.each([true, false])(
    "GET CAR with order=dfs and dups=%s of UnixFS Directory With Duplicate Files",
    async (dups) => {
      const flag = dups ? "y" : "n"
      const blocks = await car(
        `/ipfs/${duplicates().cid()}`,
        `application/vnd.ipld.car; version=1; order=dfs; dups=${flag}`,
        ["application/vnd.ipld.car", "order=dfs", `dups=${flag}`]
      )
      expect(blocks).toEqual(duplicatesDfs(dups))
    }
  )
  it("GET CAR smoke-test with order=unk of UnixFS Directory", async () => {
    const blocks = await car(`/ipfs/${duplicates().cid()}`, "application/vnd.ipld.car; version=1; order=unk", [
      "application/vnd.ipld.car",
      "order="
    ])
    expect(blocks).toEqual(expect.arrayContaining(duplicatesDfs(true)))
  })
  it("GET CAR with order=dfs and dups=y of identity CID", async () => {
    const blocks = await car(
      "/ipfs/bafkqaf3imvwgy3zaneqgc3janfxgy2lomvscay3jmqfa",
      "application/vnd.ipld.car; dups=y",
      ["application/vnd.ipld.car", "dups=y"]
    )
    expect(blocks).toEqual([])
  })
  it("GET CAR with ?format=car respects Accept header order and dups params", async () => {
    const blocks = await car(
      `/ipfs/${duplicates().cid()}?format=car`,
      "application/vnd.ipld.car; version=1; order=dfs; dups=y",
      ["application/vnd.ipld.car", "order=dfs", "dups=y"]
    )
    expect(blocks).toEqual(duplicatesDfs(true))
  })
  it("GET CAR with ?car-order=dfs takes precedence over order=unk in Accept", async () => {
    await car(`/ipfs/${duplicates().cid()}?format=car&car-order=dfs`, "application/vnd.ipld.car; order=unk", [
      "application/vnd.ipld.car",
      "order=dfs"
    ])
  })
  it("GET CAR with ?car-dups=y takes precedence over dups=n in Accept", async () => {
    await car(`/ipfs/${duplicates().cid()}?format=car&car-dups=y`, "application/vnd.ipld.car; dups=n", [
      "application/vnd.ipld.car",
      "dups=y"
    ])
  })
})

describe("TestTrustlessCarFormatPrecedence", () => {
  it("GET with format=car query parameter takes precedence over Accept header", async () => {
    const response = await get(`/ipfs/${rawBlock().cid("dir")}?format=car`, { accept: "application/vnd.ipld.raw" })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/vnd.ipld.car")
  })
  it("GET with format=raw query parameter takes precedence over Accept header", async () => {
    const response = await get(`/ipfs/${rawBlock().cid("dir")}?format=raw`, { accept: "application/vnd.ipld.car" })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/vnd.ipld.raw")
  })
})

describe("TestTrustlessRaw", () => {
  const ascii = () => `/ipfs/${rawBlock().cid("dir", "ascii.txt")}`
  const raw = { accept: "application/vnd.ipld.raw" }
  it("GET with format=raw param returns a raw block", async () => {
    const response = await get(`/ipfs/${rawBlock().cid("dir")}?format=raw`)
    expect(response.status).toBe(200)
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(rawBlock().block("dir"))
  })
  it("GET with application/vnd.ipld.raw header returns a raw block", async () => {
    const response = await get(`/ipfs/${rawBlock().cid("dir")}`, raw)
    expect(response.status).toBe(200)
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(rawBlock().block("dir"))
  })
  it("GET with application/vnd.ipld.raw header returns expected response headers", async () => {
    const response = await get(ascii(), raw)
    const block = rawBlock().block("dir", "ascii.txt")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/vnd.ipld.raw")
    expect(response.headers.get("content-length")).toBe(String(block.byteLength))
    expect(response.headers.get("content-disposition")).toContain("attachment;")
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(block)
  })
  it("GET with application/vnd.ipld.raw header and filename param returns expected Content-Disposition header with custom filename", async () => {
    const response = await get(`${ascii()}?filename=foobar.bin`, raw)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="foobar.bin"')
  })
  it("GET with application/vnd.ipld.raw header returns expected caching headers", async () => {
    const response = await get(ascii(), raw)
    const cid = rawBlock().cid("dir", "ascii.txt").toString()
    expect(response.status).toBe(200)
    expect(response.headers.get("etag") ?? "").not.toBe("")
    expect(response.headers.get("x-ipfs-path")).toBe(`/ipfs/${cid}`)
    expect(response.headers.get("x-ipfs-roots")).toContain(cid)
    const directives = new Map(
      (response.headers.get("cache-control") ?? "").split(",").map((directive) => {
        const [name = "", value = ""] = directive.trim().split("=")
        return [name, value] as const
      })
    )
    expect(directives.has("public")).toBe(true)
    expect(directives.has("immutable")).toBe(true)
    expect(Number(directives.get("max-age"))).toBeGreaterThanOrEqual(29030400)
  })
})

describe("TestTrustlessRawRanges", () => {
  // The suite takes a 206 or the whole block for a single range; this gateway answers 206.
  const name = "GET with application/vnd.ipld.raw with range request includes correct bytes"
  const ascii = () => `/ipfs/${rawBlock().cid("dir", "ascii.txt")}`
  it(`${name} - single range`, async () => {
    const block = rawBlock().block("dir", "ascii.txt")
    const response = await get(ascii(), { accept: "application/vnd.ipld.raw", range: "bytes=7-9" })
    expect(response.status).toBe(206)
    expect(response.headers.get("content-range")).toBe(`bytes 7-9/${block.byteLength}`)
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(block.subarray(7, 10))
  })
  it(`${name} - multi range`, async () => {
    // Several ranges may be answered whole (RFC 9110), the first of them, or as multipart; whole here.
    const block = rawBlock().block("dir", "ascii.txt")
    const response = await get(ascii(), { accept: "application/vnd.ipld.raw", range: "bytes=7-9,1-3" })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/vnd.ipld.raw")
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(block)
  })
})

describe("TestGatewayIPNSRecord", () => {
  const record = async (path: string, headers: Record<string, string>, fixture: typeof ipnsV2) => {
    const response = await get(path, headers)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-disposition")).toContain("attachment;")
    expect(response.headers.get("content-type")).toContain("application/vnd.ipfs.ipns-record")
    expect(response.headers.get("cache-control")).toContain("public, max-age=1800")
    // The gateway serves the record as published: the same signed bytes, for the same value.
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(await fixtureBytes(fixture.file)))
  }
  it.each([
    ["V1+V2", ipnsV1V2],
    ["V2", ipnsV2]
  ] as const)("GET IPNS Record (%s) with format=ipns-record has expected HTTP headers and valid key", (_, fixture) =>
    record(`/ipns/${fixture.name}?format=ipns-record`, {}, fixture)
  )
  it.each([
    ["V1+V2", ipnsV1V2],
    ["V2", ipnsV2]
  ] as const)(
    "GET IPNS Record (%s) with 'Accept: application/vnd.ipfs.ipns-record' has expected HTTP headers and valid key",
    (_, fixture) => record(`/ipns/${fixture.name}`, { accept: "application/vnd.ipfs.ipns-record" }, fixture)
  )
  it("GET IPNS Record with explicit ?filename= succeeds with modified Content-Disposition header", async () => {
    const query = new URLSearchParams({ format: "ipns-record", filename: "testтест.ipns-record" })
    const response = await get(`/ipns/${ipnsV1V2.name}?${query}`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-disposition")).toContain(
      `attachment; filename="test____.ipns-record"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.ipns-record`
    )
  })
})

describe("DAG-CBOR pathing beyond the suite's cases", () => {
  it("a path that ends on a map inside the block is that block; a field it lacks is 404", async () => {
    const document = cborLinks().cid("document")
    const inside = await get(`/ipfs/${document}/files?format=raw`)
    expect(inside.status).toBe(200)
    expect(inside.headers.get("x-ipfs-roots")).toBe(document.toString())
    expect(new Uint8Array(await inside.arrayBuffer())).toEqual(cborLinks().block("document"))
    const absent = await get(`/ipfs/${document}/files/none?format=car`)
    expect(absent.status).toBe(404)
    expect(await absent.json()).toEqual({ error: `path not found: ${document}/files/none` })
  })
})
