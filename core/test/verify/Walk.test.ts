/**
 * How the walk tells a dag-pb node with links from a leaf before decoding it (`holdsLinks`): a
 * node with links is decoded from a copy, since its links outlive the read it arrived in, and a
 * leaf where it lies. So it must never call a node with links a leaf; calling a leaf a node only
 * costs a copy, and must not happen for well-formed leaves either.
 */
import { assert, describe, it } from "@effect/vitest"
import * as dagPb from "@ipld/dag-pb"
import * as fc from "fast-check"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import * as Digest from "multiformats/hashes/digest"
import { sha256 } from "multiformats/hashes/sha2"
import { holdsLinks } from "../../src/verify/Walk.ts"

const cids = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => CID.create(1, raw.code, Digest.create(sha256.code, bytes)))

const links = fc.array(
  fc.record({
    Hash: cids,
    Name: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    Tsize: fc.option(fc.nat(), { nil: undefined })
  }),
  { maxLength: 200 }
)

const data = fc.option(fc.uint8Array({ maxLength: 70_000 }), { nil: undefined })

describe("holdsLinks", () => {
  it("tells every encoded node whether it has links", () =>
    fc.assert(
      fc.property(links, data, (Links, Data) => {
        const bytes = dagPb.encode(dagPb.prepare({ Links, ...(Data === undefined ? {} : { Data }) }))
        return holdsLinks(bytes) === Links.length > 0
      }),
      { numRuns: 200 }
    ))

  it("never calls bytes a leaf that decode to links", () =>
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), links, fc.nat(), (noise, Links, cut) => {
        const encoded = dagPb.encode(dagPb.prepare({ Links, Data: noise }))
        for (const bytes of [noise, encoded.subarray(0, cut % (encoded.length + 1))]) {
          if (holdsLinks(bytes)) continue
          try {
            if (dagPb.decode(bytes).Links.length > 0) return false
          } catch {
            // Not a node: decoding it fails either way.
          }
        }
        return true
      }),
      { numRuns: 300 }
    ))

  it("reads a leaf of the usual size without a copy", () => {
    const leaf = dagPb.encode(dagPb.prepare({ Data: new Uint8Array(256 * 1024).fill(7) }))
    assert.isFalse(holdsLinks(leaf))
  })
})
