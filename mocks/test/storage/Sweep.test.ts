/**
 * `collectGarbage`: the blocks no upload record or IPNS value reaches go (a block left by an upload
 * cut short, a deleted file's blocks), everything reachable stays and still downloads; a reachable
 * block whose links cannot be read (dag-cbor) stops the sweep before anything is removed.
 */
import { CarWriter } from "@ipld/car"
import * as dagCbor from "@ipld/dag-cbor"
import { ed25519 } from "@noble/curves/ed25519.js"
import { getResponse } from "msw"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { describe, expect, it } from "vitest"
import { ipnsIdOf } from "../../src/api/Ipns.ts"
import { signRecord } from "../../src/ipns/IpnsRecords.ts"
import { createMockNetwork, type MockNetwork } from "../../src/MockNetwork.ts"

const owner = "0x00000000000000000000000000000000000000f6"

const ask = async (network: MockNetwork, url: string, init: RequestInit = {}) => {
  const response = await getResponse([...network.handlers], new Request(url, init))
  if (response === undefined) throw new Error(`no handler for ${url}`)
  return response
}

const upload = async (network: MockNetwork, apiKey: string, name: string, bytes: Uint8Array, path = "add") => {
  const form = new FormData()
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name)
  const query = path === "add" ? "/api/v0/add?cid-version=1" : "/api/v0/dag/import"
  const response = await ask(network, `${network.hosts.node}${query}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form
  })
  expect(response.status).toBe(200)
  return response.json() as Promise<{ Hash: string }>
}

const blockOf = async (bytes: Uint8Array) => ({ cid: CID.createV1(raw.code, await sha256.digest(bytes)), bytes })

const setUp = async () => {
  const network = createMockNetwork()
  const { apiKey } = network.seedAccount(owner, { dataLimit: 10_000_000 })
  const authed = { headers: { Authorization: `Bearer ${apiKey}` } }
  return { network, apiKey, authed }
}

describe("collectGarbage", () => {
  it("removes what nothing reaches and keeps what uploads and IPNS names do", async () => {
    const { network, apiKey, authed } = await setUp()
    const kept = Uint8Array.from({ length: 700_000 }, (_, i) => (i * 13) % 251)
    const { Hash: keptCid } = await upload(network, apiKey, "kept.bin", kept)
    // Named by IPNS, then its record deleted: the name still keeps it.
    const { Hash: namedCid } = await upload(network, apiKey, "named.txt", new TextEncoder().encode("named\n"))
    const key = (await (await ask(network, `${network.hosts.api}/api/ipns/generate_key`, authed)).json()) as {
      ipnsName: string
    }
    await ask(network, `${network.hosts.api}/api/ipns/publish_record?cid=${namedCid}&keyName=${key.ipnsName}`, authed)
    // Deleted, but named by a record published from outside: kept too.
    const { Hash: outsideCid } = await upload(network, apiKey, "outside.txt", new TextEncoder().encode("outside\n"))
    const secret = Uint8Array.from({ length: 32 }, (_, i) => i + 40)
    const record = await signRecord(secret, CID.parse(outsideCid), 1n, Date.now() + 60_000)
    const put = await ask(
      network,
      `${network.hosts.gateway}/routing/v1/ipns/${ipnsIdOf(ed25519.getPublicKey(secret))}`,
      {
        method: "PUT",
        headers: { "content-type": "application/vnd.ipfs.ipns-record" },
        body: record.bytes as Uint8Array<ArrayBuffer>
      }
    )
    expect(put.status).toBe(200)
    // Deleted, and not named: its block goes.
    await upload(network, apiKey, "gone.txt", new TextEncoder().encode("gone\n"))
    const doomed = [...network.state.files.records()].filter(([, f]) => f.fileName !== "kept.bin").map(([id]) => id)
    expect(doomed).toHaveLength(3)
    for (const id of doomed) {
      const deleted = await ask(network, `${network.hosts.api}/api/user/delete_file?id=${id}`, {
        ...authed,
        method: "DELETE"
      })
      expect(deleted.status).toBe(200)
    }
    // What an upload cut short leaves: a block no record names.
    const orphan = await blockOf(new TextEncoder().encode("left by a cut upload\n"))
    await network.state.content.blocks.put(orphan.cid, orphan.bytes)
    const before = await network.state.content.blockCount()

    expect(await network.collectGarbage()).toEqual({ kept: before - 2, removed: 2 })
    expect(await network.state.content.blocks.has(orphan.cid)).toBe(false)
    const back = await ask(network, `${network.hosts.gateway}/ipfs/${keptCid}`)
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(kept)
    expect(await (await ask(network, `${network.hosts.gateway}/ipfs/${namedCid}`)).text()).toBe("named\n")
    expect(await (await ask(network, `${network.hosts.gateway}/ipfs/${outsideCid}`)).text()).toBe("outside\n")
    // Nothing left to take.
    expect(await network.collectGarbage()).toEqual({ kept: before - 2, removed: 0 })
  })

  it("removes nothing when a reachable block's links cannot be read", async () => {
    const { network, apiKey } = await setUp()
    const leaf = await blockOf(new TextEncoder().encode("under a dag-cbor root\n"))
    const rootBytes = dagCbor.encode({ child: leaf.cid })
    const root = CID.createV1(dagCbor.code, await sha256.digest(rootBytes))
    const { writer, out } = CarWriter.create([root])
    const parts: Array<Uint8Array> = []
    const collected = (async () => {
      for await (const part of out) parts.push(part)
    })()
    await writer.put({ cid: root, bytes: rootBytes })
    await writer.put(leaf)
    await writer.close()
    await collected
    await upload(
      network,
      apiKey,
      "cbor.car",
      new Uint8Array(await new Blob(parts as Array<BlobPart>).arrayBuffer()),
      "car"
    )
    const orphan = await blockOf(new TextEncoder().encode("would go\n"))
    await network.state.content.blocks.put(orphan.cid, orphan.bytes)

    expect(await network.collectGarbage()).toEqual({
      refused: `block ${root} is codec 0x71, whose links this cannot read`
    })
    expect(await network.state.content.blocks.has(orphan.cid)).toBe(true)
    expect(await network.state.content.blocks.has(leaf.cid)).toBe(true)
  })
})
