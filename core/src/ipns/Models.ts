/**
 * What the API host answers about IPNS keys and records, decoded with these schemas, what a
 * publish takes, and how the calls fail.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { RequestFailed, TransportFailure } from "../Errors.ts"

/**
 * A fresh key: its name (what the other calls take) and its id (the `k51…` name it publishes under).
 *
 * @category schemas
 */
export const IpnsKey = Schema.Struct({
  ipnsName: Schema.String,
  ipnsId: Schema.String
}).annotate({ identifier: "IpnsKey" })
/** @category models */
export type IpnsKey = typeof IpnsKey.Type

/**
 * A published record: `Name` is the key's id, `Value` is `/ipfs/<cid>`.
 *
 * @category schemas
 */
export const PublishedRecord = Schema.Struct({
  Name: Schema.String,
  Value: Schema.String
}).annotate({ identifier: "PublishedRecord" })
/** @category models */
export type PublishedRecord = typeof PublishedRecord.Type

/**
 * A key and what it points to (`cid` is `null` before the first publish).
 *
 * @category schemas
 */
export const IpnsRecord = Schema.Struct({
  ipnsName: Schema.String,
  ipnsId: Schema.String,
  publicKey: Schema.String,
  cid: Schema.NullOr(Schema.String),
  lastUpdate: Schema.Number
}).annotate({ identifier: "IpnsRecord" })
/** @category models */
export type IpnsRecord = typeof IpnsRecord.Type

/**
 * The answer of a removal: the removed key.
 *
 * @category schemas
 */
export const RemovedKey = Schema.Struct({
  Keys: Schema.Array(Schema.Struct({ Name: Schema.String, Id: Schema.String }))
}).annotate({ identifier: "RemovedKey" })
/** @category models */
export type RemovedKey = typeof RemovedKey.Type

/**
 * What `Ipns.publishRecord` takes: the CID to point at and the key's name (an `ipnsName`).
 *
 * @category schemas
 */
export const PublishRecordInput = Schema.Struct({ cid: Schema.String, keyName: Schema.String })
/** @category models */
export type PublishRecordInput = typeof PublishRecordInput.Type

/**
 * Why an IPNS call failed: a non-2xx answer (`Request failed with status code {n}`) or no usable answer.
 *
 * @category errors
 */
export type IpnsFailure = RequestFailed | TransportFailure
