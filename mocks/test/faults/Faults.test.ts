/**
 * The fault registry on its own: scoping, precedence, `times`, clearing, and what each fault does
 * to an answer. Faults on the live hosts are covered in `MockNetwork.faults.test.ts`.
 */
import { describe, expect, it } from "vitest"
import { makeFaults } from "../../src/faults/index.ts"

const ok = () => Response.json({ message: "success", data: [1, 2] })
const request = (path: string, method = "GET") =>
  new Request(`https://encryption.lighthouse.storage${path}`, { method })

describe("makeFaults", () => {
  it("passes requests through when nothing is armed", async () => {
    const faults = makeFaults()
    const response = await faults.handle({ host: "api", request: request("/x") }, ok)
    expect(await response.json()).toEqual({ message: "success", data: [1, 2] })
  })

  it("down answers a network error", async () => {
    const faults = makeFaults()
    faults.down({ host: "encryption", node: 2 })
    const hit = await faults.handle({ host: "encryption", node: 2, request: request("/api/setSharedKey/2") }, ok)
    expect(hit.type).toBe("error")
    const other = await faults.handle({ host: "encryption", node: 3, request: request("/api/setSharedKey/3") }, ok)
    expect(other.status).toBe(200)
  })

  it("status short-circuits the handler with a JSON error body", async () => {
    const faults = makeFaults()
    faults.status({ host: "api", path: "/api/user/user_data_usage" }, 503)
    let ran = false
    const response = await faults.handle({ host: "api", request: request("/api/user/user_data_usage") }, () => {
      ran = true
      return ok()
    })
    expect(ran).toBe(false)
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({ error: "Service Unavailable" })
    expect((await faults.handle({ host: "api", request: request("/api/other") }, ok)).status).toBe(200)
  })

  it("notFound and custom bodies", async () => {
    const faults = makeFaults()
    faults.notFound({ host: "gateway", method: "POST" })
    expect((await faults.handle({ host: "gateway", request: request("/a", "POST") }, ok)).status).toBe(404)
    expect((await faults.handle({ host: "gateway", request: request("/a", "GET") }, ok)).status).toBe(200)
    faults.status({ host: "node" }, 500, { body: { error: "boom" } })
    const response = await faults.handle({ host: "node", request: request("/api/v0/add", "POST") }, ok)
    expect(await response.json()).toEqual({ error: "boom" })
  })

  it("slow delays the answer and composes with other faults", async () => {
    const faults = makeFaults()
    faults.slow({ host: "api" }, 80)
    const started = performance.now()
    const response = await faults.handle({ host: "api", request: request("/x") }, ok)
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
    expect(response.status).toBe(200)
    faults.status({ host: "api" }, 500)
    const both = performance.now()
    expect((await faults.handle({ host: "api", request: request("/x") }, ok)).status).toBe(500)
    expect(performance.now() - both).toBeGreaterThanOrEqual(75)
  })

  it("inconsistent runs the handler and makes every answer differ", async () => {
    const faults = makeFaults()
    faults.inconsistent({ host: "encryption" })
    let runs = 0
    const answer = () => {
      runs += 1
      return ok()
    }
    const first = await (await faults.handle({ host: "encryption", node: 1, request: request("/n") }, answer)).json()
    const second = await (await faults.handle({ host: "encryption", node: 2, request: request("/n") }, answer)).json()
    expect(runs).toBe(2)
    expect(first).not.toEqual(second)
    expect(first.message).not.toBe("success")
  })

  it("inconsistent accepts a custom mutation and corrupts byte answers", async () => {
    const faults = makeFaults()
    faults.inconsistent({ host: "api" }, { mutate: () => ({ swapped: true }) })
    const json = await faults.handle({ host: "api", request: request("/x") }, ok)
    expect(await json.json()).toEqual({ swapped: true })
    faults.inconsistent({ host: "gateway" })
    const corrupt = async () =>
      new Uint8Array(
        await (
          await faults.handle({ host: "gateway", request: request("/ipfs/x") }, () => new Response("abcdef"))
        ).arrayBuffer()
      )
    const first = await corrupt()
    const second = await corrupt()
    const original = new TextEncoder().encode("abcdef")
    expect(first).toHaveLength(6)
    expect(first.filter((byte, i) => byte !== original[i])).toHaveLength(1)
    expect(second).not.toEqual(first)
  })

  it("times disarms a fault after that many requests, newest fault wins", async () => {
    const faults = makeFaults()
    faults.status({ host: "api" }, 500)
    faults.notFound({ host: "api" }, { times: 2 })
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) statuses.push((await faults.handle({ host: "api", request: request("/x") }, ok)).status)
    expect(statuses).toEqual([404, 404, 500, 500])
    expect(faults.active()).toHaveLength(1)
    expect(faults.active()[0]?.hits).toBe(2)
  })

  it("clear disarms all, by host or by node; remove by id", async () => {
    const faults = makeFaults()
    const a = faults.down({ host: "api" })
    faults.down({ host: "encryption", node: 1 })
    faults.down({ host: "encryption", node: 2 })
    faults.down({ host: "gateway" })
    faults.clear({ host: "encryption", node: 1 })
    expect(faults.active().map((f) => f.scope)).toEqual([
      { host: "api" },
      { host: "encryption", node: 2 },
      { host: "gateway" }
    ])
    expect(faults.remove(a)).toBe(true)
    expect(faults.remove(a)).toBe(false)
    faults.clear({ host: "encryption" })
    expect(faults.active()).toHaveLength(1)
    faults.clear()
    expect(faults.active()).toHaveLength(0)
  })

  it("wrap reads the node from the resolver's arguments", async () => {
    const faults = makeFaults()
    faults.status({ host: "encryption", node: 4 }, 502)
    const resolver = faults.wrap(
      "encryption",
      (_: { request: Request; params: { n: string } }) => ok(),
      (info) => Number(info.params.n)
    )
    expect((await resolver({ request: request("/api/x/4"), params: { n: "4" } })).status).toBe(502)
    expect((await resolver({ request: request("/api/x/5"), params: { n: "5" } })).status).toBe(200)
  })

  it("rate paces bodies, every request it matches sharing the one rate, and composes with a lie", async () => {
    const faults = makeFaults()
    faults.rate({ host: "gateway" }, 256 * 1024)
    const bytes = (n: number) => () => new Response(new Uint8Array(n).fill(7), { headers: { "x-kept": "yes" } })
    const gateway = (path: string) =>
      faults.handle(
        { host: "gateway", request: new Request(`https://gateway.lighthouse.storage${path}`) },
        bytes(64 * 1024)
      )
    const started = performance.now()
    // Two answers of 64 KiB at once share 256 KiB/s: together 0.5 s (less the 50 ms of idle time a
    // link may make up for), not 0.25 s each in parallel.
    const answers = await Promise.all([gateway("/a"), gateway("/b")])
    const bodies = await Promise.all(answers.map(async (answer) => new Uint8Array(await answer.arrayBuffer())))
    expect(performance.now() - started).toBeGreaterThanOrEqual(440)
    expect(bodies.map((body) => body.length)).toEqual([64 * 1024, 64 * 1024])
    expect(bodies.every((body) => body.every((byte) => byte === 7))).toBe(true)
    expect(answers[0]!.headers.get("x-kept")).toBe("yes")
    // Another host is not capped; a lie on the capped host is told at the capped rate.
    const api = performance.now()
    await (await faults.handle({ host: "api", request: request("/x") }, bytes(1024 * 1024))).arrayBuffer()
    expect(performance.now() - api).toBeLessThan(490)
    faults.lie({ host: "gateway" }, "truncate")
    const lied = performance.now()
    const cut = await (await gateway("/c")).arrayBuffer()
    expect(cut.byteLength).toBe(32 * 1024)
    expect(performance.now() - lied).toBeGreaterThanOrEqual(70)
    expect(faults.active().map((entry) => [entry.fault.kind, entry.hits])).toEqual([
      ["rate", 3],
      ["lie", 1]
    ])
  })

  it("rejects nonsense", () => {
    const faults = makeFaults()
    expect(() => faults.status({ host: "api" }, 42)).toThrow(RangeError)
    expect(() => faults.slow({ host: "api" }, -1)).toThrow(RangeError)
    expect(() => faults.rate({ host: "gateway" }, 0)).toThrow("rate needs bytesPerSecond > 0, got 0")
    expect(() => faults.down({ host: "api" }, { times: 0 })).toThrow(RangeError)
  })
})
