/**
 * Walrus storage: the storage types an upload may name, and the blob ids Walrus stores files
 * under, as the API host lists them (`GET /api/lighthouse/walrus_blobs?cid=` → `{ blobIds }`).
 *
 * A file stored on Walrus keeps its IPFS CID (the upload node answers `{ Name, Hash, Size }` as
 * for IPFS); Walrus itself addresses it by a blob id: 32 bytes in unpadded base64url, 43
 * characters.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** Where an upload is stored: IPFS (Filecoin deals) or Walrus. Sent as `X-Storage-Type`. */
export const StorageType = Schema.Literals(["ipfs", "walrus"])
export type StorageType = typeof StorageType.Type

const blobIdPattern = /^[A-Za-z0-9_-]{43}$/

export const WalrusBlobId = Schema.String.check(
  Schema.makeFilter((s: string) => blobIdPattern.test(s), {
    expected: "a Walrus blob id (43 base64url characters)"
  })
).pipe(Schema.brand("WalrusBlobId"))
export type WalrusBlobId = typeof WalrusBlobId.Type

/** The API host's answer to `walrus_blobs`; other fields are ignored. */
export const WalrusBlobs = Schema.Struct({
  blobIds: Schema.Array(WalrusBlobId)
}).annotate({ identifier: "WalrusBlobs" })
export type WalrusBlobs = typeof WalrusBlobs.Type
