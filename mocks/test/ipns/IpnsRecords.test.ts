/**
 * IPNS records the network signs are valid for an independent validator (the `ipns` package's,
 * which checks the signature against the name's key, the CBOR data and the validity), are renewed
 * with a higher sequence when half their lifetime is gone, and are served by the routing API.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { unmarshalIPNSRecord } from "ipns"
import { ipnsValidator } from "ipns/validator"
import { base36 } from "multiformats/bases/base36"
import { base58btc } from "multiformats/bases/base58"
import { CID } from "multiformats/cid"
import { describe, expect, it } from "vitest"
import { ipnsIdOf } from "../../src/api/Ipns.ts"
import {
  currentRecord,
  normalizeIpnsName,
  RecordLifetimeMs,
  rfc3339Nano,
  routingRecordResponse,
  signRecord
} from "../../src/ipns/IpnsRecords.ts"

const secret = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
const name = ipnsIdOf(ed25519.getPublicKey(secret))
const content = CID.parse("QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
const routingKey = (ipnsName: string) => {
  const cid = CID.parse(ipnsName, base36)
  return Uint8Array.from([...new TextEncoder().encode("/ipns/"), ...cid.multihash.bytes])
}

describe("signed records", () => {
  it("validate against the name's key, carrying value, sequence, validity and TTL", async () => {
    const expiresAt = Date.now() + 3_600_000
    const record = await signRecord(secret, content, 7n, expiresAt)
    await expect(ipnsValidator(routingKey(name), record.bytes)).resolves.toBeUndefined()
    const parsed = unmarshalIPNSRecord(record.bytes)
    expect(parsed.value).toBe(`/ipfs/${content.toV1()}`)
    expect(parsed.sequence).toBe(7n)
    expect(parsed.validity).toBe(rfc3339Nano(expiresAt))
    expect(parsed.ttl).toBe(300_000_000_000n)
    expect(parsed.signatureV2.byteLength).toBe(64)
  })

  it("fail validation under another name, and once expired", async () => {
    const record = await signRecord(secret, content, 1n, Date.now() + 3_600_000)
    const other = ipnsIdOf(ed25519.getPublicKey(new Uint8Array(32).fill(9)))
    await expect(ipnsValidator(routingKey(other), record.bytes)).rejects.toThrow()
    const expired = await signRecord(secret, content, 1n, Date.now() - 1_000)
    await expect(ipnsValidator(routingKey(name), expired.bytes)).rejects.toThrow(/expired/i)
  })

  it("are kept while fresh and re-signed with the next sequence when half their life is gone", async () => {
    const now = Date.now()
    const first = await currentRecord(secret, content, undefined, now)
    expect(first!.sequence).toBe(1n)
    expect(first!.expiresAt).toBe(now + RecordLifetimeMs)
    expect(await currentRecord(secret, content, first, now + RecordLifetimeMs / 4)).toBe(first)
    const renewed = await currentRecord(secret, content, first, now + RecordLifetimeMs / 2 + 1)
    expect(renewed!.sequence).toBe(2n)
    const moved = CID.parse("bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4")
    const republished = await currentRecord(secret, moved, renewed, now + RecordLifetimeMs / 2 + 2)
    expect(republished!.sequence).toBe(3n)
    expect(republished!.value).toBe(`/ipfs/${moved}`)
    expect(await currentRecord(secret, undefined, undefined, now)).toBeUndefined()
  })
})

describe("names", () => {
  it("accept the k51 form, other bases of the key CID and the bare peer id", () => {
    const cid = CID.parse(name, base36)
    expect(normalizeIpnsName(name)).toBe(name)
    expect(normalizeIpnsName(cid.toString())).toBe(name)
    expect(normalizeIpnsName(base58btc.baseEncode(cid.multihash.bytes))).toBe(name)
    expect(normalizeIpnsName(content.toString())).toBeUndefined()
    expect(normalizeIpnsName("example.com")).toBeUndefined()
  })
})

describe("delegated routing", () => {
  const record = signRecord(secret, content, 3n, Date.now() + 3_600_000)
  const resolve = async (asked: string) => (asked === name ? record : undefined)
  const routing = (path: string, init: RequestInit = {}) =>
    routingRecordResponse(new Request(`http://routing.test${path}`, init), resolve)

  it("GET /routing/v1/ipns/{name} answers the record", async () => {
    const response = await routing(`/routing/v1/ipns/${name}`, {
      headers: { accept: "application/vnd.ipfs.ipns-record" }
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/vnd.ipfs.ipns-record")
    expect(response.headers.get("cache-control")).toBe("public, max-age=300")
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(bytes).toEqual((await record).bytes)
    await expect(ipnsValidator(routingKey(name), bytes)).resolves.toBeUndefined()
  })

  it("answers 404 for an unknown name, 400 for a non-name, 406 for another type", async () => {
    const other = ipnsIdOf(ed25519.getPublicKey(new Uint8Array(32).fill(5)))
    expect((await routing(`/routing/v1/ipns/${other}`)).status).toBe(404)
    expect((await routing("/routing/v1/ipns/nope")).status).toBe(400)
    expect((await routing(`/routing/v1/ipns/${name}`, { headers: { accept: "application/json" } })).status).toBe(406)
    const head = await routing(`/routing/v1/ipns/${name}`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.body).toBeNull()
  })
})
