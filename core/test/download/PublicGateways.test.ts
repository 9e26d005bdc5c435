/**
 * The public preset of sources: the names `"public"` and `"gateway"` in a `sources` list expand
 * to the public trustless gateways and the download's own gateway, in order and each once. The
 * downloads run against the mock network, which serves the public gateways' hosts itself (msw
 * answers every request in this process; an unanswered one fails the test), so nothing leaves
 * the machine.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Download from "../../src/Download.ts"
import type { AllSourcesFailed } from "../../src/Errors.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"
import * as Upload from "../../src/Upload.ts"
import { alice, makeHarness } from "../upload/harness.ts"

const [trustless, ipfsIo, dweb] = Download.publicGateways as [string, string, string]
const configured = "https://gateway.lighthouse.storage"
const { network, log, layer } = makeHarness({ gateways: Download.publicGateways })
const gateway = { host: "gateway" } as const
const [faultsTrustless, faultsIpfsIo] = network.gateways.map((extra) => extra.faults) as [
  (typeof network.gateways)[number]["faults"],
  (typeof network.gateways)[number]["faults"]
]

const content = new Uint8Array(300 * 1024).map((_, i) => (i * 17 + (i >> 8)) & 0xff)

const uploaded = Effect.gen(function* () {
  const apiKey = network.seedAccount(alice.address, { apiKey: "public-key" }).apiKey
  const entry = yield* (yield* Upload.Upload).buffer(content, { apiKey })
  log.length = 0
  return entry.Hash
})

/** The origins the download asked, in order, each once. */
const askedOrigins = () => [...new Set(log.map((request) => request.url.origin))]

describe("the public preset of sources", () => {
  it("is the IPFS Foundation's three trustless gateways", () => {
    assert.deepStrictEqual(Download.publicGateways, [
      "https://trustless-gateway.link",
      "https://ipfs.io",
      "https://dweb.link"
    ])
  })

  it("expands in place, after and before URLs, each gateway once whatever its trailing slash", () => {
    assert.deepStrictEqual(Download.expandSources(["public"], configured), Download.publicGateways)
    assert.deepStrictEqual(Download.expandSources(["gateway", "public"], configured), [
      configured,
      trustless,
      ipfsIo,
      dweb
    ])
    assert.deepStrictEqual(
      Download.expandSources(["https://ipfs.io/", "http://localhost:8080", "public"], configured),
      ["https://ipfs.io/", "http://localhost:8080", trustless, dweb]
    )
    assert.deepStrictEqual(Download.expandSources(["public", "gateway"], "https://dweb.link"), Download.publicGateways)
  })

  it.effect("with the configured gateway failing, the public gateways serve, in the preset's order", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      network.faults.status(gateway, 429)
      faultsTrustless.down(gateway)
      const retrieved = yield* (yield* Download.Download).retrieve(cid, { sources: ["gateway", "public"] })
      assert.deepStrictEqual(retrieved.bytes, content)
      assert.deepStrictEqual(retrieved.verification, {
        verified: true,
        sources: [
          { gateway: configured, bytes: 0, dropped: "HTTP 429" },
          { gateway: trustless, bytes: 0, dropped: "no answer (network error)" },
          { gateway: ipfsIo, bytes: content.length },
          { gateway: dweb, bytes: 0 }
        ]
      })
      assert.deepStrictEqual(askedOrigins(), [configured, trustless, ipfsIo])
    }).pipe(Effect.provide(layer))
  )

  it.effect('"gateway" is the call\'s own gateway when it names one; a liar among the public ones is dropped', () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      faultsIpfsIo.lie(gateway, "flip-byte")
      const download = yield* Download.Download
      const retrieved = yield* download.retrieve(cid, {
        sources: ["public", "gateway"],
        gateway: dweb,
        strategy: "split",
        rangeSize: 64 * 1024
      })
      assert.deepStrictEqual(retrieved.bytes, content)
      const reported = retrieved.verification.sources!
      assert.deepStrictEqual(
        reported.map((source) => source.gateway),
        Download.publicGateways
      )
      assert.match(reported[1]!.dropped!, /^lied: /)
      assert.strictEqual(
        reported.reduce((total, source) => total + source.bytes, 0),
        content.length
      )
      assert.notInclude(askedOrigins(), configured)
    }).pipe(Effect.provide(layer))
  )

  it.effect("the configuration may name the preset for every download; every source failing lists each", () =>
    Effect.gen(function* () {
      const cid = yield* uploaded
      const config = LighthouseConfig.make({ downloads: { sources: ["gateway", "public"] } })
      const download = yield* Download.make.pipe(Effect.provideService(LighthouseConfig.LighthouseConfig, config))
      network.faults.down(gateway)
      for (const extra of network.gateways) extra.faults.status(gateway, 503)
      const failed = (yield* Effect.flip(download.bytes(cid))) as AllSourcesFailed
      assert.strictEqual(failed._tag, "AllSourcesFailed")
      assert.deepStrictEqual(failed.sources, [
        { gateway: configured, reason: "no answer (network error)" },
        { gateway: trustless, reason: "HTTP 503" },
        { gateway: ipfsIo, reason: "HTTP 503" },
        { gateway: dweb, reason: "HTTP 503" }
      ])
    }).pipe(Effect.provide(layer))
  )
})
