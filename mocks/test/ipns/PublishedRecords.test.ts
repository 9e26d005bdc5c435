/**
 * `PUT /routing/v1/ipns/{name}`: a record signed by the name's owner (a key the network does not
 * hold) is validated and kept, then served by the routing API and resolved by the gateway's
 * `/ipns/` until it expires on the network's clock; the best record of those offered wins; an
 * invalid name or record is 400, another content type 406; a restart over the same storage keeps it.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { getResponse } from "msw"
import { CID } from "multiformats/cid"
import { describe, expect, it } from "vitest"
import { ipnsIdOf } from "../../src/api/Ipns.ts"
import { signRecord } from "../../src/ipns/IpnsRecords.ts"
import { createMockNetwork, type MockNetwork } from "../../src/MockNetwork.ts"
import { memoryBlocks } from "../../src/storage/Blocks.ts"
import { memoryState } from "../../src/storage/State.ts"

const owner = "0x00000000000000000000000000000000000000e5"
const secret = Uint8Array.from({ length: 32 }, (_, i) => 200 - i)
const name = ipnsIdOf(ed25519.getPublicKey(secret))
const other = Uint8Array.from({ length: 32 }, (_, i) => i + 7)
const RECORD_TYPE = "application/vnd.ipfs.ipns-record"

const ask = async (network: MockNetwork, url: string, init: RequestInit = {}) => {
  const response = await getResponse([...network.handlers], new Request(url, init))
  if (response === undefined) throw new Error(`no handler for ${url}`)
  return response
}

const put = (network: MockNetwork, bytes: Uint8Array, type = RECORD_TYPE, ipnsName = name) =>
  ask(network, `${network.hosts.gateway}/routing/v1/ipns/${ipnsName}`, {
    method: "PUT",
    headers: { "content-type": type },
    body: bytes as Uint8Array<ArrayBuffer>
  })

const routed = async (network: MockNetwork) => {
  const response = await ask(network, `${network.hosts.gateway}/routing/v1/ipns/${name}`)
  return response.status === 200 ? new Uint8Array(await response.arrayBuffer()) : response.status
}

/** A network on a clock the test moves, with one uploaded text; its CID. */
const networkWithText = async (text: string, storage = { blocks: memoryBlocks(), state: memoryState() }) => {
  let now = Date.parse("2026-11-23T12:00:00Z")
  const network = createMockNetwork({ clock: () => now, storage })
  const { apiKey } = network.seedAccount(owner, { dataLimit: 1_000_000 })
  const form = new FormData()
  form.append("file", new Blob([text]), "note.txt")
  const added = await ask(network, `${network.hosts.node}/api/v0/add?cid-version=1`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form
  })
  const cid = CID.parse(((await added.json()) as { Hash: string }).Hash)
  const advance = (ms: number) => {
    now += ms
  }
  return { network, cid, storage, advance, now: () => now }
}

describe("PUT /routing/v1/ipns/{name}", () => {
  it("keeps a valid record: served by the routing API and resolved by /ipns/ until it expires", async () => {
    const { network, cid, advance, now } = await networkWithText("published from outside\n")
    expect(await routed(network)).toBe(404)
    const record = await signRecord(secret, cid, 1n, now() + 60_000)
    expect((await put(network, record.bytes)).status).toBe(200)
    expect(await routed(network)).toEqual(record.bytes)
    const resolved = await ask(network, `${network.hosts.gateway}/ipns/${name}`)
    expect(await resolved.text()).toBe("published from outside\n")
    advance(61_000)
    expect(await routed(network)).toBe(404)
    expect((await ask(network, `${network.hosts.gateway}/ipns/${name}`)).status).toBe(404)
  })

  it("keeps the best of the records offered: higher sequence, then longer validity", async () => {
    const { network, cid, now } = await networkWithText("best\n")
    const second = await signRecord(secret, cid, 2n, now() + 60_000)
    expect((await put(network, second.bytes)).status).toBe(200)
    // A lower sequence is valid, and answered 200, but does not replace the held record.
    expect((await put(network, (await signRecord(secret, cid, 1n, now() + 120_000)).bytes)).status).toBe(200)
    expect(await routed(network)).toEqual(second.bytes)
    const longer = await signRecord(secret, cid, 2n, now() + 120_000)
    await put(network, longer.bytes)
    expect(await routed(network)).toEqual(longer.bytes)
  })

  it("refuses what is not a valid record of the name", async () => {
    const { network, cid, now } = await networkWithText("refused\n")
    const error = async (response: Response) => [response.status, ((await response.json()) as { error: string }).error]
    const forged = await signRecord(other, cid, 1n, now() + 60_000)
    const [status, message] = await error(await put(network, forged.bytes))
    expect(status).toBe(400)
    expect(message).toMatch(new RegExp(`^invalid IPNS record for ${name}: `))
    expect(await error(await put(network, new TextEncoder().encode("not a record")))).toEqual([
      400,
      expect.stringMatching(/^invalid IPNS record for /)
    ])
    // Valid by the wall clock, expired on the network's (ahead of it here or moved by /__dev/clock).
    const past = await signRecord(secret, cid, 1n, Date.now() + 60_000)
    const ahead = createMockNetwork({ clock: () => Date.now() + 3_600_000 })
    expect(await error(await put(ahead, past.bytes))).toEqual([400, `the IPNS record for ${name} has expired`])
    const good = await signRecord(secret, cid, 1n, now() + 60_000)
    expect(await error(await put(network, good.bytes, "application/octet-stream"))).toEqual([
      406,
      `send the record as Content-Type: ${RECORD_TYPE}`
    ])
    expect(await error(await put(network, good.bytes, RECORD_TYPE, "not-a-name"))).toEqual([
      400,
      "not an IPNS name: not-a-name"
    ])
    // A name that does not percent-decode is a bad path, for PUT and GET alike (never a 500).
    expect((await put(network, good.bytes, RECORD_TYPE, "%E0%A4%A")).status).toBe(400)
    expect((await ask(network, `${network.hosts.gateway}/routing/v1/ipns/%E0%A4%A`)).status).toBe(404)
    expect(await error(await put(network, new Uint8Array(10 * 1024 + 1)))).toEqual([
      400,
      "an IPNS record is at most 10240 bytes"
    ])
    expect(await routed(network)).toBe(404)
  })

  it("is kept across a restart over the same storage", async () => {
    const { network, cid, storage, now } = await networkWithText("kept\n")
    const record = await signRecord(secret, cid, 3n, now() + 60_000)
    await put(network, record.bytes)
    const restarted = createMockNetwork({ clock: now, storage })
    expect(await routed(restarted)).toEqual(record.bytes)
  })
})
