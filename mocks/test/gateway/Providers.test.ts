/**
 * The gateway's delegated routing `providers` answers, in process over msw: the gateway itself
 * (its peer id, its HTTP multiaddr, `transport-ipfs-gateway-http`) for a block it holds, no one
 * for a block it does not (200, never 404), as JSON or ndjson, with the spec's address and
 * protocol filters; and the multiaddr of the address a client reached, from `Forwarded` or the URL.
 */
import { setupServer } from "msw/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpMultiaddr, passesAddrFilter, publicOrigin } from "../../src/gateway/Providers.ts"
import { createMockNetwork } from "../../src/MockNetwork.ts"
import { addFile, addFiles } from "../support/upload.ts"

const network = createMockNetwork({ clock: () => Date.UTC(2025, 0, 2, 3, 4, 5) })
const server = setupServer(...network.handlers)
const gateway = network.hosts.gateway
let held: string
let inner: string

beforeAll(async () => {
  server.listen({ onUnhandledFrame: "error" })
  const { apiKey } = network.seedAccount("0x00000000000000000000000000000000000000d1")
  held = (
    (await (await addFile(apiKey, "a.txt", new Blob(["hello"]), { query: "cid-version=1" })).json()) as { Hash: string }
  ).Hash
  const folder = await addFiles(apiKey, [["site/b.txt", new Blob(["inner"])]], { query: "cid-version=1" })
  const site = ((await folder.json()) as { Hash: string }).Hash
  inner = (await fetch(`${gateway}/ipfs/${site}/b.txt?format=raw`, { method: "HEAD" })).headers
    .get("x-ipfs-roots")!
    .split(",")
    .at(-1)!
})
afterAll(() => {
  server.close()
  network.close()
})

// A CID of bytes nobody uploaded (sha256 of "nothing here").
const absent = "bafkreidwyr2qhgawv3feo3jpzc7ryriknqkjfmvegclzrc6lgbi6c5dtha"

const providers = (cid: string, init: { query?: string; headers?: Record<string, string>; method?: string } = {}) =>
  fetch(`${gateway}/routing/v1/providers/${cid}${init.query === undefined ? "" : `?${init.query}`}`, {
    method: init.method ?? "GET",
    headers: init.headers ?? {}
  })

describe("GET /routing/v1/providers/{cid}", () => {
  it("names the gateway for a block it holds: its peer id, its own address, the gateway protocol", async () => {
    const response = await providers(held)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.get("cache-control")).toBe("public, max-age=300")
    expect(response.headers.get("last-modified")).toBe("Thu, 02 Jan 2025 03:04:05 GMT")
    expect(response.headers.get("vary")).toBe("Accept")
    const { Providers } = (await response.json()) as { Providers: Array<{ ID: string }> }
    expect(Providers).toEqual([
      {
        Schema: "peer",
        ID: expect.stringMatching(/^12D3KooW[1-9A-HJ-NP-Za-km-z]{44}$/),
        Addrs: ["/dns/gateway.lighthouse.storage/tcp/443/tls/http"],
        Protocols: ["transport-ipfs-gateway-http"]
      }
    ])
    // One peer id for the gateway, whichever block is asked about (a block inside a folder too).
    const again = (await (await providers(inner)).json()) as { Providers: Array<{ ID: string }> }
    expect(again.Providers.map((provider) => provider.ID)).toEqual([Providers[0]!.ID])
  })

  it("names no one, with 200 and not 404, for a block it does not hold", async () => {
    const response = await providers(absent)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(await response.json()).toEqual({ Providers: [] })
  })

  it("streams one record a line when asked for ndjson, and nothing for a block it does not hold", async () => {
    const accept = { accept: "application/x-ndjson, application/json;q=0.8" }
    const response = await providers(held, { headers: accept })
    expect(response.headers.get("content-type")).toBe("application/x-ndjson")
    const lines = (await response.text()).split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[1]).toBe("")
    expect(JSON.parse(lines[0]!)).toMatchObject({ Schema: "peer", Protocols: ["transport-ipfs-gateway-http"] })
    expect(await (await providers(absent, { headers: accept })).text()).toBe("")
  })

  it("applies filter-addrs and filter-protocols", async () => {
    const count = async (query: string) =>
      ((await (await providers(held, { query })).json()) as { Providers: Array<unknown> }).Providers.length
    // What Helia's libp2p content routing sends: tcp matches.
    expect(
      await count(
        "filter-addrs=https,tcp,webrtc,webrtc-direct,wss,tls&filter-protocols=unknown,transport-bitswap,transport-ipfs-gateway-http"
      )
    ).toBe(1)
    expect(await count("filter-addrs=HTTP")).toBe(1)
    expect(await count("filter-addrs=webrtc-direct")).toBe(0)
    expect(await count("filter-addrs=!tls")).toBe(0)
    expect(await count("filter-addrs=!ip6")).toBe(1)
    expect(await count("filter-protocols=transport-bitswap")).toBe(0)
    expect(await count("filter-protocols=transport-bitswap%2Ctransport-ipfs-gateway-http")).toBe(1)
  })

  it("answers HEAD with the headers alone, and 422 to something that is not a CID", async () => {
    const head = await providers(held, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("content-type")).toBe("application/json")
    expect(await head.text()).toBe("")
    const refused = await providers("not-a-cid")
    expect(refused.status).toBe(422)
    expect(await refused.json()).toEqual({ error: "invalid CID: not-a-cid" })
  })

  it("on the Walrus gateway, names no one for content not stored on Walrus", async () => {
    const response = await fetch(`${network.hosts.walrusGateway}/routing/v1/providers/${held}`)
    expect(await response.json()).toEqual({ Providers: [] })
  })
})

describe("the gateway's own address", () => {
  it("is the Forwarded host and proto when an HTTP server in front sets them, else the request's origin", () => {
    const at = (headers: Record<string, string>) =>
      publicOrigin(new Request("https://gateway.lighthouse.storage/routing/v1/providers/x", { headers })).href
    expect(at({})).toBe("https://gateway.lighthouse.storage/")
    expect(at({ forwarded: 'host="127.0.0.1:8733";proto=http' })).toBe("http://127.0.0.1:8733/")
    expect(at({ forwarded: "for=10.0.0.1;host=localhost:9000;proto=http, host=other" })).toBe("http://localhost:9000/")
    expect(at({ forwarded: "host=[::1]:8733" })).toBe("https://[::1]:8733/")
    expect(at({ forwarded: 'host="not a host"' })).toBe("https://gateway.lighthouse.storage/")
  })

  it("is written as the multiaddr HTTP routing clients dial, and filtered by its protocol names", () => {
    const address = (origin: string) => httpMultiaddr(new URL(origin))
    expect(address("http://127.0.0.1:8733")).toEqual({
      text: "/ip4/127.0.0.1/tcp/8733/http",
      protocols: ["ip4", "tcp", "http"]
    })
    expect(address("http://[::1]:8733").text).toBe("/ip6/::1/tcp/8733/http")
    expect(address("http://localhost:8733").text).toBe("/dns/localhost/tcp/8733/http")
    expect(address("http://gw.local").text).toBe("/dns/gw.local/tcp/80/http")
    expect(address("https://gateway.lighthouse.storage")).toEqual({
      text: "/dns/gateway.lighthouse.storage/tcp/443/tls/http",
      protocols: ["dns", "tcp", "tls", "http"]
    })
    const local = address("http://127.0.0.1:8733")
    expect(passesAddrFilter(local, [])).toBe(true)
    expect(passesAddrFilter(local, ["unknown"])).toBe(false)
    expect(passesAddrFilter(local, ["!ip6", "!quic-v1"])).toBe(true)
    expect(passesAddrFilter(local, ["http", "!ip4"])).toBe(false)
  })
})
