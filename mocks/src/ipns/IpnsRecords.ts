/**
 * Signed IPNS records for the names the local network holds keys for, and how they are served.
 *
 * A record is the `ipns` package's: CBOR data (value, validity, sequence, TTL) signed with the
 * name's Ed25519 key (signatureV2), V1 fields kept for older verifiers. Each publish raises the
 * sequence; a record is valid until `expiresAt` (EOL validity) and is re-signed with the next
 * sequence once less than half its lifetime is left, as a republisher would.
 *
 * Served by `GET /ipns/{name}?format=ipns-record` (trustless gateway) and by
 * `GET /routing/v1/ipns/{name}` (delegated routing), both `application/vnd.ipfs.ipns-record`.
 */
import { generateKeyPairFromSeed } from "@libp2p/crypto/keys"
import { createIPNSRecordWithExpiration, marshalIPNSRecord } from "ipns"
import { base36 } from "multiformats/bases/base36"
import { base58btc } from "multiformats/bases/base58"
import { CID } from "multiformats/cid"
import * as Digest from "multiformats/hashes/digest"
import { MediaTypes } from "../http/MediaTypes.ts"

/** The multicodec of a libp2p public key CID (IPNS names). */
export const Libp2pKeyCodec = 0x72

/** How long a record is valid for, and how long clients may cache it. */
export const RecordLifetimeMs = 48 * 60 * 60 * 1000
export const RecordTtlMs = 5 * 60 * 1000

/** A record as the network keeps it. */
export interface SignedRecord {
  /** The marshalled record (protobuf), as served. */
  readonly bytes: Uint8Array
  readonly sequence: bigint
  /** `/ipfs/<cid>` */
  readonly value: string
  /** Milliseconds since the epoch. */
  readonly expiresAt: number
  readonly ttlMs: number
}

/** RFC 3339 with nanoseconds, the validity format IPNS records carry. */
export const rfc3339Nano = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z")

/** Signs a record pointing at `cid` with the Ed25519 key whose 32-byte secret is `secretKey`. */
export const signRecord = async (
  secretKey: Uint8Array,
  cid: CID,
  sequence: bigint,
  expiresAt: number,
  ttlMs: number = RecordTtlMs
): Promise<SignedRecord> => {
  const key = await generateKeyPairFromSeed("Ed25519", secretKey)
  const value = `/ipfs/${cid.toV1().toString()}`
  const record = await createIPNSRecordWithExpiration(key, value, sequence, rfc3339Nano(expiresAt), {
    v1Compatible: true,
    ttlNs: BigInt(ttlMs) * 1_000_000n
  })
  return { bytes: marshalIPNSRecord(record), sequence, value, expiresAt, ttlMs }
}

/**
 * The record to serve at `now`: the current one, or a fresh one (next sequence, new lifetime) when
 * there is none or less than half its lifetime is left. `undefined` when nothing is published.
 */
export const currentRecord = async (
  secretKey: Uint8Array,
  published: CID | undefined,
  held: SignedRecord | undefined,
  now: number
): Promise<SignedRecord | undefined> => {
  if (published === undefined) return undefined
  const value = `/ipfs/${published.toV1().toString()}`
  if (held !== undefined && held.value === value && held.expiresAt - now > RecordLifetimeMs / 2) return held
  return signRecord(secretKey, published, (held?.sequence ?? 0n) + 1n, now + RecordLifetimeMs)
}

/** The name in a routing path (`/routing/v1/ipns/{name}`), percent-decoded; `undefined` when it cannot be. */
export const routingName = (pathname: string): string | undefined => {
  const match = /^\/routing\/v1\/ipns\/([^/]+)\/?$/.exec(pathname)
  if (match === null) return undefined
  try {
    return decodeURIComponent(match[1]!)
  } catch {
    return undefined
  }
}

/**
 * The `k51…` form of an IPNS name given as a libp2p-key CID in any base, or as a bare base58btc
 * peer id (`12D3Koo…`); `undefined` when it is neither.
 */
export const normalizeIpnsName = (name: string): string | undefined => {
  try {
    const cid = CID.parse(name, name.startsWith("k") ? base36 : undefined)
    return cid.code === Libp2pKeyCodec ? cid.toString(base36) : undefined
  } catch {
    try {
      const digest = Digest.decode(base58btc.baseDecode(name))
      return CID.createV1(Libp2pKeyCodec, digest).toString(base36)
    } catch {
      return undefined
    }
  }
}

/** The response carrying a record (trustless gateway and routing API alike). */
export const recordResponse = (record: SignedRecord, name: string, head: boolean): Response =>
  new Response(head ? null : (record.bytes as Uint8Array<ArrayBuffer>), {
    status: 200,
    headers: {
      "content-type": MediaTypes.ipnsRecord,
      "content-length": String(record.bytes.byteLength),
      "content-disposition": `attachment; filename="${name}.ipns-record"`,
      "cache-control": `public, max-age=${Math.floor(record.ttlMs / 1000)}`,
      etag: `"${name}.${record.sequence}"`,
      "x-content-type-options": "nosniff",
      vary: "Accept"
    }
  })

/**
 * `GET|HEAD /routing/v1/ipns/{name}` of the delegated routing API: the record the network holds for
 * the name, 404 when none. A client that accepts neither the record type nor anything is refused
 * with 406.
 */
export const routingRecordResponse = async (
  request: Request,
  resolveRecord: (name: string) => Promise<SignedRecord | undefined>
): Promise<Response> => {
  const url = new URL(request.url)
  const given = routingName(url.pathname)
  const error = (status: number, message: string) => Response.json({ error: message }, { status })
  if (given === undefined) return error(404, `not a routing path: ${url.pathname}`)
  const accept = request.headers.get("accept")
  if (accept !== null && accept !== "" && !/application\/vnd\.ipfs\.ipns-record|\*\/\*/i.test(accept)) {
    return error(406, `the routing API answers ${MediaTypes.ipnsRecord}`)
  }
  const name = normalizeIpnsName(given)
  if (name === undefined) return error(400, `not an IPNS name: ${given}`)
  const record = await resolveRecord(name)
  if (record === undefined) return error(404, `no IPNS record for ${given}`)
  return recordResponse(record, name, request.method === "HEAD")
}
