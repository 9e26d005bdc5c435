/**
 * The CARv1 header reader against `@ipld/car`'s `readHeader(…, 1)`, the decoder it replaces on
 * the upload path: the same roots for every header `@ipld/car` writes, and `undefined` wherever
 * `readHeader` throws (malformed DAG-CBOR, other keys, other versions, bytes missing or extra);
 * and the one-root header the sync writes, byte for byte the one `@ipld/car` writes.
 */

import { describe, expect, it } from "@effect/vitest"
import { bytesReader, readHeader } from "@ipld/car/decoder"
import fc from "fast-check"
import { varint } from "multiformats"
import { CID } from "multiformats/cid"
import { sha256 } from "multiformats/hashes/sha2"
import { carV1Header, carV1Roots } from "../../src/verify/CarHeader.ts"
import { encodeCar } from "./fixtures.ts"

const oracle = async (bytes: Uint8Array): Promise<ReadonlyArray<string> | undefined> => {
  try {
    const [length, prefix] = varint.decode(bytes)
    const header = await readHeader(bytesReader(bytes.subarray(0, prefix + length)), 1)
    return header.roots.map(String)
  } catch {
    return undefined
  }
}

const ours = (bytes: Uint8Array) => carV1Roots(bytes)?.map(String)

const cidOf = async (seed: number, version: 0 | 1) => {
  const digest = await sha256.digest(Uint8Array.of(seed & 255, seed >> 8))
  return version === 0 ? CID.createV0(digest) : CID.createV1(0x55, digest)
}

/** A header of hand-written DAG-CBOR `body`, behind its varint length. */
const framed = (...body: Array<number | Uint8Array>) => {
  const bytes = Uint8Array.from(body.flatMap((part) => (typeof part === "number" ? [part] : [...part])))
  return Uint8Array.from([
    ...varint.encodeTo(bytes.byteLength, new Uint8Array(varint.encodingLength(bytes.byteLength))),
    ...bytes
  ])
}

const text = (value: string) => [0x60 + value.length, ...new TextEncoder().encode(value)]

const link = (cid: CID) => {
  const bytes = Uint8Array.from([0, ...cid.bytes])
  return [0xd8, 42, 0x58, bytes.byteLength, ...bytes]
}

describe("carV1Roots", () => {
  it("reads the roots of every header @ipld/car writes, as readHeader does", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.constantFrom(0 as const, 1 as const)), {
          maxLength: 40
        }),
        async (specs) => {
          const roots = await Promise.all(specs.map(([seed, version]) => cidOf(seed, version)))
          const bytes = await encodeCar(roots, [])
          expect(ours(bytes)).toEqual(roots.map(String))
          expect(ours(bytes)).toEqual(await oracle(bytes))
        }
      ),
      { numRuns: 60 }
    )
  })

  it("refuses what readHeader refuses", async () => {
    const root = await cidOf(7, 1)
    const roots = [0x81, ...link(root)]
    const cases: Record<string, Uint8Array> = {
      valid: framed(0xa2, ...text("roots"), ...roots, ...text("version"), 0x01),
      "keys in the other order": framed(0xa2, ...text("version"), 0x01, ...text("roots"), ...roots),
      "version 2": framed(0xa2, ...text("roots"), ...roots, ...text("version"), 0x02),
      "no roots": framed(0xa1, ...text("version"), 0x01),
      "no version": framed(0xa1, ...text("roots"), ...roots),
      "another key": framed(0xa3, ...text("roots"), ...roots, ...text("version"), 0x01, ...text("x"), 0x01),
      "a repeated key": framed(0xa3, ...text("roots"), ...roots, ...text("version"), 0x01, ...text("version"), 0x01),
      "version not in its shortest form": framed(0xa2, ...text("roots"), ...roots, ...text("version"), 0x18, 0x01),
      "an indefinite map": framed(0xbf, ...text("roots"), ...roots, ...text("version"), 0x01, 0xff),
      "bytes after the map": framed(0xa2, ...text("roots"), ...roots, ...text("version"), 0x01, 0x00),
      "a root under another tag": framed(
        0xa2,
        ...text("roots"),
        0x81,
        0xd8,
        43,
        ...link(root).slice(2),
        ...text("version"),
        0x01
      ),
      "a root without its zero byte": framed(
        0xa2,
        ...text("roots"),
        0x81,
        0xd8,
        42,
        0x58,
        root.bytes.byteLength,
        ...root.bytes,
        ...text("version"),
        0x01
      ),
      "roots not an array": framed(0xa2, ...text("roots"), ...link(root), ...text("version"), 0x01),
      "zero length": Uint8Array.of(0),
      truncated: framed(0xa2, ...text("roots"), ...roots, ...text("version"), 0x01).subarray(0, 20),
      empty: new Uint8Array(0)
    }
    const results: Record<string, { ours?: ReadonlyArray<string>; readHeader?: ReadonlyArray<string> }> =
      Object.fromEntries(
        await Promise.all(
          Object.entries(cases).map(async ([name, bytes]) => [
            name,
            { ours: ours(bytes), readHeader: await oracle(bytes) }
          ])
        )
      )
    for (const [name, result] of Object.entries(results)) expect(result.ours, name).toEqual(result.readHeader)
    expect(results.valid?.ours).toEqual([root.toString()])
    expect(results["keys in the other order"]?.ours).toEqual([root.toString()])
    expect(Object.values(results).filter((result) => result.ours === undefined)).toHaveLength(14)
  })
})

describe("carV1Header", () => {
  it("writes the header @ipld/car writes for one root, which carV1Roots reads back", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 65535 }),
        fc.constantFrom(0 as const, 1 as const),
        async (seed, version) => {
          const root = await cidOf(seed, version)
          const written = await encodeCar([root], [])
          expect(carV1Header(root)).toEqual(written)
          expect(ours(carV1Header(root))).toEqual([String(root)])
        }
      ),
      { numRuns: 60 }
    )
  })
})
