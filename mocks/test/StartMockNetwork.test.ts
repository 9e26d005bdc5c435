/**
 * When `startMockNetwork` reaches a client: the library's clients (over `fetch` and over
 * `node:http`) look their transport up on every request, so a network started after their first
 * request answers the next one, and after `close()` requests go to the real host again. A client
 * of one's own over Effect's `FetchHttpClient.layer` without a `Fetch` keeps the `fetch` of its
 * first request. The "real host" here is a server of this test that answers 418 to everything.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { createLighthouseNode } from "lighthouse-effect/node"
import { createLighthouse, type LighthouseClient } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startMockNetwork } from "../src/node.ts"

let teapot: Server
let api: string

beforeAll(async () => {
  teapot = createServer((_request, response) => response.writeHead(418).end())
  await new Promise<void>((resolve) => teapot.listen(0, "127.0.0.1", resolve))
  api = `http://127.0.0.1:${(teapot.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => teapot.close(resolve)))

const address = privateKeyToAccount(generatePrivateKey()).address
const API_KEY = "started-late"

/** `files.usage` with the seeded key: the data limit, or the status the API host answered. */
const usageOf = (lighthouse: LighthouseClient) =>
  lighthouse.files.usage(API_KEY).then(
    (usage) => usage.dataLimit,
    (error: { readonly status?: number }) => error.status
  )

describe("startMockNetwork after a client's first request", () => {
  it.each([
    ["createLighthouse (fetch)", () => createLighthouse({ hosts: { api } })],
    ["createLighthouseNode (node:http)", () => createLighthouseNode({ hosts: { api } })]
  ])("%s: the network started later answers, and after close() the real host does again", async (_name, make) => {
    const lighthouse = make()
    expect(await usageOf(lighthouse)).toBe(418)
    const running = startMockNetwork({ hosts: { api }, onUnhandledFrame: "error" })
    running.network.seedAccount(address, { apiKey: API_KEY, dataLimit: 12_345 })
    expect(await usageOf(lighthouse)).toBe(12_345)
    running.close()
    expect(await usageOf(lighthouse)).toBe(418)
    await lighthouse.dispose()
  })

  it("a client of one's own over FetchHttpClient.layer keeps the fetch of its first request", async () => {
    const status = Effect.runPromise(
      HttpClient.get(`${api}/api/user/user_data_usage`).pipe(
        Effect.map((response) => response.status),
        Effect.provide(FetchHttpClient.layer)
      )
    )
    expect(await status).toBe(418)
    const running = startMockNetwork({ hosts: { api }, onUnhandledFrame: "error" })
    const later = await Effect.runPromise(
      HttpClient.get(`${api}/api/user/user_data_usage`).pipe(
        Effect.map((response) => response.status),
        Effect.provide(FetchHttpClient.layer)
      )
    )
    running.close()
    expect(later).toBe(418)
  })
})
