/**
 * Walrus blob ids of the simulated Walrus node: 43 base64url characters, derived from the file's
 * CID alone, the same for the same content and different for different content.
 */
import { Effect, Exit, Schema } from "effect"
import fc from "fast-check"
import { Walrus } from "lighthouse-effect"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { describe, expect, it } from "vitest"
import { WalrusBlobs, walrusBlobId } from "../../src/api/WalrusBlobs.ts"

const rawCid = (bytes: Uint8Array) => CID.createV1(raw.code, sha256.digest(bytes) as never).toString()

describe("walrusBlobId", () => {
  it("is 43 base64url characters, deterministic, and differs with the content", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
        const id = walrusBlobId(rawCid(a))
        expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(walrusBlobId(rawCid(Uint8Array.from(a)))).toBe(id)
        if (rawCid(a) !== rawCid(b)) expect(walrusBlobId(rawCid(b))).not.toBe(id)
      }),
      { numRuns: 200 }
    )
  })

  it("a known vector: the empty raw file", () => {
    const cid = rawCid(new Uint8Array())
    expect(cid).toBe("bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku")
    // SHA-256 of "walrus blob\n" and the CID's bytes, unpadded base64url: pinned so ids never drift.
    expect(walrusBlobId(cid)).toBe("6jMm0zF1LwtP3JnD4DJREAQA5OBYIfLecmGFbhNNlZg")
    expect(walrusBlobId(cid)).not.toBe(walrusBlobId("QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"))
  })

  it("throws on what is not a CID", () => {
    expect(() => walrusBlobId("not a cid")).toThrow()
  })
})

describe("WalrusBlobs", () => {
  it("records a folder's blobs in upload order without repeats; forget and reset drop them", () => {
    const blobs = new WalrusBlobs()
    const files = [rawCid(new Uint8Array([1])), rawCid(new Uint8Array([2])), rawCid(new Uint8Array([1]))]
    const ids = blobs.record("folder", files)
    expect(ids).toEqual([walrusBlobId(files[0]!), walrusBlobId(files[1]!)])
    expect(blobs.blobIdsOf("folder")).toEqual(ids)
    // What the API host answers decodes with the library's schema.
    const decoded = Effect.runSyncExit(Schema.decodeUnknownEffect(Walrus.WalrusBlobs)({ blobIds: ids }))
    expect(Exit.isSuccess(decoded)).toBe(true)
    blobs.forget("folder")
    expect(blobs.blobIdsOf("folder")).toBeUndefined()
    blobs.record("file", [files[1]!])
    blobs.reset()
    expect(blobs.blobIdsOf("file")).toBeUndefined()
  })

  it("the library refuses blob ids of the wrong shape", () => {
    for (const blobIds of [["short"], ["x".repeat(44)], [`${"a".repeat(42)}=`], "id"]) {
      const exit = Effect.runSyncExit(Schema.decodeUnknownEffect(Walrus.WalrusBlobs)({ blobIds }))
      expect(Exit.isFailure(exit)).toBe(true)
    }
  })
})
