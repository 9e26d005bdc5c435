/**
 * The Promise facade takes the public preset and encrypted resume as the service does (the same
 * option schemas decode them): against the mock network in this process, which answers the
 * public gateways' hosts itself, so nothing leaves the machine.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { publicGateways } from "../../src/Download.ts"
import { createLighthouseNode } from "../../src/node.ts"
import type { LighthouseClient } from "../../src/promise.ts"
import { alice, aliceSigner } from "../upload/harness.ts"

const content = new Uint8Array(400 * 1024).map((_, i) => (i * 13 + (i >> 9)) & 0xff)
const configured = "https://gateway.lighthouse.storage"

describe("the public preset and encrypted resume through the Promise facade", () => {
  let mock: RunningMockNetwork
  let lighthouse: LighthouseClient
  let dir: string
  beforeAll(async () => {
    mock = startMockNetwork({ gateways: publicGateways, onUnhandledFrame: "error" })
    lighthouse = createLighthouseNode({ nodes: { mode: "concurrent" } })
    dir = await mkdtemp(join(tmpdir(), "public-promise-"))
  })
  afterAll(async () => {
    await lighthouse.dispose()
    mock.close()
    await rm(dir, { recursive: true, force: true })
  })
  beforeEach(() => mock.network.reset())

  it('sources: ["gateway", "public"] reads the configured gateway, then the public ones; a liar is dropped', async () => {
    const { apiKey } = mock.network.seedAccount(alice.address)
    const entry = await lighthouse.upload.buffer(content, { apiKey })
    mock.network.faults.status({ host: "gateway" }, 429)
    mock.network.gateways[0]!.faults.lie({ host: "gateway" }, "flip-byte")
    const retrieved = await lighthouse.download.retrieve(entry.Hash, { sources: ["gateway", "public"] })
    expect(retrieved.bytes).toEqual(content)
    const [own, trustless, ipfsIo, dweb] = retrieved.verification.sources!
    expect(own).toEqual({ gateway: configured, bytes: 0, dropped: "HTTP 429" })
    expect(trustless!.gateway).toBe(publicGateways[0])
    expect(trustless!.dropped).toMatch(/^lied: block bafk\w+ had other bytes$/)
    expect(ipfsIo).toEqual({ gateway: publicGateways[1], bytes: content.length - trustless!.bytes })
    expect(dweb).toEqual({ gateway: publicGateways[2], bytes: 0 })
  })

  it("toFile takes resume with decrypt: the plaintext once the tag checks, the ciphertext partial removed", async () => {
    const { apiKey } = mock.network.seedAccount(alice.address)
    const token = await lighthouse.auth.token(aliceSigner)
    const entry = await lighthouse.upload.encryptedBuffer(content, { apiKey, address: alice.address, token })
    const target = join(dir, "secret.bin")
    const report = await lighthouse.download.toFile(entry.Hash, target, {
      resume: true,
      decrypt: { signer: aliceSigner },
      sources: ["public"]
    })
    expect(report.verified).toBe(true)
    expect(new Uint8Array(await readFile(target))).toEqual(content)
    expect(await readdir(dir)).toEqual(["secret.bin"])
  })
})
