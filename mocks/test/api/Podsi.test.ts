/**
 * Piece commitments and PoDSI proofs. The fixed points come from the provider's documentation: a
 * real `get_proof` answer (Calibration, 512-byte piece at offset 7 340 032 of a 64 MiB deal) whose
 * two inclusion paths must meet at one root and whose checksum must recompute, and the zero
 * commitments that appear in its paths. Fr32 padding is checked against a bit-by-bit reading of
 * its definition.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  aggregate,
  commP,
  fr32Pad,
  fromHex,
  indexStart,
  maxIndexEntries,
  PieceHasher,
  paddedPieceSize,
  rootFrom,
  segmentDescriptor,
  toHex,
  verifyAggregate,
  zeroComm
} from "../../src/api/Podsi.ts"

// From the provider's PoDSI documentation page (a Calibration deal).
const documented = {
  commDs: "ff1684fe9f42dcd606013436d106b3f68a12d8a745bcda239fff0c61a7cf8d00",
  checksum: "54718803470b48fa764f8ede503bbf1b",
  offset: 7_340_032,
  size: 512,
  subtreeIndex: 0x3800,
  indexIndex: 0xffe08,
  subtree: [
    "650962983d59cde36b83cf10029fd4a6839afadd4e4e89c001771762252c9b10",
    "1f7ac9595510e09ea41c460b176430bb322cd6fb412ec57cb17d989a4310372f",
    "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833",
    "08c47b38ee13bc43f41b915c0eed9911a26086b3ed62401bf9d58b8d19dff624",
    "b2e47bfb11facd941f62af5c750f3ea5cc4df517d5c4f16db2b4d77baec1a32f",
    "f9226160c8f927bfdcc418cdf203493146008eaefb7d02194d5e548189005108",
    "2c1a964bb90b59ebfe0f6da29ad65ae3e417724a8f7c11745a40cac1e5e74011",
    "fee378cef16404b199ede0b13e11b624ff9d784fbbed878d83297e795e024f02",
    "8e9e2403fa884cf6237f60df25f83ee40dca9ed879eb6f6352d15084f5ad0d3f",
    "752d9693fa167524395476e317a98580f00947afb7a30540d625a9291cc12a07",
    "7022f60f7ef6adfa17117a52619e30cea82c68075adf1c667786ec506eef2d19",
    "570a9f7de6019f338772c16598597e8028ed889de1b4006dacd0f575312e5a25",
    "e178f9b57a0d203a06f569eea8c1af23b161a37b6495ca14ccd8fa474fa99113",
    "fc042755d7bc4bc5a8e674dc61d1792b3e9ddb1506547bdc41c5f11dee3fbc18",
    "bf3885f14f576c4e82ba97e432e2382d3c5b306020e5cf4a5670dec62cd59b37",
    "3efc419f4223d704ccc9621fd253b1d63b4f105294d56dc6b70c8ec140cd9f03",
    "37ea21c10202b87c22436af983948e8ca5773f356e318a0b502ddb5968074a04"
  ],
  index: [
    "1bbfcc7cee5720e9f54ba23b3def5e2acc29f471eb785fc61bc89bcc85b86109",
    "6a28d9a48b458c0b7441547968b45dd41f13a97834c88ce5cb70ee8a4801511d",
    "81b7c84fdaa0b148ccd5f1bfffdb31ebd2e768957431b6f189b441f3ab1a9d28",
    "63ddfa0ccc8ae6af308a223ab32c35952fcc41c6bf45a546e0ad845861c8b000",
    "4bed83295e43af494c8d2449e9b41ee4b965487d985dcb4a50f5e7d3be672f3c",
    "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833",
    "08c47b38ee13bc43f41b915c0eed9911a26086b3ed62401bf9d58b8d19dff624",
    "b2e47bfb11facd941f62af5c750f3ea5cc4df517d5c4f16db2b4d77baec1a32f",
    "f9226160c8f927bfdcc418cdf203493146008eaefb7d02194d5e548189005108",
    "2c1a964bb90b59ebfe0f6da29ad65ae3e417724a8f7c11745a40cac1e5e74011",
    "fee378cef16404b199ede0b13e11b624ff9d784fbbed878d83297e795e024f02",
    "8e9e2403fa884cf6237f60df25f83ee40dca9ed879eb6f6352d15084f5ad0d3f",
    "752d9693fa167524395476e317a98580f00947afb7a30540d625a9291cc12a07",
    "7022f60f7ef6adfa17117a52619e30cea82c68075adf1c667786ec506eef2d19",
    "d99887b973573a96e11393645236c17b1f4c7034d723c7a99f709bb4da61162b",
    "d0b530dbb0b4f25c5d2f2a28dfee808b53412a02931f18c499f5a254086b1326",
    "84c0421ba0685a01bf795a2344064fe424bd52a9d24377b394ff4c4b4568e811",
    "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c",
    "4d30309453ba8162df5fad5ca674bfddbfa77f04a9d34f452dd3f435d1548220",
    "308b7ac653ca76bf698031d74fd325e72ab4b157d9e93d0f1366be5103f05422"
  ]
}

/** Fr32 by its definition: the input's bits (LSB first) with two zero bits after every 254. */
const fr32Reference = (input: Uint8Array): Uint8Array => {
  const bit = (i: number) => (input[i >> 3]! >> (i & 7)) & 1
  const out = new Uint8Array(128)
  let written = 0
  for (let read = 0; read < 127 * 8; read++) {
    if (written % 256 === 254) written += 2
    if (bit(read)) out[written >> 3]! |= 1 << (written & 7)
    written++
  }
  return out
}

describe("PoDSI", () => {
  it("the provider's documented proof verifies: both paths reach one root, the checksum recomputes", async () => {
    const commDs = fromHex(documented.commDs)
    const entry = await segmentDescriptor(commDs, documented.offset, documented.size)
    expect(toHex(entry.checksum)).toBe(documented.checksum)
    const subtree = { index: documented.subtreeIndex, path: documented.subtree.map(fromHex) }
    const index = { index: documented.indexIndex, path: documented.index.map(fromHex) }
    const root = await rootFrom(commDs, subtree)
    expect(await verifyAggregate(root, { commP: commDs }, entry, subtree, index)).toBe(true)
    // The index entry sits where FRC-0058 puts it in a 64 MiB deal: entry 8 of 512 at the end.
    const dealSize = 64 * 1024 * 1024
    expect(maxIndexEntries(dealSize)).toBe(512)
    expect(indexStart(dealSize) / 64 + 8).toBe(documented.indexIndex)
  })

  it("zero commitments match the ones in the provider's paths", async () => {
    expect(toHex(await zeroComm(1))).toBe("f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b")
    expect(toHex(await zeroComm(5))).toBe(documented.subtree[1])
    expect(toHex(await zeroComm(6))).toBe(documented.subtree[2])
  })

  it("Fr32 padding follows its bit-level definition", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 127, maxLength: 127 }), (input) => {
        const out = new Uint8Array(128)
        fr32Pad(input, out)
        expect(out).toEqual(fr32Reference(input))
        for (let word = 0; word < 4; word++) expect(out[word * 32 + 31]! & 0xc0).toBe(0)
      })
    )
  })

  it("piece sizes and commitments: zero payloads give zero commitments; chunking does not matter", async () => {
    expect(paddedPieceSize(1)).toBe(128)
    expect(paddedPieceSize(127)).toBe(128)
    expect(paddedPieceSize(128)).toBe(256)
    expect(paddedPieceSize(1024)).toBe(2048)
    expect(paddedPieceSize(65_024)).toBe(65_536)
    const zeros = await commP([new Uint8Array(127 * 8)])
    expect(zeros.size).toBe(1024)
    expect(zeros.commP).toEqual(await zeroComm(5))
    expect(zeros.cid.toString()).toMatch(/^baga6ea4seaq/)

    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 65, maxLength: 3000 }), fc.nat({ max: 3000 }), async (bytes, cut) => {
        const whole = await commP([bytes])
        const hasher = new PieceHasher()
        await hasher.write(bytes.subarray(0, cut))
        await hasher.write(bytes.subarray(cut))
        expect((await hasher.digest()).commP).toEqual(whole.commP)
        expect(whole.size).toBe(paddedPieceSize(bytes.length))
      }),
      { numRuns: 40 }
    )
  })

  it("aggregate proofs verify for any slot and entry, and only for the right piece", async () => {
    const piece = await commP([new TextEncoder().encode("x".repeat(1000))])
    const dealSize = 1024 * 1024
    const slots = Math.floor(indexStart(dealSize) / piece.size)
    for (const [slot, entryIndex] of [
      [0, 0],
      [slots - 1, maxIndexEntries(dealSize) - 1],
      [7, 3]
    ] as const) {
      const proof = await aggregate(piece, { dealSize, slot, entryIndex })
      expect(proof.proofSubtree.index).toBe(slot)
      expect(await verifyAggregate(proof.commPa, piece, proof.entry, proof.proofSubtree, proof.proofIndex)).toBe(true)
      const other = await commP([new TextEncoder().encode("y".repeat(1000))])
      expect(await verifyAggregate(proof.commPa, other, proof.entry, proof.proofSubtree, proof.proofIndex)).toBe(false)
    }
    await expect(aggregate(piece, { dealSize, slot: slots, entryIndex: 0 })).rejects.toThrow(RangeError)
  })
})
