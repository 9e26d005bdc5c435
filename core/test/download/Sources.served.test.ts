/**
 * Downloads from several sources over real sockets: the mock network served with two more
 * gateways, each on its own port with its own faults, read through the Promise facade (which
 * takes the same `sources`, `strategy` and `stallTimeout` options, decoded by the same schema).
 */

import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createLighthouseNode } from "../../src/node.ts"
import type { LighthouseClient } from "../../src/promise.ts"
import { alice } from "../upload/harness.ts"

const content = new Uint8Array(600 * 1024).map((_, i) => (i * 7 + (i >> 10)) & 0xff)

describe("sources over the served network, through the Promise facade", () => {
  let served: ServedMockNetwork
  let lighthouse: LighthouseClient
  beforeAll(async () => {
    served = await serveMockNetwork({ gateways: ["https://gw-one.example", "https://gw-two.example"] })
    lighthouse = createLighthouseNode({ hosts: served.urls })
  })
  afterAll(async () => {
    await lighthouse.dispose()
    await served.close()
  })
  beforeEach(() => served.network.reset())

  it("a lying gateway is dropped after its good blocks; the other serves the rest, every byte checked", async () => {
    const { apiKey } = served.network.seedAccount(alice.address)
    const entry = await lighthouse.upload.buffer(content, { apiKey })
    const [liar, honest] = served.gatewayUrls as [string, string]
    served.network.gateways[0]!.faults.lie({ host: "gateway" }, "flip-byte")
    const retrieved = await lighthouse.download.retrieve(entry.Hash, { sources: [liar, honest], strategy: "fallback" })
    expect(retrieved.bytes).toEqual(content)
    const [first, second] = retrieved.verification.sources!
    expect(first).toMatchObject({ gateway: liar, bytes: 512 * 1024 })
    expect(first!.dropped).toMatch(/^lied: block bafk\w+ had other bytes$/)
    expect(second).toEqual({ gateway: honest, bytes: content.length - 512 * 1024 })
  })

  it("every gateway failing rejects with AllSourcesFailed (split too); a wrong option is an InvalidArgument", async () => {
    const { apiKey } = served.network.seedAccount(alice.address)
    const entry = await lighthouse.upload.buffer(content, { apiKey })
    const [one, two] = served.gatewayUrls as [string, string]
    served.network.gateways[0]!.faults.status({ host: "gateway" }, 429)
    served.network.gateways[1]!.faults.down({ host: "gateway" })
    await expect(
      lighthouse.download.bytes(entry.Hash, { sources: [one, two], strategy: "race" })
    ).rejects.toMatchObject({
      _tag: "AllSourcesFailed",
      message: `Every source of ${entry.Hash} failed: ${one} (HTTP 429); ${two} (no answer (network error))`
    })
    await expect(
      lighthouse.download.bytes(entry.Hash, { sources: [one, two], strategy: "split", rangeSize: 256 * 1024 })
    ).rejects.toMatchObject({
      _tag: "AllSourcesFailed",
      message: `Every source of ${entry.Hash} failed: ${one} (HTTP 429); ${two} (no answer (network error))`
    })
    await expect(
      lighthouse.download.bytes(entry.Hash, { sources: [one], strategy: "scatter" } as never)
    ).rejects.toMatchObject({ _tag: "InvalidArgument" })
    await expect(
      lighthouse.download.bytes(entry.Hash, { sources: [one], strategy: "split", rangeSize: 0 })
    ).rejects.toMatchObject({ _tag: "InvalidArgument" })
  })
})
