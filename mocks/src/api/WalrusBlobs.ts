/**
 * Walrus blobs of the simulated Walrus upload node: which blobs hold the files of an uploaded CID,
 * as `GET /api/lighthouse/walrus_blobs?cid=` lists them.
 *
 * A Walrus blob id is 32 bytes written in unpadded base64url (43 characters) and depends on the
 * content alone, so the same file gets the same blob id whoever stores it. Here it is the SHA-256
 * of a fixed prefix and the file's CID (the CID already hashes the content), so ids are
 * deterministic and never collide with an IPFS digest of the same bytes.
 *
 * A file upload has one blob; a folder has one per file, in upload order.
 *
 * @since 0.1.0
 */

import { base64url } from "multiformats/bases/base64"
import { CID } from "multiformats/cid"
import { sha256 } from "viem"

const blobIdPrefix = new TextEncoder().encode("walrus blob\n")

/** The blob id a file with this CID is stored under. */
export const walrusBlobId = (fileCid: string): string => {
  const cidBytes = CID.parse(fileCid).bytes
  const input = new Uint8Array(blobIdPrefix.length + cidBytes.length)
  input.set(blobIdPrefix)
  input.set(cidBytes, blobIdPrefix.length)
  return base64url.baseEncode(sha256(input, "bytes"))
}

/** The blobs behind each CID stored on Walrus. */
export class WalrusBlobs {
  readonly #byCid = new Map<string, ReadonlyArray<string>>()

  /** Records the blobs of `cid` (the upload's answered entry) from the CIDs of its files. */
  record(cid: string, fileCids: ReadonlyArray<string>): ReadonlyArray<string> {
    const blobIds = [...new Set(fileCids.map(walrusBlobId))]
    this.#byCid.set(cid, blobIds)
    return blobIds
  }

  /** The blob ids of `cid`, or `undefined` when nothing was stored on Walrus under it. */
  blobIdsOf(cid: string): ReadonlyArray<string> | undefined {
    return this.#byCid.get(cid)
  }

  /** Whether `cid` is stored on Walrus: a recorded upload, or a file inside one. */
  holds(cid: string): boolean {
    if (this.#byCid.has(cid)) return true
    const blobId = walrusBlobId(cid)
    for (const blobIds of this.#byCid.values()) if (blobIds.includes(blobId)) return true
    return false
  }

  forget(cid: string): void {
    this.#byCid.delete(cid)
  }

  /** Every CID stored on Walrus with its blob ids, for the state store. */
  records(): Iterable<readonly [string, ReadonlyArray<string>]> {
    return this.#byCid.entries()
  }

  /** Takes back what `records` gave (at start, from the state store). */
  restore(records: Iterable<readonly [string, ReadonlyArray<string>]>): void {
    for (const [cid, blobIds] of records) this.#byCid.set(cid, blobIds)
  }

  reset(): void {
    this.#byCid.clear()
  }
}
