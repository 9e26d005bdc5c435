/**
 * `createMockNetwork` options and helpers: custom hosts, the clock, page size and default quota,
 * starting ticker prices, seeding accounts and quotas, and what `reset` empties.
 */

import { LighthouseConfig } from "lighthouse-effect"
import { setupServer } from "msw/node"
import { afterEach, describe, expect, it } from "vitest"
import { createMockNetwork } from "../src/MockNetwork.ts"
import { addFile, addFiles } from "./support/upload.ts"

const servers: Array<{ close: () => void }> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

const serve = (network: ReturnType<typeof createMockNetwork>) => {
  const server = setupServer(...network.handlers)
  server.listen({ onUnhandledFrame: "error" })
  servers.push(server)
}

describe("createMockNetwork", () => {
  it("answers for the production hosts by default, and for custom hosts when given", async () => {
    expect(createMockNetwork().hosts).toEqual(LighthouseConfig.DefaultHosts)
    const network = createMockNetwork({
      hosts: {
        api: "http://api.local/",
        node: "http://node.local",
        gateway: "http://gw.local",
        encryption: "http://enc.local"
      },
      clock: () => 1_700_000_000_000,
      pageSize: 1,
      defaultDataLimit: 100,
      tickers: { FIL: 7 }
    })
    expect(network.hosts.api).toBe("http://api.local")
    serve(network)
    const { apiKey } = network.seedAccount("0x00000000000000000000000000000000000000b1")
    const usage = await (
      await fetch("http://api.local/api/user/user_data_usage", { headers: { Authorization: `Bearer ${apiKey}` } })
    ).json()
    expect(usage.dataLimit).toBe(100)
    expect(await (await fetch("http://api.local/api/lighthouse/get_ticker?symbol=FIL")).json()).toBe(7)
    expect((await fetch("http://api.local/api/lighthouse/get_ticker?symbol=ETH")).status).toBe(404)

    await addFiles(
      apiKey,
      [
        ["a.txt", new Blob(["hi"])],
        ["b.txt", new Blob(["yo"])]
      ],
      { node: "http://node.local" }
    )
    const page = await (
      await fetch("http://api.local/api/user/files_uploaded?lastKey=null", {
        headers: { Authorization: `Bearer ${apiKey}` }
      })
    ).json()
    expect(page.fileList).toHaveLength(1)
    expect(page.totalFiles).toBe(2)
    expect(page.fileList[0].createdAt).toBe(1_700_000_000_000)
    expect((await fetch("http://enc.local/api/message/0x00000000000000000000000000000000000000b1")).status).toBe(200)
  })

  it("refuses hosts that collide and nonsense page sizes", () => {
    expect(() => createMockNetwork({ hosts: { node: LighthouseConfig.DefaultHosts.api } })).toThrow(
      "the six hosts must differ"
    )
    expect(() => createMockNetwork({ hosts: { walrusGateway: LighthouseConfig.DefaultHosts.gateway } })).toThrow(
      "the six hosts must differ"
    )
    expect(() => createMockNetwork({ pageSize: 0 })).toThrow(RangeError)
  })

  it("seedAccount gives keys (chosen or generated); setQuota checks its figures", () => {
    const network = createMockNetwork()
    const address = "0x00000000000000000000000000000000000000C2"
    const first = network.seedAccount(address, { apiKey: "my-key", dataLimit: 5_000, dataUsed: 1_000 })
    expect(first).toEqual({ address: address.toLowerCase(), apiKey: "my-key" })
    const second = network.seedAccount(address)
    expect(second.apiKey).not.toBe("my-key")
    const account = network.state.accounts.get(address)!
    expect([...account.apiKeys]).toEqual(["my-key", second.apiKey])
    expect(account).toMatchObject({ dataLimit: 5_000, dataUsed: 1_000 })
    expect(network.setQuota(address, { dataLimit: 9_000 }).dataLimit).toBe(9_000)
    expect(() => network.setQuota(address, { dataUsed: -1 })).toThrow(RangeError)
    expect(() => network.seedAccount("0x1234")).toThrow("not an EVM address")
    expect(() => network.seedAccount("0x00000000000000000000000000000000000000d3", { apiKey: "my-key" })).toThrow(
      "another account"
    )
    expect(() => network.setTickerPrice("FIL", 0)).toThrow(RangeError)
  })

  it("reset empties accounts, uploads, content, deals, IPNS keys and key nodes, and restores prices", async () => {
    const network = createMockNetwork()
    serve(network)
    const { apiKey } = network.seedAccount("0x00000000000000000000000000000000000000e4")
    const { Hash } = await (await addFile(apiKey, "k.txt", new Blob(["kept until reset"]))).json()
    await network.simulateDeal(Hash)
    await fetch("https://api.lighthouse.storage/api/ipns/generate_key", {
      headers: { Authorization: `Bearer ${apiKey}` }
    })
    await fetch("https://encryption.lighthouse.storage/api/message/0x00000000000000000000000000000000000000e4")
    network.setTickerPrice("FIL", 99)

    network.reset()
    const { state } = network
    expect(state.accounts.all()).toEqual([])
    expect(await state.content.blockCount()).toBe(0)
    expect(state.files.byCid(Hash)).toBeUndefined()
    expect(state.ipns.of("0x00000000000000000000000000000000000000e4")).toEqual([])
    expect(state.keyNodes.auth.messages.size).toBe(0)
    expect(state.tickers.get("FIL")).toBe(5)
    expect(await (await fetch(`https://api.lighthouse.storage/api/lighthouse/deal_status?cid=${Hash}`)).json()).toEqual(
      []
    )
    expect((await fetch(`https://gateway.lighthouse.storage/ipfs/${Hash}`)).status).toBe(404)
  })
})
