/**
 * Hosts that lie: answers altered so they no longer match the CIDs they claim, to test that
 * clients which verify catch every one of them and name what was wrong.
 *
 * Gateway lies alter the answer after the gateway made it. On a CAR (`application/vnd.ipld.car`)
 * they work block by block: `flip-byte` flips the middle byte of the last non-empty block,
 * `drop-block` leaves out the last block, `extra-block` appends a block that belongs to no DAG,
 * `other-file` keeps the header (the root asked for) but sends the blocks of another file, and
 * `truncate` cuts the answer in the middle. On other answers (plain file bytes) they alter the
 * bytes the same way (`drop-block` cuts the last quarter, `extra-block` appends bytes).
 *
 * The node lie `wrong-cid` replaces every CID of the upload node's JSON answer (`Hash`, and a
 * CAR import's `Root.Cid["/"]`) with the CID of other bytes, of the same CID version.
 */
import { CarBlockIterator, CarWriter } from "@ipld/car"
import { importer } from "ipfs-unixfs-importer"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"

export type GatewayLie = "flip-byte" | "drop-block" | "extra-block" | "other-file" | "truncate"
export type NodeLie = "wrong-cid"
export type Lie = GatewayLie | NodeLie

export const GatewayLies: ReadonlyArray<GatewayLie> = [
  "flip-byte",
  "drop-block",
  "extra-block",
  "other-file",
  "truncate"
]

const encoder = new TextEncoder()
/** The bytes every lie passes off as the content. */
export const OTHER_FILE = encoder.encode("a different file\n")

interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

const readCar = async (bytes: Uint8Array) => {
  const iterator = await CarBlockIterator.fromBytes(bytes)
  const blocks: Array<Block> = []
  for await (const block of iterator) blocks.push(block)
  return { roots: await iterator.getRoots(), blocks }
}

const writeCar = async (roots: ReadonlyArray<CID>, blocks: ReadonlyArray<Block>): Promise<Uint8Array> => {
  const { writer, out } = CarWriter.create([...roots])
  const parts: Array<Uint8Array> = []
  const collected = (async () => {
    for await (const part of out) parts.push(part)
  })()
  for (const block of blocks) await writer.put(block)
  await writer.close()
  await collected
  return await concat(parts)
}

const concat = async (parts: ReadonlyArray<Uint8Array>) =>
  new Uint8Array(await new Blob(parts as Array<Uint8Array<ArrayBuffer>>).arrayBuffer())

/** A copy of `bytes` with its middle byte flipped (one byte when empty). */
const flipMiddle = (bytes: Uint8Array) => {
  if (bytes.length === 0) return Uint8Array.of(1)
  const flipped = bytes.slice()
  flipped[flipped.length >> 1]! ^= 0xff
  return flipped
}

/** The blocks of {@link OTHER_FILE} as a one-file DAG of CID `version`. */
const otherFileBlocks = async (version: 0 | 1) => {
  const blocks: Array<Block> = []
  const store = {
    put: (cid: CID, bytes: Uint8Array) => {
      blocks.push({ cid, bytes })
      return cid
    }
  }
  for await (const _ of importer([{ content: OTHER_FILE }], store, { cidVersion: version, rawLeaves: version === 1 })) {
    // Blocks arrive through `store`.
  }
  return blocks.reverse()
}

const lieInCar = async (lie: GatewayLie, car: Uint8Array): Promise<Uint8Array> => {
  const { roots, blocks } = await readCar(car)
  switch (lie) {
    case "flip-byte": {
      const index = blocks.findLastIndex((block) => block.bytes.length > 0)
      const flipped = blocks.map((block, i) =>
        i === index ? { cid: block.cid, bytes: flipMiddle(block.bytes) } : block
      )
      return writeCar(roots, flipped)
    }
    case "drop-block":
      return writeCar(roots, blocks.slice(0, -1))
    case "extra-block": {
      const extra = encoder.encode("a block of no DAG\n")
      return writeCar(roots, [...blocks, { cid: CID.createV1(raw.code, await sha256.digest(extra)), bytes: extra }])
    }
    case "other-file":
      return writeCar(roots, await otherFileBlocks(roots[0]?.version === 0 ? 0 : 1))
    case "truncate":
      return car.subarray(0, car.length >> 1)
  }
}

const lieInBytes = async (lie: GatewayLie, bytes: Uint8Array): Promise<Uint8Array> => {
  switch (lie) {
    case "flip-byte":
      return flipMiddle(bytes)
    case "drop-block":
      return bytes.subarray(0, Math.floor((bytes.length * 3) / 4))
    case "extra-block":
      return concat([bytes, encoder.encode("extra bytes\n")])
    case "other-file":
      return OTHER_FILE
    case "truncate":
      return bytes.subarray(0, bytes.length >> 1)
  }
}

/** Another CID of the same version as `cid`: the one of {@link OTHER_FILE}'s bytes. */
const otherCid = async (cid: string): Promise<string> => {
  const digest = await sha256.digest(OTHER_FILE)
  return (cid.startsWith("Qm") ? CID.createV0(digest) : CID.createV1(raw.code, digest)).toString()
}

const lieInJson = async (value: unknown): Promise<unknown> => {
  if (Array.isArray(value)) return Promise.all(value.map(lieInJson))
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    out[key] =
      (key === "Hash" || key === "/") && typeof field === "string" ? await otherCid(field) : await lieInJson(field)
  }
  return out
}

/** The node's JSON (or newline-delimited JSON) answer with every CID replaced. */
const wrongCids = async (text: string): Promise<string> => {
  const lines = text.split("\n").filter((line) => line.trim() !== "")
  const lied = await Promise.all(lines.map(async (line) => JSON.stringify(await lieInJson(JSON.parse(line)))))
  return lines.length > 1 ? `${lied.join("\n")}\n` : (lied[0] ?? "")
}

/** `response` telling `lie`; error answers are left as they are. */
export const tellLie = async (lie: Lie, response: Response): Promise<Response> => {
  if (response.status < 200 || response.status >= 300 || response.body === null) return response
  const headers = new Headers(response.headers)
  // The altered body has another length; the original one would leave clients waiting.
  headers.delete("content-length")
  if (lie === "wrong-cid") {
    return new Response(await wrongCids(await response.text()), { status: response.status, headers })
  }
  const bytes = new Uint8Array(await response.arrayBuffer())
  const isCar = (headers.get("content-type") ?? "").toLowerCase().startsWith("application/vnd.ipld.car")
  const body = isCar ? await lieInCar(lie, bytes) : await lieInBytes(lie, bytes)
  return new Response(body as Uint8Array<ArrayBuffer>, { status: response.status, headers })
}
