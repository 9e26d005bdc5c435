/**
 * IPNS records published from outside, through `PUT /routing/v1/ipns/{name}` of the delegated
 * routing API (as Helia's and kubo's HTTP routing clients publish): names whose keys the network
 * does not hold, signed by their owners.
 *
 * A record is accepted when the `ipns` package's validator passes it for the name (signature by
 * the name's key, at most 10 KiB, not expired), when it has not expired on the network's clock
 * either, and when its value is an `/ipfs/` path (the gateway resolves those). Of the records
 * offered for a name the best is kept, as IPNS routing selects: the highest sequence, then the
 * longest validity. It is served until it expires. Names the API holds keys for resolve to the
 * API's records; a record offered for one is kept but never served.
 *
 * Answers, as the routing spec says: 200 when the record is valid (kept or not), 400 for an
 * invalid name or record, 406 for another content type.
 */
import { multihashToIPNSRoutingKey, unmarshalIPNSRecord } from "ipns"
import { ipnsValidator } from "ipns/validator"
import { base36 } from "multiformats/bases/base36"
import { CID } from "multiformats/cid"
import type { MultihashDigest } from "multiformats/hashes/interface"
import { MediaTypes } from "../http/MediaTypes.ts"
import { concatBytes } from "../storage/Blocks.ts"
import { normalizeIpnsName, routingName, type SignedRecord } from "./IpnsRecords.ts"

/** The best record offered for each name. */
export class PublishedRecords {
  readonly #byName = new Map<string, SignedRecord>()

  /** Keeps `record` for `name` unless the one held is better (higher sequence, then longer validity). */
  offer(name: string, record: SignedRecord): void {
    const held = this.#byName.get(name)
    const better =
      held === undefined ||
      record.sequence > held.sequence ||
      (record.sequence === held.sequence && record.expiresAt > held.expiresAt)
    if (better) this.#byName.set(name, record)
  }

  /** The record of `name` still valid at `now`, or `undefined`. */
  current(name: string, now: number): SignedRecord | undefined {
    const record = this.#byName.get(name)
    return record !== undefined && record.expiresAt > now ? record : undefined
  }

  /** Every name with its record, for the state store. */
  records(): Iterable<readonly [string, SignedRecord]> {
    return this.#byName.entries()
  }

  /** Takes back what `records` gave (at start, from the state store). */
  restore(records: Iterable<readonly [string, SignedRecord]>): void {
    for (const [name, record] of records) this.#byName.set(name, record)
  }

  reset(): void {
    this.#byName.clear()
  }
}

class Refused extends Error {}

/** The CID of an `/ipfs/<cid>[/path]` value, or `undefined`. */
export const cidOf = (value: string): CID | undefined => {
  try {
    return CID.parse(value.slice("/ipfs/".length).split("/")[0]!)
  } catch {
    return undefined
  }
}

/** `2026-01-01T00:00:00.123456789Z` → milliseconds (the fraction cut to what `Date` reads). */
const validityMs = (validity: string) => Date.parse(validity.replace(/(\.\d{3})\d*Z$/, "$1Z"))

/** The record, checked for `name` (a `k51…` name) at `now`; throws `Refused` with the reason. */
const checkedRecord = async (name: string, bytes: Uint8Array, now: number): Promise<SignedRecord> => {
  const multihash = CID.parse(name, base36).multihash
  // Names are the identity (inlined key) or sha2-256 multihash of a public key.
  if (multihash.code !== 0x00 && multihash.code !== 0x12) throw new Refused(`not an IPNS name: ${name}`)
  try {
    await ipnsValidator(multihashToIPNSRoutingKey(multihash as MultihashDigest<0x00 | 0x12>), bytes)
  } catch (error) {
    // The validator checks the signature first, then the validity by the wall clock: an expired
    // record is signed correctly, and the network's own clock (movable) decides below.
    if (!(error instanceof Error && error.name === "RecordExpiredError")) {
      throw new Refused(`invalid IPNS record for ${name}: ${(error as Error).message}`)
    }
  }
  const record = unmarshalIPNSRecord(bytes)
  const expiresAt = validityMs(record.validity)
  if (!(expiresAt > now)) throw new Refused(`the IPNS record for ${name} has expired`)
  const value = record.value
  if (!value.startsWith("/ipfs/") || cidOf(value) === undefined) {
    throw new Refused(`the IPNS record for ${name} points at ${value}; this network resolves /ipfs/<cid> values`)
  }
  return { bytes, sequence: record.sequence, value, expiresAt, ttlMs: Number((record.ttl ?? 0n) / 1_000_000n) }
}

/** The largest record accepted, as the `ipns` validator limits it. */
const MAX_RECORD_BYTES = 10 * 1024

/** The body, or `undefined` once it passes `limit` bytes (the rest is never read). */
const bodyUpTo = async (request: Request, limit: number): Promise<Uint8Array | undefined> => {
  const parts: Array<Uint8Array> = []
  let size = 0
  const reader = request.body?.getReader()
  for (let next = await reader?.read(); next !== undefined && !next.done; next = await reader?.read()) {
    size += next.value.byteLength
    if (size > limit) {
      // Not awaited: when the body is one branch of a tee (msw clones requests), cancelling it
      // settles only once the other branch is cancelled too.
      reader?.cancel().catch(() => undefined)
      return undefined
    }
    parts.push(next.value)
  }
  return concatBytes(parts)
}

/** `PUT /routing/v1/ipns/{name}`: validates the record and keeps it when it is the best so far. */
export const routingPutResponse = async (
  request: Request,
  published: PublishedRecords,
  now: () => number
): Promise<Response> => {
  const error = (status: number, message: string) => Response.json({ error: message }, { status })
  const url = new URL(request.url)
  const given = routingName(url.pathname)
  if (given === undefined) return error(400, `not a routing path: ${url.pathname}`)
  const type = request.headers.get("content-type") ?? ""
  if (!type.toLowerCase().startsWith(MediaTypes.ipnsRecord)) {
    return error(406, `send the record as Content-Type: ${MediaTypes.ipnsRecord}`)
  }
  const name = normalizeIpnsName(given)
  if (name === undefined) return error(400, `not an IPNS name: ${given}`)
  const body = await bodyUpTo(request, MAX_RECORD_BYTES)
  if (body === undefined) return error(400, `an IPNS record is at most ${MAX_RECORD_BYTES} bytes`)
  try {
    published.offer(name, await checkedRecord(name, body, now()))
  } catch (refusal) {
    if (refusal instanceof Refused) return error(400, refusal.message)
    throw refusal
  }
  return new Response(null, { status: 200 })
}
