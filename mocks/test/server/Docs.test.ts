/**
 * The served API host's reference page: `GET /docs` is the contract's OpenAPI document rendered by
 * Scalar, its script inline (no CDN), every route of the contract in it; the other hosts have no
 * such page.
 */
import * as Contract from "lighthouse-effect/contract"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork()
})
afterAll(() => served.close())

describe("GET /docs on the API host", () => {
  it("is the contract's reference page, self-contained", async () => {
    const answer = await fetch(`${served.urls.api}/docs`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
    const page = await answer.text()
    expect(page).toContain("<title>Lighthouse storage API (as lighthouse-effect knows it)</title>")
    expect(page).toContain("Scalar.createApiReference")
    // The script is in the page, not fetched from a CDN.
    expect(page).not.toMatch(/<script src=/)
    for (const endpoint of Contract.Endpoints.values()) {
      expect(page).toContain(JSON.stringify(endpoint.path.replace(/:(\w+)/g, "{$1}")))
    }
  })

  it("is the API host's alone", async () => {
    const answer = await fetch(`${served.urls.gateway}/docs`)
    expect(answer.status).toBe(404)
    await answer.body?.cancel()
  })
})
