/**
 * The served network's clock over real HTTP: read, frozen, moved forward; a JWT issued by the
 * served key nodes works until the clock is moved past its expiry, then is refused; bad requests
 * are 400s.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Signer } from "lighthouse-effect"
import { createLighthouseNode } from "lighthouse-effect/node"
import type { LighthouseClient } from "lighthouse-effect/promise"
import { makeDevClock } from "../../src/server/DevClock.ts"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"

const JWT_TTL_SECONDS = 60
let served: ServedMockNetwork
let lighthouse: LighthouseClient

beforeAll(async () => {
  served = await serveMockNetwork({ keyNodes: { jwtTtlSeconds: JWT_TTL_SECONDS } })
  lighthouse = createLighthouseNode({ hosts: served.urls, nodes: { mode: "concurrent" } })
})
afterAll(async () => {
  await lighthouse.dispose()
  await served.close()
})

interface ClockState {
  readonly now: number
  readonly frozen: boolean
  readonly offsetMs: number
}

const clock = async (body?: unknown, host: "api" | "encryption" | "node" | "gateway" = "api") => {
  const response = await fetch(
    `${served.urls[host]}/__dev/clock`,
    body === undefined
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
  )
  return { status: response.status, body: (await response.json()) as ClockState & { error?: string } }
}

describe("/__dev/clock", () => {
  it("reads the clock, freezes it, moves it forward exactly, lets it run on", async () => {
    const before = Date.now()
    const read = await clock()
    expect(read.status).toBe(200)
    expect(read.body.frozen).toBe(false)
    expect(read.body.now).toBeGreaterThanOrEqual(before)

    const frozen = await clock({ freeze: true })
    expect(frozen.body.frozen).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect((await clock(undefined, "encryption")).body.now).toBe(frozen.body.now)

    const moved = await clock({ advanceMs: 90_000 }, "gateway")
    expect(moved.body.now).toBe(frozen.body.now + 90_000)

    const running = await clock({ freeze: false })
    expect(running.body.frozen).toBe(false)
    expect(running.body.offsetMs).toBeGreaterThanOrEqual(89_000)
    expect(served.clock!.now()).toBeGreaterThanOrEqual(moved.body.now)
  })

  it("a JWT from the served key nodes expires when the clock passes its lifetime", async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const signer = Signer.makeFromAccount(account)
    const { token } = await lighthouse.auth.signIn(signer)
    const address = account.address.toLowerCase()
    const cid = "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"
    const shards = Array.from({ length: 5 }, (_, i) => ({
      index: (i + 1).toString(16).padStart(64, "0"),
      key: (i + 7).toString(16).padStart(64, "0")
    }))
    const saved = await lighthouse.keyShards.save({ address, cid, token, keyShards: shards })
    expect(saved.reports.every((report) => report.outcome === "succeeded")).toBe(true)

    await clock({ advanceMs: (JWT_TTL_SECONDS + 1) * 1000 })
    const expired = await lighthouse.keyShards.recover({ address, cid, token }).then(
      () => "recovered",
      (error: unknown) => error
    )
    expect(expired).toMatchObject({ _tag: "NodeError", message: "jwt expired" })
  })

  it("refuses bad bodies and methods with 400 and 405, and changes nothing", async () => {
    const before = (await clock({ freeze: true })).body.now
    for (const body of [{ advanceMs: -1 }, { advanceMs: "60" }, { freeze: "yes" }, {}, [1], "soon"]) {
      const refused = await clock(body)
      expect(refused.status).toBe(400)
      expect(refused.body.error).toEqual(expect.any(String))
    }
    const notJson = await fetch(`${served.urls.api}/__dev/clock`, { method: "POST", body: "{" })
    expect(notJson.status).toBe(400)
    expect((await fetch(`${served.urls.api}/__dev/clock`, { method: "DELETE" })).status).toBe(405)
    expect((await clock()).body.now).toBe(before)
    await clock({ freeze: false })
  })

  it("a network served with its own instance keeps its clock: 404", async () => {
    const own = await serveMockNetwork({ network: served.network })
    try {
      const response = await fetch(`${own.urls.api}/__dev/clock`)
      expect(response.status).toBe(404)
      expect(own.clock).toBeUndefined()
    } finally {
      await own.close()
    }
  })

  it("makeDevClock follows its base until moved or frozen", () => {
    let wall = 1_000
    const dev = makeDevClock(() => wall)
    wall = 1_500
    expect(dev.now()).toBe(1_500)
    dev.advance(100)
    expect(dev.now()).toBe(1_600)
    dev.freeze(true)
    wall = 9_000
    expect(dev.now()).toBe(1_600)
    dev.advance(50)
    // Unfrozen, it runs on from where it stood, not from the wall clock.
    dev.freeze(false)
    expect(dev.now()).toBe(1_650)
    wall = 9_100
    expect(dev.state()).toEqual({ now: 1_750, frozen: false, offsetMs: 1_750 - 9_100 })
  })
})
