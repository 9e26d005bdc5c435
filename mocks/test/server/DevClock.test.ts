/**
 * The served network's clock over real HTTP: read, frozen, moved forward; a JWT issued by the
 * served key nodes works until the clock is moved past its expiry, then is refused; bad requests
 * are 400s. A web page cannot move it: a body that is not `application/json` is 415, another
 * origin is 403 (its preflight too), and the clock stays where it was.
 */

import { Signer } from "lighthouse-effect"
import { createLighthouseNode } from "lighthouse-effect/node"
import type { LighthouseClient } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
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
    const notJson = await fetch(`${served.urls.api}/__dev/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{"
    })
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

describe("/__dev/* against web pages", () => {
  const tenYears = 10 * 365.25 * 24 * 3600 * 1000
  const url = () => `${served.urls.api}/__dev/clock`
  const now = async () => ((await (await fetch(url())).json()) as ClockState).now

  it("a cross-site text/plain POST (no preflight in a browser) is refused and the clock does not move", async () => {
    await clock({ freeze: true })
    const before = await now()
    const crossSite = await fetch(url(), {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "text/plain;charset=UTF-8" },
      body: JSON.stringify({ advanceMs: tenYears })
    })
    expect(crossSite.status).toBe(403)
    expect(await crossSite.json()).toEqual({
      error: "the development routes answer only this server's own pages and tools, not https://evil.example"
    })
    // Without an Origin (a form post from a page that hides it is still not JSON): 415.
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const notJson = await fetch(url(), {
        method: "POST",
        headers: { "content-type": type },
        body: JSON.stringify({ advanceMs: tenYears })
      })
      expect(notJson.status).toBe(415)
      expect(await notJson.json()).toEqual({ error: "the body must be JSON, sent as Content-Type: application/json" })
    }
    expect(await now()).toBe(before)
    await clock({ freeze: false })
  })

  it("another origin is refused with JSON too, and its preflight is 403; null origins as well", async () => {
    await clock({ freeze: true })
    const before = await now()
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1:1", "http://localhost.evil.example"]) {
      const json = await fetch(url(), {
        method: "POST",
        headers: { origin, "content-type": "application/json" },
        body: JSON.stringify({ advanceMs: tenYears })
      })
      expect(json.status).toBe(403)
      const preflight = await fetch(url(), {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
      })
      expect(preflight.status).toBe(403)
      expect((await fetch(url(), { headers: { origin } })).status).toBe(403)
    }
    expect(await now()).toBe(before)
    await clock({ freeze: false })
  })

  it("the server's own pages (127.0.0.1, localhost, on its port) may use it; other routes keep their open CORS", async () => {
    await clock({ freeze: true })
    const before = await now()
    const port = new URL(served.urls.api).port
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const preflight = await fetch(url(), { method: "OPTIONS", headers: { origin } })
      expect(preflight.status).toBe(204)
      const moved = await fetch(url(), {
        method: "POST",
        headers: { origin, "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ advanceMs: 1000 })
      })
      expect(moved.status).toBe(200)
    }
    expect(await now()).toBe(before + 2000)
    const elsewhere = await fetch(`${served.urls.api}/api/lighthouse/get_uploads`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example" }
    })
    expect(elsewhere.status).toBe(204)
    expect(elsewhere.headers.get("access-control-allow-origin")).toBe("*")
    expect((await fetch(`${served.urls.api}/__dev/nothing`, { method: "GET" })).status).toBe(404)
    await clock({ freeze: false })
  })
})
