/**
 * A network started over the storage another one wrote has all of it: accounts and API keys, the
 * uploads list and the blocks behind it, IPNS keys with their signed records, deals, the Walrus
 * blobs of what was stored there and the key nodes' shards, spent nonces and releases. Requests go
 * through the handlers (msw's `getResponse`), so each answer's changes are written through as in a
 * served network. A refused upload writes nothing.
 */
import { getResponse } from "msw"
import { describe, expect, it } from "vitest"
import { createMockNetwork, type MockNetwork } from "../src/MockNetwork.ts"
import { memoryBlocks } from "../src/storage/Blocks.ts"
import { memoryState } from "../src/storage/State.ts"

const owner = "0x00000000000000000000000000000000000000d4"

const ask = async (network: MockNetwork, url: string, init: RequestInit = {}) => {
  const response = await getResponse([...network.handlers], new Request(url, init))
  if (response === undefined) throw new Error(`no handler for ${url}`)
  return response
}

// The multipart body as bytes (a `FormData` body's stream errors when the refused upload cancels it).
const upload = (network: MockNetwork, apiKey: string, name: string, bytes: Uint8Array, host = network.hosts.node) => {
  const encoder = new TextEncoder()
  const head = encoder.encode(`--b\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`)
  const tail = encoder.encode("\r\n--b--\r\n")
  const body = new Uint8Array(head.byteLength + bytes.byteLength + tail.byteLength)
  body.set(head)
  body.set(bytes, head.byteLength)
  body.set(tail, head.byteLength + bytes.byteLength)
  return ask(network, `${host}/api/v0/add?cid-version=1`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "content-type": "multipart/form-data; boundary=b" },
    body
  })
}

describe("a network over kept storage", () => {
  it("starts with everything the previous one had", async () => {
    const storage = { blocks: memoryBlocks(), state: memoryState() }
    const first = createMockNetwork({ storage })
    const { apiKey } = first.seedAccount(owner, { dataLimit: 10_000_000, walrusDataLimit: 10_000 })
    const content = Uint8Array.from({ length: 700_000 }, (_, i) => (i * 7) % 251)
    const { Hash } = (await (await upload(first, apiKey, "kept.bin", content)).json()) as { Hash: string }
    const authed = { headers: { Authorization: `Bearer ${apiKey}` } }
    const key = (await (await ask(first, `${first.hosts.api}/api/ipns/generate_key`, authed)).json()) as {
      ipnsName: string
      ipnsId: string
    }
    await ask(first, `${first.hosts.api}/api/ipns/publish_record?cid=${Hash}&keyName=${key.ipnsName}`, authed)
    const record = await (await ask(first, `${first.hosts.gateway}/routing/v1/ipns/${key.ipnsId}`)).arrayBuffer()
    await first.simulateDeal(Hash)
    const node = first.state.keyNodes.nodes[2]
    node.files.set(Hash, {
      cid: Hash,
      owner,
      shard: { key: "0xabc", index: "0x3" },
      sharedTo: [],
      conditions: [],
      conditionsSolana: [],
      aggregator: "",
      chainType: "EVM",
      decryptionType: "ADDRESS"
    })
    node.spentNonces.add(`${owner}:1`)
    node.released.push({ cid: Hash, to: owner, right: "owner", at: 1 })
    first.setQuota(owner, { dataLimit: 20_000_000 })
    const onWalrus = await upload(
      first,
      apiKey,
      "walrus.txt",
      new TextEncoder().encode("on walrus\n"),
      first.hosts.walrusNode
    )
    const { Hash: walrusCid } = (await onWalrus.json()) as { Hash: string }
    const blobs = await (await ask(first, `${first.hosts.api}/api/lighthouse/walrus_blobs?cid=${walrusCid}`)).json()

    const second = createMockNetwork({ storage })
    expect(second.state.accounts.get(owner)).toMatchObject({
      dataLimit: 20_000_000,
      dataUsed: 700_000,
      walrusDataUsed: 10
    })
    const listed = await ask(second, `${second.hosts.api}/api/user/files_uploaded?lastKey=null`, authed)
    // Newest first.
    expect(((await listed.json()) as { fileList: Array<{ cid: string }> }).fileList.map((file) => file.cid)).toEqual([
      walrusCid,
      Hash
    ])
    const back = await ask(second, `${second.hosts.gateway}/ipfs/${Hash}`)
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(content)
    // The same record (same sequence) is served until it is due for renewal.
    const again = await ask(second, `${second.hosts.gateway}/routing/v1/ipns/${key.ipnsId}`)
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(new Uint8Array(record))
    const named = await ask(second, `${second.hosts.gateway}/ipns/${key.ipnsId}`)
    expect(new Uint8Array(await named.arrayBuffer())).toEqual(content)
    const deals = await ask(second, `${second.hosts.api}/api/lighthouse/deal_status?cid=${Hash}`)
    expect(((await deals.json()) as Array<unknown>).length).toBe(1)
    expect((await second.simulateDeal(Hash))[0]!.dealId).toBe(80_000_002)
    const restored = second.state.keyNodes.nodes[2]
    expect(restored.files.get(Hash)?.shard).toEqual({ key: "0xabc", index: "0x3" })
    expect([...restored.spentNonces]).toEqual([`${owner}:1`])
    expect(restored.released).toEqual([{ cid: Hash, to: owner, right: "owner", at: 1 }])
    // The Walrus blobs: listed as before, and the Walrus gateway still serves the file.
    const blobsAgain = await ask(second, `${second.hosts.api}/api/lighthouse/walrus_blobs?cid=${walrusCid}`)
    expect(await blobsAgain.json()).toEqual(blobs)
    expect((blobs as { blobIds: Array<string> }).blobIds).toHaveLength(1)
    const fromWalrus = await ask(second, `${second.hosts.walrusGateway}/ipfs/${walrusCid}`)
    expect(await fromWalrus.text()).toBe("on walrus\n")
    expect(second.storage).toEqual({ blocks: "memory", state: "memory" })
  })

  it("writes nothing for a refused upload, and reset empties the storage", async () => {
    const storage = { blocks: memoryBlocks(), state: memoryState() }
    const network = createMockNetwork({ storage })
    const { apiKey } = network.seedAccount(owner, { dataLimit: 1_000 })
    const refused = await upload(network, apiKey, "big.bin", new Uint8Array(5_000))
    expect(refused.status).toBe(402)
    expect(storage.state.rows("files")).toEqual([])
    expect(storage.state.get("accounts", owner)).toMatchObject({ dataUsed: 0 })
    expect(await network.state.content.blockCount()).toBe(0)
    network.reset()
    expect(storage.state.rows("accounts")).toEqual([])
    expect(createMockNetwork({ storage }).state.accounts.all()).toEqual([])
  })
})
