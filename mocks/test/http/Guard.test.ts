/**
 * One guard for every host: a route that throws (a bug in the mock) answers its host's JSON 500,
 * is reported to the network's `logRouteErrors`, and with none is reported to nobody.
 */
import { setupServer } from "msw/node"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { guard, type RouteFailure } from "../../src/http/Guard.ts"
import { createMockNetwork } from "../../src/MockNetwork.ts"

const broken = new Error("the route has a bug")
const request = new Request("https://example.test/thing", { method: "POST" })

describe("guard", () => {
  it("answers a route's own answer untouched", async () => {
    const answer = await guard({ name: "api" }, () => new Response("fine", { status: 201 }))({ request })
    expect(answer.status).toBe(201)
    expect(await answer.text()).toBe("fine")
  })

  it("turns a throw into the provider's JSON 500 and reports it to the log", async () => {
    const failures: Array<RouteFailure> = []
    const answer = await guard({ name: "gateway", log: (failure) => failures.push(failure) }, async () => {
      throw broken
    })({ request })
    expect(answer.status).toBe(500)
    expect(await answer.json()).toEqual({ error: "Internal Server Error" })
    expect(failures).toEqual([{ host: "gateway", request, error: broken }])
  })

  it("answers with the host's own 500 body when it has one", async () => {
    const failed = () => Response.json({ message: "Internal Server Error" }, { status: 500 })
    const answer = await guard({ name: "key node 2", failed }, () => {
      throw broken
    })({ request })
    expect(answer.status).toBe(500)
    expect(await answer.json()).toEqual({ message: "Internal Server Error" })
  })

  it("tells nobody without a log: nothing reaches the console", async () => {
    const console = vi.spyOn(globalThis.console, "error")
    try {
      const answer = await guard({ name: "node" }, () => {
        throw broken
      })({ request })
      expect(answer.status).toBe(500)
      expect(console).not.toHaveBeenCalled()
    } finally {
      console.mockRestore()
    }
  })
})

describe("every host of the network", () => {
  const failures: Array<RouteFailure> = []
  const network = createMockNetwork({ logRouteErrors: (failure) => failures.push(failure) })
  const server = setupServer(...network.handlers)
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
  afterEach(() => {
    vi.restoreAllMocks()
    failures.length = 0
  })
  afterAll(() => server.close())

  const cases = [
    {
      host: "api",
      arrange: () => vi.spyOn(network.state.accounts, "authenticate").mockRejectedValue(broken),
      send: () => fetch(`${network.hosts.api}/api/user/user_data_usage`, { headers: { authorization: "Bearer k" } }),
      body: { error: "Internal Server Error" }
    },
    {
      host: "node",
      arrange: () => vi.spyOn(network.state.accounts, "authenticate").mockRejectedValue(broken),
      send: () => fetch(`${network.hosts.node}/api/v0/add`, { method: "POST", headers: { authorization: "Bearer k" } }),
      body: { error: "Internal Server Error" }
    },
    {
      host: "gateway",
      arrange: () => vi.spyOn(network.state.content, "resolve").mockRejectedValue(broken),
      send: () => fetch(`${network.hosts.gateway}/api/v0/cat/bafkqaaa`, { method: "POST" }),
      body: { error: "Internal Server Error" }
    },
    {
      host: "key node host",
      arrange: () =>
        vi.spyOn(network.state.keyNodes.auth.messages, "set").mockImplementation(() => {
          throw broken
        }),
      send: () => fetch(`${network.hosts.encryption}/api/message/0x${"ab".repeat(20)}`),
      body: { message: "Internal Server Error" }
    }
  ]

  for (const { host, arrange, send, body } of cases) {
    it(`${host}: a route that throws answers 500 and is logged once`, async () => {
      arrange()
      const answer = await send()
      expect(answer.status).toBe(500)
      expect(await answer.json()).toEqual(body)
      expect(failures.map(({ error, host }) => ({ error, host }))).toEqual([{ error: broken, host }])
    })
  }
})
