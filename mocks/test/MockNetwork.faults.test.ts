/**
 * Every fault on every host of a running network (msw, `fetch`): down, slow, 5xx, 404 and
 * inconsistent answers on the API host, the upload node, the gateway and the encryption host, a
 * fault scoped to one key node, `times`, and `clear` / `reset` bringing the network back.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { HostName } from "../src/faults/index.ts"
import { startMockNetwork } from "../src/node.ts"
import { addFile } from "./support/upload.ts"

const running = startMockNetwork({ onUnhandledFrame: "error" })
const { network } = running
afterAll(() => running.close())

const owner = "0x00000000000000000000000000000000000000f1"
let apiKey: string
let cid: string

const uploadHello = () => addFile(apiKey, "hello.txt", new Blob(["hello world\n"]), { query: "cid-version=0" })

/** One deterministic request per host, and how to read its answer. */
const probes: Record<
  HostName,
  { readonly call: () => Promise<Response>; readonly read: (r: Response) => Promise<unknown> }
> = {
  api: {
    call: () => fetch("https://api.lighthouse.storage/api/lighthouse/get_ticker?symbol=FIL"),
    read: (response) => response.json()
  },
  node: { call: uploadHello, read: (response) => response.json() },
  gateway: {
    call: () => fetch(`https://gateway.lighthouse.storage/api/v0/cat/${cid}`, { method: "POST" }),
    read: (response) => response.text()
  },
  encryption: {
    call: () => fetch(`https://encryption.lighthouse.storage/api/fileAccessConditions/get/${cid}`),
    read: (response) => response.json()
  }
}

const hosts = Object.keys(probes) as Array<HostName>

beforeAll(async () => {
  apiKey = network.seedAccount(owner).apiKey
  cid = (await (await uploadHello()).json()).Hash
})
beforeEach(() => network.faults.clear())

describe.each(hosts)("faults on the %s host", (host) => {
  const probe = probes[host]

  it("down: the request fails at the network level, then clear restores it", async () => {
    const normal = await probe.call()
    const expected = { status: normal.status, body: await probe.read(normal) }
    network.faults.down({ host })
    await expect(probe.call()).rejects.toThrow(TypeError)
    network.faults.clear({ host })
    const again = await probe.call()
    expect({ status: again.status, body: await probe.read(again) }).toEqual(expected)
  })

  it("slow: the answer comes after the delay, unchanged", async () => {
    const normal = await probe.call()
    const expected = await probe.read(normal)
    network.faults.slow({ host }, 150)
    const started = performance.now()
    const response = await probe.call()
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    expect(await probe.read(response)).toEqual(expected)
  })

  it("status: 500 and 503 with a JSON error body, for `times` requests", async () => {
    network.faults.status({ host }, 503, { times: 2 })
    for (let i = 0; i < 2; i++) {
      const response = await probe.call()
      expect(response.status).toBe(503)
      expect(await response.json()).toEqual({ error: "Service Unavailable" })
    }
    expect((await probe.call()).status).not.toBe(503)
    network.faults.status({ host }, 500, { body: { error: "boom" } })
    const failed = await probe.call()
    expect(failed.status).toBe(500)
    expect(await failed.json()).toEqual({ error: "boom" })
  })

  it("notFound: 404", async () => {
    network.faults.notFound({ host })
    const response = await probe.call()
    expect(response.status).toBe(404)
  })

  it("inconsistent: the handler answers, but not what it answers normally", async () => {
    const expected = await probe.read(await probe.call())
    network.faults.inconsistent({ host })
    const first = await probe.read(await probe.call())
    const second = await probe.read(await probe.call())
    expect(first).not.toEqual(expected)
    expect(second).not.toEqual(first)
  })

  it("faults on other hosts leave this one alone", async () => {
    for (const other of hosts.filter((name) => name !== host)) network.faults.down({ host: other })
    const response = await probe.call()
    expect(response.status).toBeLessThan(500)
  })
})

describe("faults scoped to one key node and to paths", () => {
  it("a fault on node 3 hits /…/3 only", async () => {
    const call = (node: number) =>
      fetch(`https://encryption.lighthouse.storage/api/setSharedKey/${node}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer none" },
        body: "{}"
      })
    const normal = (await call(3)).status
    network.faults.down({ host: "encryption", node: 3 })
    await expect(call(3)).rejects.toThrow(TypeError)
    expect((await call(2)).status).toBe(normal)
    network.faults.clear({ host: "encryption", node: 3 })
    expect((await call(3)).status).toBe(normal)
  })

  it("a fault can target one path and method of a host", async () => {
    network.faults.status({ host: "api", path: "/api/user/user_data_usage", method: "GET" }, 502)
    const usage = await fetch("https://api.lighthouse.storage/api/user/user_data_usage", {
      headers: { Authorization: `Bearer ${apiKey}` }
    })
    expect(usage.status).toBe(502)
    expect((await probes.api.call()).status).toBe(200)
    network.faults.status({ host: "gateway", path: /^\/ipfs\// }, 504)
    expect((await fetch(`https://gateway.lighthouse.storage/ipfs/${cid}`)).status).toBe(504)
    expect((await probes.gateway.call()).status).toBe(200)
  })

  it("reset clears faults along with the state", async () => {
    network.faults.down({ host: "api" })
    network.reset()
    expect(network.faults.active()).toEqual([])
    expect((await probes.api.call()).status).toBe(200)
    // The state went too: the seeded key no longer works.
    const usage = await fetch("https://api.lighthouse.storage/api/user/user_data_usage", {
      headers: { Authorization: `Bearer ${apiKey}` }
    })
    expect(usage.status).toBe(401)
  })
})
