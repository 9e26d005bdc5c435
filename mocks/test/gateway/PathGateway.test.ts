/**
 * The path and trustless gateway over a blockstore, checked the way an independent client would:
 * every block of a raw or CAR answer is hashed against its CID, and CAR answers are read back with
 * the UnixFS exporter from a blockstore holding only the blocks received (so a missing block fails).
 */
import { CarBlockIterator } from "@ipld/car"
import { ed25519 } from "@noble/curves/ed25519.js"
import { MemoryBlockstore } from "blockstore-core/memory"
import fc from "fast-check"
import { exporter } from "ipfs-unixfs-exporter"
import { importer } from "ipfs-unixfs-importer"
import { fixedSize } from "ipfs-unixfs-importer/chunker"
import { balanced } from "ipfs-unixfs-importer/layout"
import { CID } from "multiformats/cid"
import { sha256 } from "multiformats/hashes/sha2"
import { beforeAll, describe, expect, it } from "vitest"
import { ipnsIdOf } from "../../src/api/Ipns.ts"
import { type IpnsResolution, pathGatewayResponse } from "../../src/gateway/PathGateway.ts"
import { parseCid } from "../../src/http/Request.ts"
import { signRecord } from "../../src/ipns/IpnsRecords.ts"
import { memoryBlockstore } from "../../src/storage/Blocks.ts"
import { walkDag } from "../../src/storage/Dag.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"

const bytesOf = pseudoRandomBytes

const blocks = memoryBlockstore()
const big = bytesOf(20_000, 3)
const names = new Map<string, IpnsResolution>()
let file: CID
let site: CID
const ipnsSecret = bytesOf(32, 77)
const ipnsName = ipnsIdOf(ed25519.getPublicKey(ipnsSecret))

const gateway = (path: string, init: RequestInit = {}) =>
  pathGatewayResponse(new Request(`http://gateway.test${path}`, init), {
    blocks,
    resolveName: async (name) => names.get(name),
    parseCid
  })

beforeAll(async () => {
  const entries = [
    { path: "big.bin", content: big },
    { path: "site/index.txt", content: new TextEncoder().encode("hello") },
    { path: "site/a/b.txt", content: bytesOf(3_000, 9) }
  ]
  const added = []
  for await (const entry of importer(entries, blocks, {
    chunker: fixedSize({ chunkSize: 1_000 }),
    layout: balanced({ maxChildrenPerNode: 4 }),
    cidVersion: 1,
    rawLeaves: true
  }))
    added.push(entry)
  file = added.find((entry) => entry.path === "big.bin")!.cid
  site = added.find((entry) => entry.path === "site")!.cid
  const record = await signRecord(ipnsSecret, site, 1n, Date.now() + 3_600_000)
  names.set(ipnsName, { cid: site, record })
})

const body = async (response: Response) => new Uint8Array(await response.arrayBuffer())

/** Reads a CAR answer: roots and blocks, each block checked against its CID. */
const readCar = async (response: Response) => {
  const iterator = await CarBlockIterator.fromBytes(await body(response))
  const received: Array<{ cid: CID; bytes: Uint8Array }> = []
  for await (const block of iterator) {
    expect((await sha256.digest(block.bytes)).digest).toEqual(block.cid.multihash.digest)
    received.push(block)
  }
  return { roots: await iterator.getRoots(), blocks: received }
}

/** The file bytes an exporter reads from only the blocks received. */
const exportFrom = async (
  received: ReadonlyArray<{ cid: CID; bytes: Uint8Array }>,
  root: CID,
  offset?: number,
  length?: number
) => {
  const store = new MemoryBlockstore()
  for (const block of received) await store.put(block.cid, block.bytes)
  const entry = await exporter(root, store)
  if (entry.type !== "file" && entry.type !== "raw") throw new Error(`not a file: ${entry.type}`)
  const parts: Array<number> = []
  for await (const chunk of entry.content({
    ...(offset === undefined ? {} : { offset }),
    ...(length === undefined ? {} : { length })
  }))
    parts.push(...chunk)
  return Uint8Array.from(parts)
}

describe("raw blocks", () => {
  it.each([
    ["?format=raw", {}],
    ["", { accept: "application/vnd.ipld.raw" }],
    ["?format=raw", { accept: "text/html" }]
  ])("serve the block verbatim (%s %j)", async (query, headers) => {
    const response = await gateway(`/ipfs/${file}${query}`, { headers })
    expect(response.status).toBe(200)
    const bytes = await body(response)
    expect((await sha256.digest(bytes)).digest).toEqual(file.multihash.digest)
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "content-type": "application/vnd.ipld.raw",
      "content-length": String(bytes.byteLength),
      "content-disposition": `attachment; filename="${file}.bin"`,
      etag: `"${file}.raw"`,
      "cache-control": "public, max-age=29030400, immutable",
      "x-content-type-options": "nosniff",
      "x-ipfs-roots": file.toString()
    })
    expect(response.headers.get("content-location")).toBe(query === "" ? `/ipfs/${file}?format=raw` : null)
  })

  it("HEAD answers the same headers without a body; If-None-Match answers 304", async () => {
    const head = await gateway(`/ipfs/${file}?format=raw`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.body).toBeNull()
    expect(head.headers.get("etag")).toBe(`"${file}.raw"`)
    const cached = await gateway(`/ipfs/${file}?format=raw`, { headers: { "if-none-match": `"${file}.raw"` } })
    expect(cached.status).toBe(304)
  })

  it("answers the identity probe bafkqaaa with an empty body", async () => {
    const response = await gateway("/ipfs/bafkqaaa?format=raw")
    expect(response.status).toBe(200)
    expect((await body(response)).byteLength).toBe(0)
  })
})

describe("CAR", () => {
  it("carries the whole file DAG, depth first, each block once", async () => {
    const response = await gateway(`/ipfs/${file}?format=car`)
    expect(response.headers.get("content-type")).toBe("application/vnd.ipld.car; version=1; order=dfs; dups=n")
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${file}.car"`)
    expect(response.headers.get("etag")).toMatch(new RegExp(`^"${file}\\.car\\.[0-9a-f]{8}"$`))
    const car = await readCar(response)
    expect(car.roots.map(String)).toEqual([file.toString()])
    const expected = []
    for await (const block of walkDag(blocks, file)) expected.push(block.cid.toString())
    expect(car.blocks.map((block) => block.cid.toString())).toEqual(expected)
    expect(await exportFrom(car.blocks, file)).toEqual(big)
  })

  it("is chosen by Accept too, and honours dups=y", async () => {
    const response = await gateway(`/ipfs/${file}`, {
      headers: { accept: "application/vnd.ipld.car; version=1; dups=y" }
    })
    expect(response.headers.get("content-type")).toBe("application/vnd.ipld.car; version=1; order=dfs; dups=y")
    expect(response.headers.get("content-location")).toBe(`/ipfs/${file}?format=car`)
    expect((await readCar(response)).blocks.length).toBeGreaterThan(20)
    const asked = await gateway(`/ipfs/${file}?format=car&dag-scope=entity`)
    expect(asked.headers.get("content-location")).toBeNull()
  })

  it("starts with the blocks that resolve a path, then the file", async () => {
    const response = await gateway(`/ipfs/${site}/a/b.txt?format=car`)
    const car = await readCar(response)
    const crossed = response.headers.get("x-ipfs-roots")!.split(",")
    expect(crossed[0]).toBe(site.toString())
    expect(car.blocks.slice(0, 2).map((block) => block.cid.toString())).toEqual(crossed.slice(0, 2))
    const end = CID.parse(crossed.at(-1)!)
    expect(await exportFrom(car.blocks, end)).toEqual(bytesOf(3_000, 9))
    // The path can be checked from the blocks alone: the exporter walks it without the store.
    const store = new MemoryBlockstore()
    for (const block of car.blocks) await store.put(block.cid, block.bytes)
    expect((await exporter(`${site}/a/b.txt`, store)).cid.equals(end)).toBe(true)
  })

  it("dag-scope=block sends the path and the end block only", async () => {
    const car = await readCar(await gateway(`/ipfs/${site}/a?format=car&dag-scope=block`))
    expect(car.blocks).toHaveLength(2)
    expect(car.blocks[0]!.cid.equals(site)).toBe(true)
  })

  it("entity-bytes sends just the blocks a range needs, and they suffice to read it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(19_999), fc.integer({ min: 1, max: 3_000 }), async (from, length) => {
        const to = Math.min(19_999, from + length - 1)
        const response = await gateway(`/ipfs/${file}?format=car&entity-bytes=${from}:${to}`)
        const car = await readCar(response)
        const leaves = car.blocks.filter((block) => block.cid.code === 0x55)
        expect(leaves).toHaveLength(Math.floor(to / 1_000) - Math.floor(from / 1_000) + 1)
        expect(await exportFrom(car.blocks, file, from, to - from + 1)).toEqual(big.slice(from, to + 1))
      }),
      { numRuns: 15 }
    )
  })

  it("entity-bytes counts negative offsets from the end; a range past the end is the root alone", async () => {
    const tail = await readCar(await gateway(`/ipfs/${file}?format=car&entity-bytes=-500:*`))
    expect(await exportFrom(tail.blocks, file, 19_500, 500)).toEqual(big.slice(19_500))
    const outside = await readCar(await gateway(`/ipfs/${file}?format=car&entity-bytes=30000:*`))
    expect(outside.blocks.map((block) => block.cid.toString())).toEqual([file.toString()])
  })

  it("answers the identity probe with a CAR naming bafkqaaa and no blocks", async () => {
    const car = await readCar(await gateway("/ipfs/bafkqaaa?format=car"))
    expect(car.roots.map(String)).toEqual(["bafkqaaa"])
    expect(car.blocks).toEqual([])
  })

  it.each([
    ["car-version=2", "unsupported CAR version: 2"],
    ["car-dups=maybe", "car-dups must be y or n, got maybe"],
    ["dag-scope=some", "dag-scope must be all, entity or block, got some"],
    ["entity-bytes=9:3", "invalid entity-bytes: 9:3"]
  ])("refuses %s", async (query, message) => {
    const response = await gateway(`/ipfs/${file}?format=car&${query}`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: message })
  })
})

describe("deserialized files", () => {
  it("serve the bytes with an immutable Etag and Accept-Ranges", async () => {
    const response = await gateway(`/ipfs/${file}`)
    expect(response.status).toBe(200)
    expect(await body(response)).toEqual(big)
    expect(Object.fromEntries(response.headers)).toMatchObject({
      etag: `"${file}"`,
      "accept-ranges": "bytes",
      "content-length": "20000",
      "cache-control": "public, max-age=29030400, immutable"
    })
  })

  it("answer any single byte range with 206", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(19_999), fc.nat(25_000), async (start, last) => {
        fc.pre(last >= start)
        const response = await gateway(`/ipfs/${file}`, { headers: { range: `bytes=${start}-${last}` } })
        const end = Math.min(20_000, last + 1)
        expect(response.status).toBe(206)
        expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end - 1}/20000`)
        expect(await body(response)).toEqual(big.slice(start, end))
      }),
      { numRuns: 30 }
    )
    const suffix = await gateway(`/ipfs/${file}`, { headers: { range: "bytes=-10" } })
    expect(await body(suffix)).toEqual(big.slice(-10))
    const past = await gateway(`/ipfs/${file}`, { headers: { range: "bytes=20000-" } })
    expect(past.status).toBe(416)
    expect(past.headers.get("content-range")).toBe("bytes */20000")
  })

  it("resolve paths inside folders", async () => {
    const response = await gateway(`/ipfs/${site}/a/b.txt`)
    expect(await body(response)).toEqual(bytesOf(3_000, 9))
    expect(response.headers.get("content-type")).toBe("text/plain")
    expect(response.headers.get("x-ipfs-path")).toBe(`/ipfs/${site}/a/b.txt`)
    const listing = await gateway(`/ipfs/${site}/`)
    expect(await listing.text()).toContain(`<a href="/ipfs/${site}/index.txt">index.txt</a>`)
  })

  it("answer 404 for content not held (412 with only-if-cached), 400 for a bad CID", async () => {
    const missing = CID.createV1(0x55, await sha256.digest(Uint8Array.of(9, 9)))
    const absent = await gateway(`/ipfs/${missing}`)
    expect(absent.status).toBe(404)
    expect(await absent.json()).toEqual({ error: `block not found: ${missing}` })
    expect(
      (await gateway(`/ipfs/${missing}?format=raw`, { headers: { "cache-control": "only-if-cached" } })).status
    ).toBe(412)
    expect((await gateway(`/ipfs/${site}/nope`)).status).toBe(404)
    expect((await gateway("/ipfs/not-a-cid")).status).toBe(400)
  })
})

describe("IPNS names", () => {
  it("resolve to their content with the record's TTL as caching", async () => {
    const response = await gateway(`/ipns/${ipnsName}/a/b.txt`)
    expect(await body(response)).toEqual(bytesOf(3_000, 9))
    expect(response.headers.get("cache-control")).toBe("public, max-age=300")
  })

  it("serve the signed record with ?format=ipns-record", async () => {
    const response = await gateway(`/ipns/${ipnsName}?format=ipns-record`)
    expect(response.headers.get("content-type")).toBe("application/vnd.ipfs.ipns-record")
    expect(await body(response)).toEqual(names.get(ipnsName)!.record.bytes)
    expect((await gateway(`/ipfs/${site}?format=ipns-record`)).status).toBe(400)
  })

  it("answer 404 for a name without a record and 400 for a non-name", async () => {
    const other = ipnsIdOf(ed25519.getPublicKey(bytesOf(32, 78)))
    expect((await gateway(`/ipns/${other}`)).status).toBe(404)
    expect((await gateway("/ipns/example.com")).status).toBe(400)
  })
})
